import FoundationEssentials
import Glibc
import KeyboardEngine
import LinuxSystem

/// A hub's package index, in espanso hub's format (`package_index.json`):
/// every version of every package, each with its archive and the
/// archive's SHA-256 file.
struct HubIndex: Decodable {
  /// espanso's public hub: where `espanso install` looks too.
  static let espansoHub = "https://github.com/espanso/hub/releases/latest/download/package_index.json"
  /// The largest index taken (espanso's is some hundreds of kilobytes).
  static let largestIndex = 32 << 20
  /// How long a fetched index is used again, in seconds (as espanso does).
  static let cacheLifetime = 3600

  struct Entry: Decodable, Equatable {
    var name: String
    var title: String
    var author: String
    var description: String
    var version: String
    var archiveURL: String
    var archiveSHA256URL: String

    enum CodingKeys: String, CodingKey {
      case name, title, author, description, version
      case archiveURL = "archive_url"
      case archiveSHA256URL = "archive_sha256_url"
    }
  }

  var lastUpdate: Int64
  var packages: [Entry]

  enum CodingKeys: String, CodingKey {
    case lastUpdate = "last_update"
    case packages
  }

  /// Reads an index; `source` (its URL) names it in the error.
  static func parse(_ bytes: [UInt8], source: String) throws(PackageError) -> HubIndex {
    do {
      return try JSONDecoder().decode(HubIndex.self, from: Data(bytes))
    } catch DecodingError.dataCorrupted(let context) where context.codingPath.isEmpty {
      throw PackageError("the hub index at \(source) is not JSON", status: .dataError)
    } catch let error as DecodingError {
      throw PackageError("the hub index at \(source) is not one: \(Self.describe(error))", status: .dataError)
    } catch {
      throw PackageError("the hub index at \(source) is not JSON", status: .dataError)
    }
  }

  private static func describe(_ error: DecodingError) -> String {
    switch error {
    case .keyNotFound(let key, let context):
      return "'\(key.stringValue)' is missing at \(path(context))"
    case .typeMismatch(_, let context), .valueNotFound(_, let context):
      return "the value at \(path(context)) is of the wrong type"
    case .dataCorrupted(let context):
      return "the value at \(path(context)) is not valid"
    @unknown default:
      return "not valid"
    }
  }

  private static func path(_ context: DecodingError.Context) -> String {
    let parts = context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? ".\($0.stringValue)" }
    return parts.isEmpty ? "the top" : parts.joined()
  }

  /// The entry of `name`: of `version` when one is named, else the highest.
  func entry(_ name: String, version: String?) -> Entry? {
    let versions = packages.filter { $0.name == name }
    if let version { return versions.first { $0.version == version } }
    return versions.max { Self.precedes($0.version, $1.version) }
  }

  /// Natural order: runs of digits compare as numbers (`1.10.0` after
  /// `1.9.2`), the rest as text; espanso orders versions so.
  static func precedes(_ first: String, _ second: String) -> Bool {
    func runs(_ text: String) -> [(digits: Bool, text: Substring)] {
      var result: [(Bool, Substring)] = []
      var start = text.startIndex
      while start < text.endIndex {
        let digits = text[start].isASCII && text[start].isNumber
        let end = text[start...].firstIndex { ($0.isASCII && $0.isNumber) != digits } ?? text.endIndex
        result.append((digits, text[start..<end]))
        start = end
      }
      return result
    }
    for (a, b) in zip(runs(first), runs(second)) where a.text != b.text {
      if a.digits && b.digits {
        let x = a.text.drop { $0 == "0" }
        let y = b.text.drop { $0 == "0" }
        if x == y { continue }  // 01 and 1
        return x.count != y.count ? x.count < y.count : x < y
      }
      return a.text < b.text
    }
    return runs(first).count < runs(second).count
  }
}

/// Where fetched indexes are kept for an hour:
/// `$XDG_CACHE_HOME/vkbd/hub/` (else `~/.cache/vkbd/hub/`), a file a hub.
struct HubCache {
  let directory: String

  init(directory: String = HubCache.userDirectory) { self.directory = directory }

  static var userDirectory: String {
    let cache = getenv("XDG_CACHE_HOME").map { String(cString: $0) } ?? ""
    let home = getenv("HOME").map { String(cString: $0) } ?? "/"
    return (cache.hasPrefix("/") ? cache : home + "/.cache") + "/vkbd/hub"
  }

  /// The file of the hub at `url`: its FNV-1a hash, so any URL makes a name.
  func path(for url: String) -> String {
    let hex = String(FNV1a.hash(url.utf8), radix: 16)
    return directory + "/" + String(repeating: "0", count: 16 - hex.count) + hex + ".json"
  }

  /// The index kept for `url` if it is younger than `lifetime` seconds.
  func fresh(_ url: String, lifetime: Int = HubIndex.cacheLifetime) -> [UInt8]? {
    let file = path(for: url)
    var info = stat()
    guard stat(file, &info) == 0, Int(time(nil)) - Int(info.st_mtim.tv_sec) < lifetime else { return nil }
    return try? Files.read(file, limit: HubIndex.largestIndex)
  }

  /// Keeps `index` for `url`; a cache that cannot be written is only slower.
  func keep(_ index: [UInt8], for url: String) {
    try? Files.makeDirectories(directory, mode: 0o700)
    try? Files.writeAtomically(String(decoding: index, as: UTF8.self), to: path(for: url))
  }
}
