import CLinuxSystem
import Glibc
import SystemPackage

/// Whole files and directories, read the one way both programs read them.
public enum Files {
  /// The largest file read whole unless a caller says otherwise: config,
  /// match and script files.
  public static let largestReadable = 64 << 20

  /// A whole file as bytes (`open`, `read`); a file over `limit` bytes is
  /// an error (EFBIG).
  public static func read(_ path: String, limit: Int = largestReadable) throws(SystemError) -> [UInt8] {
    let fd = FileDescriptor(rawValue: try valueOrErrno("open", path) { open(path, O_RDONLY | O_CLOEXEC) })
    defer { fd.closeQuietly() }
    return try read(fd, named: path, limit: limit)
  }

  /// Standard input whole, as text: read from descriptor 0 (a pipe of
  /// another user's cannot be opened again through /dev/stdin).
  public static func readStandardInput(limit: Int = largestReadable) throws(SystemError) -> String {
    try text(read(.standardInput, named: "standard input", limit: limit), named: "standard input")
  }

  /// What is left to read of `fd`, whole; `path` names it in errors.
  private static func read(_ fd: FileDescriptor, named path: String, limit: Int) throws(SystemError) -> [UInt8] {
    // A file that says it is too large is refused before a byte is read (a
    // gigabyte match file costs nothing); one that grows while it is read
    // is caught below.
    var info = stat()
    if fstat(fd.rawValue, &info) == 0 && info.st_size > limit {
      throw SystemError("read", path, errno: .fileTooLarge)
    }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let count = try valueOrErrno("read", path) {
        chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
      }
      if count == 0 { return bytes }
      bytes.append(contentsOf: chunk[..<count])
      if bytes.count > limit { throw SystemError("read", path, errno: .fileTooLarge) }
    }
  }

  /// A whole file as text; invalid UTF-8 is an error (EILSEQ).
  public static func readText(_ path: String, limit: Int = largestReadable) throws(SystemError) -> String {
    try text(read(path, limit: limit), named: path)
  }

  private static func text(_ bytes: [UInt8], named path: String) throws(SystemError) -> String {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw SystemError("read", path, errno: .illegalByteSequence)
    }
    return text
  }

  /// Replaces the file `path` with `text` whole or not at all: written to
  /// a new file beside it (with the old one's mode, else 0600), synced, then
  /// renamed over it.
  public static func writeAtomically(_ text: String, to path: String) throws(SystemError) {
    var status = stat()
    let mode = stat(path, &status) == 0 ? status.st_mode & 0o7777 : 0o600
    let temporary = path + ".vkbd-new"
    let fd = FileDescriptor(
      rawValue: try valueOrErrno("open", temporary) { open(temporary, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode) })
    do {
      defer { fd.closeQuietly() }
      var bytes = Array(text.utf8)[...]
      while !bytes.isEmpty {
        let count = try valueOrErrno("write", temporary) {
          bytes.withUnsafeBytes { Glibc.write(fd.rawValue, $0.baseAddress, $0.count) }
        }
        bytes = bytes.dropFirst(count)
      }
      _ = try valueOrErrno("fsync", temporary) { fsync(fd.rawValue) }
    } catch {
      unlink(temporary)
      throw error
    }
    guard rename(temporary, path) == 0 else {
      let error = SystemError("rename", path)
      unlink(temporary)
      throw error
    }
  }

  /// Makes the folder `path` and those above it that are missing, with
  /// `mode` (`mkdir -p`).
  public static func makeDirectories(_ path: String, mode: mode_t = 0o755) throws(SystemError) {
    var prefix = ""
    for part in path.split(separator: "/") {
      prefix += "/" + part
      guard mkdir(prefix, mode) == 0 || errno == EEXIST else { throw SystemError("mkdir", prefix) }
    }
  }

  /// Swaps what is at two paths in one step (`renameat2` with
  /// RENAME_EXCHANGE): both must exist, on one file system.
  public static func exchange(_ first: String, _ second: String) throws(SystemError) {
    _ = try valueOrErrno("renameat2", second) { CLinuxSystem_exchangePaths(first, second) }
  }

  /// Removes `path` and, for a folder, everything in it; links are removed,
  /// never followed. Nothing there is no error.
  public static func removeTree(_ path: String) throws(SystemError) {
    var info = stat()
    guard lstat(path, &info) == 0 else {
      if errno == ENOENT { return }
      throw SystemError("lstat", path)
    }
    if info.st_mode & S_IFMT == S_IFDIR {
      for name in names(in: path) ?? [] { try removeTree(path + "/" + name) }
      _ = try valueOrErrno("rmdir", path) { rmdir(path) }
    } else {
      _ = try valueOrErrno("unlink", path) { unlink(path) }
    }
  }

  /// The target of the symbolic link `path` (`readlink`).
  public static func readLink(_ path: String) throws(SystemError) -> String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
    let length = try valueOrErrno("readlink", path) { readlink(path, &buffer, buffer.count - 1) }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The names in the directory `path`, sorted, without `.` and `..`; nil
  /// when it cannot be opened (`opendir`, `readdir`).
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

  /// What is at `path` (`stat`, following links); nil when nothing is.
  public static func kind(of path: String) -> Kind? {
    var info = stat()
    guard stat(path, &info) == 0 else { return nil }
    switch info.st_mode & S_IFMT {
    case S_IFDIR: return .directory
    case S_IFREG: return .file(size: Int(info.st_size))
    default: return .other
    }
  }

  public enum Kind: Equatable, Sendable {
    case directory
    case file(size: Int)
    case other
  }
}

/// Standard output or error as a `TextOutputStream`, written through at
/// once (`write`, EINTR retried).
public struct StandardStream: TextOutputStream {
  private let fd: Int32

  public static var output: StandardStream { StandardStream(fd: 1) }
  public static var error: StandardStream { StandardStream(fd: 2) }

  public mutating func write(_ string: String) {
    var bytes = Array(string.utf8)[...]
    while !bytes.isEmpty {
      let written = try? valueOrErrno("write") { bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) } }
      guard let written, written > 0 else { return }
      bytes = bytes.dropFirst(written)
    }
  }
}

/// Prints `message` on standard error, as `PROGRAM: message`.
public func printError(_ message: String, program: String) {
  var standardError = StandardStream.error
  print("\(program): \(message)", to: &standardError)
}
