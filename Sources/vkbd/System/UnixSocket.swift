import AgentProtocol
import Glibc

/// A listening Unix stream socket on the event loop, non-blocking; the
/// socket file goes with it.
final class ListeningSocket {
  let path: String
  let fd: Int32

  /// Creates the socket at `path` (and its directory), with no access for
  /// anyone until it is bound, then `mode` and, when given, `group`
  /// (`socket`, `bind`, `chown`, `chmod`, `listen`), and watches it on
  /// `loop` with `token`. A socket left there by a daemon that died is
  /// replaced; anything else at the path is an error.
  init(path: String, mode: mode_t, group: gid_t? = nil, loop: EventLoop, token: UInt64) throws(SystemError) {
    try Self.makeDirectories(MatchPaths.directory(of: path))
    var info = stat()
    if lstat(path, &info) == 0 {
      guard info.st_mode & S_IFMT == S_IFSOCK else { throw SystemError("bind", path, errno: EEXIST) }
      unlink(path)
    }
    let listener = try valueOrErrno("socket") {
      socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    do throws(SystemError) {
      let mask = umask(0o177)
      let bound = withSocketAddress(path) { bind(listener, $0, $1) }
      umask(mask)
      guard bound == 0 else { throw SystemError("bind", path) }
      if let group { try valueOrErrno("chown", path) { chown(path, 0, group) } }
      try valueOrErrno("chmod", path) { chmod(path, mode) }
      try valueOrErrno("listen", path) { listen(listener, 16) }
      try loop.watch(listener, token: token)
    } catch {
      close(listener)
      throw error
    }
    self.path = path
    fd = listener
  }

  deinit {
    close(fd)
    unlink(path)
  }

  /// `mkdir -p` with mode 0755 for the directories that do not exist.
  private static func makeDirectories(_ directory: String) throws(SystemError) {
    guard directory != "/" && access(directory, F_OK) != 0 else { return }
    try makeDirectories(MatchPaths.directory(of: directory))
    if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw SystemError("mkdir", directory) }
  }

  /// The next client waiting, made non-blocking and close-on-exec
  /// (`accept`, `fcntl`; glibc declares accept4 only with _GNU_SOURCE); nil
  /// when none is (or the one that was has gone).
  func accept() -> Int32? {
    let client = Glibc.accept(fd, nil, nil)
    guard client >= 0 else { return nil }
    _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
    _ = fcntl(client, F_SETFD, FD_CLOEXEC)
    return client
  }
}

/// What the daemon's sockets ask of a connected client.
enum UnixSocket {
  /// The process at the other end, as the kernel saw it connect (SO_PEERCRED).
  static func peer(of client: Int32) -> PeerCredentials? {
    var credentials = PeerCredentials()
    var length = socklen_t(MemoryLayout<PeerCredentials>.size)
    guard getsockopt(client, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else { return nil }
    return credentials
  }

  /// The client's supplementary groups (SO_PEERGROUPS, Linux 4.13).
  static func supplementaryGroups(of client: Int32) -> [gid_t] {
    var groups = [gid_t](repeating: 0, count: 256)
    var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
    guard getsockopt(client, SOL_SOCKET, SO_PEERGROUPS, &groups, &length) == 0 else { return [] }
    return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
  }

  /// Sends what it can of `bytes` without waiting (MSG_NOSIGNAL: a peer
  /// that went away is an error, not a SIGPIPE); the count sent, or nil on
  /// an error other than a full socket.
  static func send(_ client: Int32, _ bytes: ArraySlice<UInt8>) -> Int? {
    var sent = 0
    while sent < bytes.count {
      let count = bytes.withUnsafeBytes {
        Glibc.send(client, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL))
      }
      if count < 0 && errno == EINTR { continue }
      if count < 0 && errno == EAGAIN { return sent }
      guard count > 0 else { return nil }
      sent += count
    }
    return sent
  }
}

/// `struct ucred` (which the C headers declare only with _GNU_SOURCE).
struct PeerCredentials {
  var pid: pid_t = 0
  var uid: uid_t = 0
  var gid: gid_t = 0
}
