import Glibc
import LinuxSystem

/// Where match files are read from: the disk (the config's own files), or
/// the files a session agent sent (a user's espanso directory, read as that
/// user: the daemon opens no path in a user's home).
protocol MatchFileStore {
  /// The file's text.
  func read(_ path: String) throws(SystemError) -> String
  /// Whether a file or directory is there.
  func kind(of path: String) -> MatchFileKind?
  /// The names in a directory, sorted.
  func names(in directory: String) -> [String]
  /// The path with symbolic links resolved (import cycles), when it exists.
  func canonical(_ path: String) -> String?
}

enum MatchFileKind { case file, directory }

/// The files on this machine.
struct DiskFiles: MatchFileStore {
  func read(_ path: String) throws(SystemError) -> String { try Files.readText(path) }

  func kind(of path: String) -> MatchFileKind? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    return info.st_mode & S_IFMT == S_IFDIR ? .directory : .file
  }

  func names(in directory: String) -> [String] { Files.names(in: directory) ?? [] }

  func canonical(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }
}

/// Files held in memory, by absolute path: what a session agent sent.
struct SentFiles: MatchFileStore {
  let files: [String: String]

  init(files: [String: String]) {
    self.files = Dictionary(
      files.map { (MatchPaths.normalized($0.key), $0.value) }, uniquingKeysWith: { first, _ in first })
  }

  func read(_ path: String) throws(SystemError) -> String {
    guard let text = files[MatchPaths.normalized(path)] else {
      throw SystemError("read", path, errno: .noSuchFileOrDirectory)
    }
    return text
  }

  func kind(of path: String) -> MatchFileKind? {
    let path = MatchPaths.normalized(path)
    if files[path] != nil { return .file }
    let prefix = path == "/" ? "/" : path + "/"
    return files.keys.contains { $0.hasPrefix(prefix) } ? .directory : nil
  }

  func names(in directory: String) -> [String] {
    let prefix = MatchPaths.normalized(directory) == "/" ? "/" : MatchPaths.normalized(directory) + "/"
    var names = Set<String>()
    for path in files.keys where path.hasPrefix(prefix) {
      if let name = path.dropFirst(prefix.count).split(separator: "/").first { names.insert(String(name)) }
    }
    return names.sorted()
  }

  func canonical(_ path: String) -> String? { kind(of: path) == nil ? nil : MatchPaths.normalized(path) }
}

/// Paths of match files: joining, globbing (`**` included), espanso's
/// directory walk.
enum MatchPaths {
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// `$HOME`, else the password database's home of the user.
  static var homeDirectory: String? {
    if let home = getenv("HOME"), home.pointee != 0 { return String(cString: home) }
    return getpwuid(getuid()).flatMap { $0.pointee.pw_dir.map { String(cString: $0) } }
  }

  static func fileName(_ path: String) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
  }

  /// `path` relative to `directory` unless absolute; `~` and `~/…` stand
  /// for `home`, the home directory of whoever runs vkbd.
  static func join(_ directory: String, _ path: String, home: String? = homeDirectory) -> String {
    var path = path
    if let home, path == "~" || path.hasPrefix("~/") { path = home + path.dropFirst() }
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path.hasPrefix("/") ? path : directory == "." ? path : "\(directory)/\(path)"
  }

  /// `a/./b/../c` is `a/c`; no link is followed.
  static func normalized(_ path: String) -> String {
    var parts: [Substring] = []
    for part in path.split(separator: "/") where part != "." {
      if part == ".." {
        if !parts.isEmpty && parts.last != ".." {
          parts.removeLast()
        } else if !path.hasPrefix("/") {
          parts.append(part)
        }
      } else {
        parts.append(part)
      }
    }
    let joined = parts.joined(separator: "/")
    return path.hasPrefix("/") ? "/" + joined : joined.isEmpty ? "." : joined
  }

  static func isPattern(_ path: String) -> Bool { path.contains { "*?[".contains($0) } }

  /// The paths a glob names, sorted: each segment a shell pattern
  /// (`fnmatch(3)`), and a `**` segment any number of directories, none
  /// included (as espanso's own globbing does). Names starting with `.`
  /// match only a pattern that starts with `.`.
  static func glob(_ pattern: String, in files: some MatchFileStore) -> [String] {
    let absolute = pattern.hasPrefix("/")
    let segments = pattern.split(separator: "/").map(String.init)
    var found = Set<String>()
    expand(segments[...], from: absolute ? "/" : ".", files: files, into: &found)
    return found.sorted()
  }

  private static func expand(
    _ segments: ArraySlice<String>, from base: String, files: some MatchFileStore, into found: inout Set<String>
  ) {
    guard let segment = segments.first else {
      if base != "." { found.insert(base) }
      return
    }
    let rest = segments.dropFirst()
    func child(_ name: String) -> String { base == "." ? name : base == "/" ? "/" + name : base + "/" + name }
    if segment == "**" {
      expand(rest, from: base, files: files, into: &found)
      for name in files.names(in: base) where !name.hasPrefix(".") && files.kind(of: child(name)) == .directory {
        expand(segments, from: child(name), files: files, into: &found)
      }
    } else if isPattern(segment) {
      for name in files.names(in: base) where fnmatch(segment, name, FNM_PERIOD) == 0 {
        if rest.isEmpty || files.kind(of: child(name)) == .directory {
          expand(rest, from: child(name), files: files, into: &found)
        }
      }
    } else if files.kind(of: child(segment)) != nil {
      expand(rest, from: child(segment), files: files, into: &found)
    }
  }

  /// The match files under a directory, sorted, as espanso reads its
  /// `match/`: every `.yml` and `.yaml` at any depth whose name does not
  /// start with `_` (those are for imports) or `.`.
  static func matchFiles(under directory: String, in files: some MatchFileStore) -> [String] {
    var result: [String] = []
    for name in files.names(in: directory) where !name.hasPrefix(".") {
      let path = directory == "/" ? "/" + name : directory + "/" + name
      if files.kind(of: path) == .directory {
        result += matchFiles(under: path, in: files)
      } else if !name.hasPrefix("_") && (name.hasSuffix(".yml") || name.hasSuffix(".yaml")) {
        result.append(path)
      }
    }
    return result
  }
}
