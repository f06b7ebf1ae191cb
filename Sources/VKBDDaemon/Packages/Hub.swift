import Glibc
import LinuxSystem

/// A hub in espanso's format, reached through `vkbd-fetch` (the only
/// program of vkbd that links libcurl and libarchive): its index, and the
/// installation of one of its packages, checked whole before it is put in
/// place.
struct Hub {
  let url: String
  /// The seconds a connection may take to start, or stall.
  let timeout: Int
  /// Fetch the index even when the cached one is fresh.
  let refresh: Bool
  var cache = HubCache()
  /// `vkbd-fetch`: beside this program (the build), else PREFIX/lib/vkbd/.
  var fetcher = Hub.fetcherPath

  /// The largest archive taken (the hub's are some kilobytes).
  static let largestArchive = 32 << 20

  static var fetcherPath: String {
    let executable = (try? Files.readLink("/proc/self/exe")) ?? ""
    let directory = MatchPaths.directory(of: executable)
    if access(directory + "/vkbd-fetch", X_OK) == 0 { return directory + "/vkbd-fetch" }
    return MatchPaths.directory(of: directory) + "/lib/vkbd/vkbd-fetch"
  }

  /// The hub's index: the cached one when younger than an hour.
  func index() throws(PackageError) -> HubIndex {
    if !refresh, let kept = cache.fresh(url), let index = try? HubIndex.parse(kept, source: url) { return index }
    let bytes = try fetch(["get", url, "\(HubIndex.largestIndex)", "\(timeout)"], limit: HubIndex.largestIndex)
    let index = try HubIndex.parse(bytes, source: url)
    cache.keep(bytes, for: url)
    return index
  }

  /// Downloads `entry`'s archive, checks its SHA-256, unpacks it, checks
  /// that it is the package named and that its match files load, and only
  /// then puts it in place in `store` (replacing what is there).
  func install(_ entry: HubIndex.Entry, into store: PackageStore) throws(PackageError) -> PackageStore.Installation {
    let sumText = try fetch(["get", entry.archiveSHA256URL, "4096", "\(timeout)"], limit: 4096)
    let sum =
      String(decoding: sumText, as: UTF8.self).split(whereSeparator: \.isWhitespace).first.map(String.init) ?? ""
    guard sum.count == 64,
      sum.utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 | 0x20 >= 0x61 && $0 | 0x20 <= 0x66) })
    else {
      throw PackageError("\(entry.archiveSHA256URL) holds no SHA-256 (64 hex digits)", status: .dataError)
    }
    let staging = try store.makeStaging()
    defer { try? Files.removeTree(staging) }
    let unpacked = staging + "/archive"
    guard mkdir(unpacked, 0o755) == 0 else {
      throw PackageError("cannot make \(unpacked): \(String(cString: strerror(errno)))", status: .cannotCreate)
    }
    _ = try fetch(
      ["unpack", entry.archiveURL, sum, "\(Self.largestArchive)", "\(timeout)", unpacked], limit: 4096)
    guard let root = Self.packageRoot(in: unpacked) else {
      throw PackageError("\(entry.archiveURL) holds no _manifest.yml: not a package", status: .dataError)
    }
    return try store.install(
      root, as: entry.name, version: entry.version, from: "the index", source: PackageStore.hubSource)
  }

  /// The folder that holds `_manifest.yml`, the shallowest (espanso looks
  /// for it at any depth).
  static func packageRoot(in directory: String) -> String? {
    var level = [directory]
    while !level.isEmpty {
      if let found = level.first(where: { Files.kind(of: $0 + "/_manifest.yml") != nil }) { return found }
      level = level.flatMap { folder in
        (Files.names(in: folder) ?? []).map { folder + "/" + $0 }.filter { Files.kind(of: $0) == .directory }
      }
    }
    return nil
  }

  /// Runs `vkbd-fetch` with `arguments`; its output, or why it failed.
  private func fetch(_ arguments: [String], limit: Int) throws(PackageError) -> [UInt8] {
    let result = ProgramRun.run(
      [fetcher] + arguments, timeoutMicroseconds: Int64(timeout * 4 + 30) * 1_000_000, outputLimit: limit + 1)
    switch result {
    case .success(let output) where output.termination == .exited(0):
      return output.standardOutput
    case .success(let output):
      let reason =
        String(decoding: output.standardError, as: UTF8.self)
        .split(separator: "\n").last.map { String($0.trimmingPrefix("vkbd-fetch: ")) } ?? "it failed"
      // vkbd-fetch's status says what kind of failure it is, as ours do.
      guard case .exited(let status) = output.termination, let kind = PackageError.Status(rawValue: status) else {
        throw PackageError("\(fetcher) ended: \(reason)")
      }
      throw PackageError(reason, status: kind)
    case .failure(let failure):
      throw PackageError("cannot run \(fetcher): \(failure)", status: .unavailable)
    }
  }
}
