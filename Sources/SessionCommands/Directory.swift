#if canImport(Glibc)
  import Glibc
#endif

/// Reading directories, for the daemon's match files and the agent's.
public enum Directory {
  /// The names in `path`, sorted, without `.` and `..`; nil when it cannot
  /// be opened.
  public static func names(in path: String) -> [String]? {
    guard let stream = opendir(path) else { return nil }
    defer { closedir(stream) }
    var names: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name != "." && name != ".." { names.append(name) }
    }
    return names.sorted()
  }
}
