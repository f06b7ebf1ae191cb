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

  var path: String { listener.path }
  private let listener: ListeningSocket
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
    self.clientTimeout = clientTimeout
    self.loop = loop
    self.logger = logger
    if let groupName {
      guard let entry = getgrnam(groupName) else { throw SystemError("getgrnam", groupName, errno: ENOENT) }
      group = entry.pointee.gr_gid
    } else {
      group = nil
    }
    timer = try DeadlineTimer()
    try loop.watch(timer.fd, token: Self.timerToken)
    listener = try ListeningSocket(
      path: path, mode: group == nil ? 0o600 : 0o660, group: group, loop: loop, token: Self.listenToken)
  }

  deinit {
    for client in clients.keys { close(client) }
    chunk.deallocate()
  }

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
      guard let client = listener.accept() else { return }
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
    guard let credentials = UnixSocket.peer(of: client) else { return "a client whose credentials cannot be read" }
    if credentials.uid == 0 { return nil }
    if let group, credentials.gid == group || UnixSocket.supplementaryGroups(of: client).contains(group) {
      return nil
    }
    return "uid \(credentials.uid) (pid \(credentials.pid)): not root\(group == nil ? "" : " nor in control_group")"
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
    if let state = clients[client], let count = UnixSocket.send(client, state.outgoing[state.sent...]) {
      clients[client]!.sent += count
      if state.sent + count < state.outgoing.count {
        try? loop.watchWritable(client, token: Self.clientTokenBase + UInt64(client))
        return
      }
    }
    drop(client)  // one request per connection: done (or the client is gone)
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
