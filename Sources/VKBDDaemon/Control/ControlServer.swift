import AgentProtocol
import Glibc
import LinuxSystem
import Logging
import SystemPackage

/// The daemon's control socket: a Unix stream socket, non-blocking
/// everywhere, on the daemon's event loop. Each client sends one request line
/// and gets one reply line. Bounded: a request of at most
/// ``ControlProtocol/maximumRequest`` bytes, ``maximumClients`` at once, each
/// done within ``clientTimeout`` or dropped; end of file closes the client
/// (never read again), so nothing a client does can stall or spin the loop.
/// A `listen` request makes the client a listener instead: it stays, with
/// no timeout, and gets each event as a line (``announce(_:)``) until it
/// hangs up or falls ``maximumListenerBacklog`` bytes behind.
final class ControlServer {
  static let maximumClients = 64
  /// What may wait to be written to a listener that does not read.
  static let maximumListenerBacklog = 1 << 20
  /// How long a client has for its request and our reply, in microseconds.
  let clientTimeout: Int64

  var path: String { listener.path }
  private let listener: ListeningSocket
  private let loop: EventLoop
  private let budget: TurnBudget
  private let logger: Logger
  private let group: gid_t?
  private var clients: [UInt64: Client] = [:]
  /// The replies being encoded, by client, each on a thread of its own: a
  /// snippet list of espanso's whole hub is megabytes of JSON, which no
  /// loop turn must spend on.
  private var encoding: [UInt64: (work: BackgroundWork<[UInt8]>, watch: UInt64)] = [:]
  /// Answers a request from a client (its token); nil: the answer comes
  /// later, through ``answer(_:with:)`` or ``answer(_:building:)``. Set by
  /// the daemon.
  var respond: (ControlRequest, UInt64) -> ControlReply? = { _, _ in .failure("not ready") }
  /// The state now, which a new listener gets first; set by the daemon.
  var currentState: () -> DaemonEvent? = { nil }

  private struct Client {
    let connection: LineConnection
    var timer: ScheduledTimer
    var refused: Bool
    var listens = false
    /// Its request is answered later (a reload loading, a reply being
    /// encoded): no timeout.
    var waits = false
  }

  /// Whether a `vkbd listen` is connected.
  var hasListeners: Bool { clients.values.contains(where: \.listens) }

  /// Creates the socket (and its directory) with mode 0600, or 0660 and the
  /// group `groupName` when given, and watches it on `loop`; each turn
  /// serves as many clients as `budget` lets it.
  init(
    path: String, groupName: String?, loop: EventLoop, budget: TurnBudget, logger: Logger,
    clientTimeout: Int64 = 5_000_000
  ) throws(SystemError) {
    self.clientTimeout = clientTimeout
    self.loop = loop
    self.budget = budget
    self.logger = logger
    if let groupName {
      guard let entry = getgrnam(groupName) else {
        throw SystemError("getgrnam", groupName, errno: .noSuchFileOrDirectory)
      }
      group = entry.pointee.gr_gid
    } else {
      group = nil
    }
    listener = try ListeningSocket(path: path, mode: group == nil ? 0o600 : 0o660, group: group)
    try loop.watch(listener.fd) { [unowned self] _ in acceptClients() }
  }

  deinit {
    for (token, client) in clients {
      loop.unwatch(client.connection.fd, token: token)
      loop.cancel(client.timer)
    }
    for (work, watch) in encoding.values {
      loop.unwatch(work.done!, token: watch)
      _ = work.wait()
    }
  }

  /// Accepts the clients waiting, sixteen at a time: more are taken on the
  /// loop's next turn, after the keys that came in between.
  private func acceptClients() {
    for _ in 0..<16 {
      guard let fd = listener.accept() else { return }
      guard clients.count < Self.maximumClients else {
        fd.closeQuietly()
        continue
      }
      let refusal = refusal(of: fd)
      if let refusal { logger.warning("control socket: refused \(refusal)") }
      // A refused client still gets its request read (closing on unread data
      // would reset the connection before it sees why) and a refusal back.
      let connection = LineConnection(
        fd, maximumLine: ControlProtocol.maximumRequest, maximumPending: ControlProtocol.maximumReply,
        readSize: 16_384)
      var token: UInt64 = 0
      do {
        token = try loop.watch(fd) { [unowned self] _ in serve(token) }
      } catch {
        continue  // the connection closes its fd
      }
      let timer = loop.schedule(at: monotonicMicroseconds() + clientTimeout) { [unowned self] in
        logger.info("control socket: a client took too long; dropped")
        drop(token)
      }
      clients[token] = Client(connection: connection, timer: timer, refused: refusal != nil)
    }
  }

  /// Why a client may not use the socket (from SO_PEERCRED), nil when it may:
  /// root, or a member of the control group.
  private func refusal(of client: FileDescriptor) -> String? {
    guard let credentials = UnixSocket.peer(of: client) else { return "a client whose credentials cannot be read" }
    if credentials.uid == 0 { return nil }
    if let group, credentials.gid == group || UnixSocket.supplementaryGroups(of: client).contains(group) {
      return nil
    }
    return "uid \(credentials.uid) (pid \(credentials.pid)): not root\(group == nil ? "" : " nor in control_group")"
  }

  /// Reads the client's request, once a turn, and answers it when it is
  /// whole; or writes what is left of the reply.
  private func serve(_ token: UInt64) {
    guard let client = clients[token], budget.take() else { return }
    let connection = client.connection
    do throws(LineConnection.End) {
      if client.listens {
        try listen(token, connection)
        return
      }
      if client.waits {
        // Only its hanging up is heard: one request per connection.
        if try connection.read() { while try connection.nextLine() != nil {} }
        return
      }
      if connection.hasPendingOutput {
        try connection.flush()
      } else {
        try connection.read()
        let reply: ControlReply
        do throws(LineConnection.End) {
          guard let line = try connection.nextLine() else { return }
          if !client.refused, let request = ControlProtocol.decode(ControlRequest.self, from: line),
            request.command == .listen, request.version == ControlProtocol.version
          {
            startListening(token)
            return
          }
          guard let answer = self.reply(to: line, refused: client.refused, token: token) else {
            waitForAnswer(token)  // the daemon answers later
            return
          }
          reply = answer
        } catch .lineTooLong {
          reply = .failure("request too large (the limit is \(ControlProtocol.maximumRequest) bytes)")
        }
        answer(token, with: reply)
        return
      }
      if connection.hasPendingOutput {
        try? loop.change(connection.fd, token: token, to: .writable)
        return
      }
    } catch {
      // End of file before a whole request, or an error.
    }
    drop(token)  // one request per connection: done (or the client is gone)
  }

  private func reply(to line: ArraySlice<UInt8>, refused: Bool, token: UInt64) -> ControlReply? {
    if refused { return .failure("permission denied") }
    guard let request = ControlProtocol.decode(ControlRequest.self, from: line) else {
      return .failure("not a request: one JSON object on one line, like {\"command\":\"status\",\"version\":1}")
    }
    guard request.version == ControlProtocol.version else {
      return .failure("protocol version \(request.version) is not spoken here (\(ControlProtocol.version) is)")
    }
    return respond(request, token)
  }

  /// The client `token` waits for its answer, with no timeout.
  private func waitForAnswer(_ token: UInt64) {
    guard let client = clients[token], !client.waits else { return }
    loop.cancel(client.timer)
    clients[token]?.waits = true
  }

  /// Sends `reply` to `token`'s client, then lets it go (nothing when it
  /// hung up meanwhile). The reply is encoded away from the loop.
  func answer(_ token: UInt64, with reply: ControlReply) {
    answer(token) { reply }
  }

  /// Sends the reply `build` makes to `token`'s client: it is built and
  /// encoded on a thread at the least priority (`build` must share nothing
  /// with the loop), then written from the loop.
  func answer(_ token: UInt64, building build: @escaping () -> ControlReply) {
    guard clients[token] != nil else { return }
    waitForAnswer(token)
    let work = BackgroundWork(notifying: true, yielding: true) { ControlProtocol.encode(build()) }
    guard let done = work.done, let watch = try? loop.watch(done, { [unowned self] _ in encoded(token) }) else {
      deliver(work.wait(), to: token)
      return
    }
    encoding[token] = (work, watch)
  }

  private func encoded(_ token: UInt64) {
    guard let (work, watch) = encoding.removeValue(forKey: token) else { return }
    loop.unwatch(work.done!, token: watch)
    deliver(work.wait(), to: token)
  }

  private func deliver(_ bytes: [UInt8], to token: UInt64) {
    guard let client = clients[token], client.waits else { return }  // it hung up meanwhile
    clients[token]?.waits = false
    do {
      try client.connection.send(bytes)
      if client.connection.hasPendingOutput {
        try? loop.change(client.connection.fd, token: token, to: .writable)
        clients[token]?.timer = loop.schedule(at: monotonicMicroseconds() + clientTimeout) { [unowned self] in
          drop(token)
        }
        return
      }
    } catch {
      // The client is gone.
    }
    drop(token)
  }

  /// Makes the client a listener: no timeout, the state first.
  private func startListening(_ token: UInt64) {
    guard let client = clients[token] else { return }
    loop.cancel(client.timer)
    clients[token]?.listens = true
    if let state = currentState() { send(ControlProtocol.encode(state), to: token) }
  }

  /// A listener's fd is ready: what it sends is read and dropped, what
  /// waits for it is written; end of file ends it.
  private func listen(_ token: UInt64, _ connection: LineConnection) throws(LineConnection.End) {
    if connection.hasPendingOutput { try connection.flush() }
    if try connection.read() {  // once a turn, like any client
      while try connection.nextLine() != nil {}
    }
    try? loop.change(connection.fd, token: token, to: connection.hasPendingOutput ? [.readable, .writable] : .readable)
  }

  /// Sends `event` to every listener, as one JSON line.
  func announce(_ event: DaemonEvent) {
    let line = ControlProtocol.encode(event)
    for (token, client) in clients where client.listens { send(line, to: token) }
  }

  private func send(_ line: [UInt8], to token: UInt64) {
    guard let connection = clients[token]?.connection else { return }
    do {
      guard connection.pendingCount + line.count <= Self.maximumListenerBacklog else {
        logger.info("control socket: a listener fell \(Self.maximumListenerBacklog) bytes behind; dropped")
        drop(token)
        return
      }
      try connection.send(line)
      if connection.hasPendingOutput { try? loop.change(connection.fd, token: token, to: [.readable, .writable]) }
    } catch {
      drop(token)
    }
  }

  private func drop(_ token: UInt64) {
    guard let client = clients.removeValue(forKey: token) else { return }
    loop.unwatch(client.connection.fd, token: token)
    loop.cancel(client.timer)
  }
}
