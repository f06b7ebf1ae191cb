import CEvdev
import Glibc
import Logging

/// The daemon's control socket: a Unix stream socket, non-blocking
/// everywhere, on the daemon's event loop. Each client sends one request line
/// and gets one reply line. Bounded: a request of at most
/// ``ControlProtocol/maximumRequest`` bytes, ``maximumClients`` at once, each
/// done within ``clientTimeout`` or dropped; end of file closes the client
/// (never read again), so nothing a client does can stall or spin the loop.
final class ControlServer {
  static let maximumClients = 64
  /// How long a client has for its request and our reply, in microseconds.
  let clientTimeout: Int64

  let path: String
  private let fd: Int32
  private let loop: EventLoop
  private let logger: Logger
  private let group: gid_t?
  private let timer: DeadlineTimer
  private var clients: [Int32: Client] = [:]
  /// Where requests are read into, one read at a time.
  private let chunk = UnsafeMutableRawPointer.allocate(byteCount: chunkSize, alignment: 1)
  private static let chunkSize = 16_384
  private var armedDeadline: Int64?
  /// Answers a request; set by the daemon.
  var respond: (ControlRequest) -> ControlReply = { _ in .failure("not ready") }

  private static let listenToken: UInt64 = 5
  private static let timerToken: UInt64 = 6
  private static let clientTokenBase: UInt64 = 1 << 40

  private struct Client {
    var received: [UInt8] = []
    var outgoing: [UInt8] = []
    var sent = 0
    var deadline: Int64
    var refused = false
  }

  /// Creates the socket (and its directory) with mode 0600, or 0660 and the
  /// group `groupName` when given, and watches it on `loop`.
  init(
    path: String, groupName: String?, loop: EventLoop, logger: Logger, clientTimeout: Int64 = 5_000_000
  ) throws(SystemError) {
    self.path = path
    self.clientTimeout = clientTimeout
    self.loop = loop
    self.logger = logger
    if let groupName {
      guard let entry = getgrnam(groupName) else { throw SystemError("getgrnam", groupName, errno: ENOENT) }
      group = entry.pointee.gr_gid
    } else {
      group = nil
    }
    try Self.makeDirectories(SnippetLoader.directory(of: path))
    var info = stat()
    if lstat(path, &info) == 0 {
      // A socket left by a daemon that died; anything else is not ours to remove.
      guard info.st_mode & S_IFMT == S_IFSOCK else { throw SystemError("bind", path, errno: EEXIST) }
      unlink(path)
    }
    timer = try DeadlineTimer()
    let listener = try valueOrErrno("socket") {
      socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_NONBLOCK.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    do throws(SystemError) {
      // Created with no access for anyone; opened up below once it is right.
      let mask = umask(0o177)
      let bound = withSocketAddress(path) { bind(listener, $0, $1) }
      umask(mask)
      guard bound == 0 else { throw SystemError("bind", path) }
      if let group {
        try valueOrErrno("chown", path) { chown(path, 0, group) }
        try valueOrErrno("chmod", path) { chmod(path, 0o660) }
      }
      try valueOrErrno("listen", path) { listen(listener, 16) }
      try loop.watch(listener, token: Self.listenToken)
      try loop.watch(timer.fd, token: Self.timerToken)
    } catch {
      close(listener)
      throw error
    }
    fd = listener
  }

  /// `mkdir -p` with mode 0755 for the directories that do not exist.
  private static func makeDirectories(_ directory: String) throws(SystemError) {
    guard directory != "/" && access(directory, F_OK) != 0 else { return }
    try makeDirectories(SnippetLoader.directory(of: directory))
    if mkdir(directory, 0o755) != 0 && errno != EEXIST { throw SystemError("mkdir", directory) }
  }

  deinit {
    for client in clients.keys { close(client) }
    close(fd)
    unlink(path)
    chunk.deallocate()
  }

  /// How many clients are connected.
  var clientCount: Int { clients.count }

  /// Handles a ready token if it is the server's; false when it is not.
  func handle(_ token: UInt64) -> Bool {
    switch token {
    case Self.listenToken:
      acceptClients()
      if armedDeadline == nil { armTimer() }
    case Self.timerToken:
      timer.acknowledge()
      armedDeadline = nil
      let now = monotonicMicroseconds()
      for (client, state) in clients where state.deadline <= now {
        logger.info("control socket: a client took too long; dropped")
        drop(client)
      }
      armTimer()
    case Self.clientTokenBase...:
      let client = Int32(truncatingIfNeeded: token - Self.clientTokenBase)
      guard clients[client] != nil else { return true }
      if clients[client]!.outgoing.isEmpty { receive(from: client) } else { send(to: client) }
    default:
      return false
    }
    return true
  }

  /// Accepts the clients waiting, sixteen at a time: more are taken on the
  /// loop's next turn, after the keys that came in between.
  private func acceptClients() {
    for _ in 0..<16 {
      let client = accept(fd, nil, nil)
      guard client >= 0 else { return }  // EAGAIN: all taken; other errors: the client is gone
      _ = fcntl(client, F_SETFL, fcntl(client, F_GETFL) | O_NONBLOCK)
      _ = fcntl(client, F_SETFD, FD_CLOEXEC)
      guard clients.count < Self.maximumClients else {
        close(client)
        continue
      }
      let refusal = refusal(of: client)
      if let refusal { logger.warning("control socket: refused \(refusal)") }
      do {
        try loop.watch(client, token: Self.clientTokenBase + UInt64(client))
      } catch {
        close(client)
        continue
      }
      // A refused client still gets its request read (closing on unread data
      // would reset the connection before it sees why) and a refusal back.
      clients[client] = Client(deadline: monotonicMicroseconds() + clientTimeout, refused: refusal != nil)
    }
  }

  /// Why a client may not use the socket (from SO_PEERCRED), nil when it may:
  /// root, or a member of the control group.
  private func refusal(of client: Int32) -> String? {
    var credentials = PeerCredentials()
    var length = socklen_t(MemoryLayout<PeerCredentials>.size)
    guard getsockopt(client, SOL_SOCKET, SO_PEERCRED, &credentials, &length) == 0 else {
      return "a client whose credentials cannot be read"
    }
    if credentials.uid == 0 { return nil }
    if let group, credentials.gid == group || Self.supplementaryGroups(of: client).contains(group) { return nil }
    return "uid \(credentials.uid) (pid \(credentials.pid)): not root\(group == nil ? "" : " nor in control_group")"
  }

  /// `struct ucred` (which the C headers declare only with _GNU_SOURCE).
  private struct PeerCredentials {
    var pid: pid_t = 0
    var uid: uid_t = 0
    var gid: gid_t = 0
  }

  /// The client's supplementary groups (SO_PEERGROUPS, Linux 4.13).
  private static func supplementaryGroups(of client: Int32) -> [gid_t] {
    var groups = [gid_t](repeating: 0, count: 256)
    var length = socklen_t(groups.count * MemoryLayout<gid_t>.size)
    guard getsockopt(client, SOL_SOCKET, SO_PEERGROUPS, &groups, &length) == 0 else { return [] }
    return Array(groups.prefix(Int(length) / MemoryLayout<gid_t>.size))
  }

  /// Reads what the client sent; each byte is looked at once (`memchr` for
  /// the newline in what just came), so a client that floods the socket
  /// costs the loop no more than the bytes it reads.
  private func receive(from client: Int32) {
    while true {
      let count = read(client, chunk, Self.chunkSize)
      if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) {
        drop(client)  // end of file before a whole request, or an error
        return
      }
      if count < 0 { return }  // EAGAIN: wait for more
      let newline = memchr(chunk, Int32(UInt8(ascii: "\n")), count).map { $0 - chunk }
      clients[client]!.received.append(contentsOf: UnsafeRawBufferPointer(start: chunk, count: newline ?? count))
      if newline != nil {
        reply(to: client, ControlProtocol.decode(ControlRequest.self, from: clients[client]!.received))
        return
      }
      if clients[client]!.received.count >= ControlProtocol.maximumRequest {
        reply(to: client, .failure("request too large (the limit is \(ControlProtocol.maximumRequest) bytes)"))
        return
      }
    }
  }

  private func reply(to client: Int32, _ request: ControlRequest?) {
    if clients[client]!.refused {
      reply(to: client, .failure("permission denied"))
      return
    }
    guard let request else {
      reply(
        to: client, .failure("not a request: one JSON object on one line, like {\"command\":\"status\",\"version\":1}"))
      return
    }
    guard request.version == ControlProtocol.version else {
      reply(
        to: client, .failure("protocol version \(request.version) is not spoken here (\(ControlProtocol.version) is)"))
      return
    }
    reply(to: client, respond(request))
  }

  private func reply(to client: Int32, _ reply: ControlReply) {
    clients[client]!.outgoing = ControlProtocol.encode(reply)
    send(to: client)
  }

  /// Writes what is left of the reply; waits for room when the socket is full.
  private func send(to client: Int32) {
    while let state = clients[client], state.sent < state.outgoing.count {
      // MSG_NOSIGNAL: a client that went away is an error here, not a SIGPIPE.
      let count = state.outgoing.withUnsafeBytes {
        Glibc.send(client, $0.baseAddress! + state.sent, $0.count - state.sent, Int32(MSG_NOSIGNAL))
      }
      if count < 0 && errno == EAGAIN {
        try? loop.watchWritable(client, token: Self.clientTokenBase + UInt64(client))
        return
      }
      guard count > 0 else { break }
      clients[client]!.sent += count
    }
    drop(client)  // one request per connection: done
  }

  private func drop(_ client: Int32) {
    loop.unwatch(client)
    close(client)
    clients[client] = nil
  }

  /// Arms the timer for the earliest client deadline. Only on the first
  /// client and when the timer fires: a client that leaves early costs at
  /// most one wakeup that finds nothing due, not a scan of every client.
  private func armTimer() {
    var deadline: Int64?
    for client in clients.values where client.deadline < deadline ?? .max { deadline = client.deadline }
    guard deadline != armedDeadline else { return }
    timer.arm(at: deadline)
    armedDeadline = deadline
  }
}
