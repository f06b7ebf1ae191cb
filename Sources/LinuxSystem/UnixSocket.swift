import CLinuxSystem
import Glibc
import SystemPackage

/// A listening Unix stream socket, non-blocking; the socket file goes with
/// it. Its owner watches ``fd`` and takes clients with ``accept()``.
public final class ListeningSocket {
  public let path: String
  public let fd: FileDescriptor

  /// Creates the socket at `path` (and its directories, mode 0755), with no
  /// access for anyone until it is bound, then `mode` and, when given,
  /// `group` (`socket`, `bind`, `chown`, `chmod`, `listen`). A socket left
  /// there by a process that died is replaced; anything else at the path is
  /// an error (EEXIST).
  public init(path: String, mode: mode_t, group: gid_t? = nil) throws(SystemError) {
    try Self.makeDirectories(Self.directory(of: path))
    var info = stat()
    if lstat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFSOCK else { throw SystemError("bind", path, errno: .fileExists) }
      unlink(path)
    }
    let listener = FileDescriptor(
      rawValue: try valueOrErrno("socket") {
        socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
      })
    do throws(SystemError) {
      let mask = umask(0o177)
      let bound = withSocketAddress(path) { bind(listener.rawValue, $0, $1) }
      umask(mask)
      guard bound == 0 else { throw SystemError("bind", path) }
      if let group { try valueOrErrno("chown", path) { chown(path, 0, group) } }
      try valueOrErrno("chmod", path) { chmod(path, mode) }
      try valueOrErrno("listen", path) { listen(listener.rawValue, 16) }
    } catch {
      listener.closeQuietly()
      throw error
    }
    self.path = path
    fd = listener
  }

  deinit {
    fd.closeQuietly()
    unlink(path)
  }

  /// The next client waiting, non-blocking and close-on-exec (`accept4`);
  /// nil when none is (or the one that was has gone).
  public func accept() -> FileDescriptor? {
    let client = CLinuxSystem_accept(fd.rawValue)
    return client >= 0 ? FileDescriptor(rawValue: client) : nil
  }

  /// `path` without its last component (`/` for a file at the root).
  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  /// `mkdir -p` with mode 0755 for the directories that do not exist.
  private static func makeDirectories(_ directory: String) throws(SystemError) {
    guard directory != "/" && directory != "." && access(directory, F_OK) != 0 else { return }
    try makeDirectories(Self.directory(of: directory))
    if mkdir(directory, 0o755) != 0 && Glibc.errno != EEXIST { throw SystemError("mkdir", directory) }
  }
}

/// Unix stream sockets: connecting, and what a server asks of a client.
public enum UnixSocket {
  /// A socket connected to `path` (`socket`, `connect`); blocking unless
  /// `nonBlocking` (then made so after the connect, which is immediate for
  /// a Unix socket).
  public static func connect(to path: String, nonBlocking: Bool = false) throws(SystemError) -> FileDescriptor {
    let fd = FileDescriptor(
      rawValue: try valueOrErrno("socket") {
        socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
      })
    do throws(SystemError) {
      try valueOrErrno("connect", path) { withSocketAddress(path) { Glibc.connect(fd.rawValue, $0, $1) } }
      if nonBlocking {
        try valueOrErrno("fcntl", path) { fcntl(fd.rawValue, F_SETFL, fcntl(fd.rawValue, F_GETFL) | O_NONBLOCK) }
      }
    } catch {
      fd.closeQuietly()
      throw error
    }
    return fd
  }

  /// The process at the other end, as the kernel saw it connect (SO_PEERCRED).
  public static func peer(of client: FileDescriptor) -> PeerCredentials? {
    var credentials = PeerCredentials()
    var length = socklen_t(MemoryLayout<PeerCredentials>.size)
    guard getsockopt(client.rawValue, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
    return credentials
  }

  /// The client's supplementary groups (SO_PEERGROUPS, Linux 4.13).
  public static func supplementaryGroups(of client: FileDescriptor) -> [gid_t] {
    var groups = [gid_t](repeating: 0, count: 256)
    var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
    guard getsockopt(client.rawValue, SOL_SOCKET, SO_PEERGROUPS, &groups, &length) == 0 else { return [] }
    return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
  }
}

/// `struct ucred` (which the C headers declare only with _GNU_SOURCE).
public struct PeerCredentials: Sendable {
  public var pid: pid_t = 0
  public var uid: uid_t = 0
  public var gid: gid_t = 0
  public init() {}
}

/// Calls `body` with the Unix socket address of `path` (`struct
/// sockaddr_un`). Paths longer than sun_path (108 bytes) are cut; the
/// config refuses them.
public func withSocketAddress<Result>(
  _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
) -> Result {
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  withUnsafeMutableBytes(of: &address.sun_path) { buffer in
    for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
  }
  return withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
  }
}
