import Glibc
import LinuxSystem
import SessionWork

/// A package from a git repository, as espanso installs its external ones
/// (`vkbd package install NAME --git URL`): git clones it, as the user who
/// runs vkbd, into a staging folder; the folder whose `_manifest.yml` names
/// NAME (the highest version, or `--version`'s) is checked as a hub
/// package is, and only then put in place. `_pkgsource.yml` records the
/// repository as espanso does, so `vkbd package update` (and espanso's)
/// fetch it again from there.
struct GitPackage {
  /// The repository: an http://, https:// or file:// URL.
  let url: String
  /// The branch cloned; nil: the repository's default.
  var branch: String?
  /// The seconds the clone may take, as for a download (four times that,
  /// and 30 more, in all).
  let timeout: Int

  /// The largest file git may write: a bigger one in the repository (or
  /// a pack over it) stops the clone.
  static let largestFile = 32 << 20

  /// Why `url` is refused before git is run; nil when it is taken.
  static func refusal(of url: String) -> String? {
    guard ["https://", "http://", "file://"].contains(where: url.hasPrefix) else {
      return "--git takes an https://, http:// or file:// URL"
    }
    guard !url.contains(where: { $0.isWhitespace || $0 == "\"" || $0 == "\\" || $0.asciiValue.map { $0 < 0x20 } == true })
    else {
      return "--git takes a URL without spaces, quotes, backslashes or control characters"
    }
    return nil
  }

  /// `_pkgsource.yml` for a package from `url`, as espanso writes it.
  var source: String {
    "---\ngit:\n  repo_url: \"\(url)\"\n  repo_branch: \(branch.map { "\"\($0)\"" } ?? "~")\n  use_native_git: true\n"
  }

  /// The repository of an installed package's `_pkgsource.yml`; nil when
  /// it records none (a hub package, or a file vkbd cannot read).
  static func recorded(in text: String, timeout: Int) -> GitPackage? {
    var url: String?
    var branch: String?
    for line in text.split(separator: "\n") {
      let parts = line.split(separator: ":", maxSplits: 1).map { Programs.trimmed(String($0)) }
      guard parts.count == 2 else { continue }
      let value = parts[1].hasPrefix("\"") && parts[1].hasSuffix("\"") && parts[1].count >= 2
        ? String(parts[1].dropFirst().dropLast()) : parts[1]
      if parts[0] == "repo_url" { url = value }
      if parts[0] == "repo_branch", value != "~", value != "null", !value.isEmpty { branch = value }
    }
    guard let url, refusal(of: url) == nil else { return nil }
    return GitPackage(url: url, branch: branch, timeout: timeout)
  }

  /// What an installation from a repository did.
  enum Outcome {
    case installed(PackageStore.Installation)
    /// The repository has the version `installed` says is there: nothing
    /// was put in place.
    case alreadyThere(String)
  }

  /// Clones the repository, finds the package `name` in it and installs
  /// it in `store`, unless its version is `installed`; nothing is put in
  /// place unless all of it checks.
  func install(
    _ name: String, version: String?, into store: PackageStore, unless installed: String? = nil
  ) throws(PackageError) -> Outcome {
    let staging = try store.makeStaging()
    defer { try? Files.removeTree(staging) }
    let clone = staging + "/repository"
    try self.clone(into: clone)
    // Before any path is followed: a link could loop, or lead a match
    // file's import to any file of the user's.
    try Self.refuseOddFiles(in: clone, shownAs: "")
    let (root, found) = try packageFolder(name, version: version, in: clone)
    if let installed, found == installed { return .alreadyThere(found) }
    // A package at the repository's root leaves git's own folder behind.
    if Files.kind(of: root + "/.git") != nil {
      do {
        try Files.removeTree(root + "/.git")
      } catch {
        throw PackageError("cannot remove \(root)/.git: \(error)", status: .cannotCreate)
      }
    }
    return .installed(try store.install(root, as: name, version: found, from: "the repository", source: source))
  }

  /// git clone, one commit deep, of http(s) and file URLs only, following
  /// no redirect, asking for no password, writing no file over
  /// ``largestFile``.
  private func clone(into directory: String) throws(PackageError) {
    var git = [
      "git", "-c", "protocol.allow=never", "-c", "protocol.https.allow=always", "-c", "protocol.http.allow=always",
      "-c", "protocol.file.allow=always", "-c", "http.followRedirects=false", "-c", "core.symlinks=true",
      "clone", "--quiet", "--depth", "1", "--single-branch", "--no-tags",
    ]
    if let branch { git += ["--branch", branch] }
    git += ["--", url, directory]
    // ulimit -f counts 512-byte blocks; the shell then becomes git.
    let command = ["/bin/sh", "-c", "ulimit -f \(Self.largestFile / 512) && exec \"$@\"", "sh"] + git
    let result = ProgramRun.run(
      command, environment: [("GIT_TERMINAL_PROMPT", "0"), ("GIT_ASKPASS", "/bin/false"), ("LC_ALL", "C")],
      timeoutMicroseconds: Int64(timeout * 4 + 30) * 1_000_000, outputLimit: 1 << 16)
    switch result {
    case .success(let output) where output.termination == .exited(0):
      return
    case .success(let output) where output.termination == .signaled(SIGXFSZ):
      throw PackageError(
        "\(url) holds a file over \(Self.largestFile >> 20) MiB (or is larger than that in all): not cloned",
        status: .dataError)
    case .success(let output) where output.termination == .exited(127):
      throw PackageError("git is not installed: apt install git", status: .unavailable)
    case .success(let output):
      // git's first error line says why; the lines after it advise.
      let lines = String(decoding: output.standardError, as: UTF8.self).split(separator: "\n")
        .map { Programs.trimmed(String($0)) }.filter { !$0.isEmpty }
      let said =
        lines.first { $0.hasPrefix("fatal: ") || $0.hasPrefix("error: ") }.map { String($0.drop { $0 != " " }.dropFirst()) }
        ?? lines.last ?? "it failed"
      throw PackageError(
        "git could not clone \(url): \(said)"
          + (said.contains(" 30") ? " (vkbd follows no redirect: give the URL it leads to)" : ""),
        status: .unavailable)
    case .failure(.timedOut):
      throw PackageError("git did not clone \(url) within \(timeout * 4 + 30) seconds", status: .unavailable)
    case .failure(let failure):
      throw PackageError("cannot run git: \(failure)", status: .unavailable)
    }
  }

  /// The folder of the repository whose `_manifest.yml` names `name`, and
  /// its version: `version`, else the highest.
  private func packageFolder(
    _ name: String, version: String?, in clone: String
  ) throws(PackageError) -> (String, version: String) {
    var found: [(folder: String, version: String)] = []
    var unreadable: [String] = []
    for manifest in Self.manifests(under: clone) {
      let folder = MatchPaths.directory(of: manifest)
      do {
        let parsed = try PackageManifest.parse(try Files.readText(manifest), file: manifest)
        if parsed.name == name { found.append((folder, parsed.version)) }
      } catch {
        unreadable.append(manifest.replacing(clone + "/", with: ""))
      }
    }
    let chosen = version.map { wanted in found.filter { $0.version == wanted } } ?? found
    guard let best = chosen.max(by: { HubIndex.precedes($0.version, $1.version) }) else {
      let what = "\(name)\(version.map { " \($0)" } ?? "")"
      throw PackageError(
        found.isEmpty && unreadable.isEmpty
          ? "\(url) holds no _manifest.yml naming \(what): not a package"
          : "\(url) holds no package \(what)"
            + (found.isEmpty ? "" : " (it has \(found.map(\.version).joined(separator: ", ")))")
            + (unreadable.isEmpty ? "" : "; these manifests do not read: \(unreadable.joined(separator: ", "))"),
        status: .dataError)
    }
    return (best.folder, best.version)
  }

  /// Every `_manifest.yml` under `directory`, but in git's folder.
  private static func manifests(under directory: String) -> [String] {
    var found: [String] = []
    for name in Files.names(in: directory) ?? [] where name != ".git" {
      let path = directory + "/" + name
      switch Files.kind(of: path) {
      case .file? where name == "_manifest.yml": found.append(path)
      case .directory?: found += manifests(under: path)
      default: break
      }
    }
    return found
  }

  /// Refuses a repository that holds anything but files and folders
  /// (git's own folder aside); `shown` is `directory` as the messages name it.
  private static func refuseOddFiles(in directory: String, shownAs shown: String) throws(PackageError) {
    for entry in Files.names(in: directory) ?? [] where entry != ".git" {
      let path = directory + "/" + entry
      var info = stat()
      guard lstat(path, &info) == 0 else { continue }
      switch info.st_mode & S_IFMT {
      case S_IFDIR: try refuseOddFiles(in: path, shownAs: shown + entry + "/")
      case S_IFREG: continue
      case S_IFLNK:
        throw PackageError("the repository holds a symbolic link (\(shown + entry))", status: .dataError)
      default:
        throw PackageError(
          "the repository holds something other than files and folders (\(shown + entry))", status: .dataError)
      }
    }
  }
}
