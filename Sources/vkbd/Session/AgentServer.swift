import AgentProtocol
import Glibc
import Logging

/// The daemon's agent socket (DESIGN 7): each user's session agent stays
/// connected, says hello, and pushes a report on every focus change. Only
/// the agents of the users ``setActiveUsers(_:)`` names count; the others
/// are told so and their reports are ignored. Bounded like the control
/// socket: at most ``maximumConnections`` agents, ``maximumPerUser`` of one
/// user, messages of ``AgentProtocol/maximumMessage`` bytes, one read of
/// at most ``readSize`` bytes per agent and loop turn, of whose reports only
/// the last is applied, and a write that would block drops the agent. So
/// no agent, however slow or hostile, delays a key.
final class AgentServer {
  static let maximumConnections = 32
  static let maximumPerUser = 4
  /// What one read takes of an agent: a dozen reports at the most. A
  /// longer message comes whole over several turns.
  static let readSize = 2048

  var path: String { listener.path }
  private let listener: ListeningSocket
  private let loop: EventLoop
  private let logger: Logger
  private var connections: [Int32: Connection] = [:]
  private var activeUsers: [uid_t] = []
  /// The agent whose report is in force.
  private var reporting: Int32?
  /// Users already logged for having too many agents.
  private var loggedCrowds: Set<uid_t> = []
  /// Where messages are read into, one read at a time.
  private let chunk = UnsafeMutableRawPointer.allocate(byteCount: readSize, alignment: 1)
  /// Takes each report that counts, and nil when the agent whose report is
  /// in force has gone or no longer counts.
  var onFocus: (FocusReport?) -> Void = { _ in }
  /// The same for the focused text field's reports.
  var onField: (FieldReport?) -> Void = { _ in }
  /// The same for the desktop layout's reports.
  var onLayout: (LayoutReport?) -> Void = { _ in }
  /// Takes the answer to an ``ask(_:)``, from the agent asked; a failure
  /// when that agent went away first.
  var onValue: (VariableAnswer) -> Void = { _ in }
  /// Takes the user's own match files (by path) from an agent that counts,
  /// with their directory and uid; nil when that agent goes or no longer
  /// counts.
  var onSnippets: ((files: [String: String], directory: String, uid: uid_t)?) -> Void = { _ in }
  /// The agent whose user's match files are in use.
  private var snippetsFrom: Int32?
  /// The requests asked and not answered, and the agent asked.
  private var asked: [UInt32: Int32] = [:]

  private static let listenToken: UInt64 = 7
  private static let connectionTokenBase: UInt64 = 1 << 41

  private struct Connection {
    let uid: uid_t
    let pid: pid_t
    var received: [UInt8] = []
    /// Where its focus reports come from, as its hello said.
    var source: String?
    var active: Bool
    var loggedIgnoring = false
    /// The user's match files as they come, and the last complete set.
    var incoming: [String: String] = [:]
    var incomingBytes = 0
    var snippetFiles: (files: [String: String], directory: String)?
  }

  /// What `vkbd status` says of an agent.
  var statuses: [AgentStatus] {
    connections.values.map { AgentStatus(uid: $0.uid, pid: $0.pid, source: $0.source, active: $0.active) }
      .sorted { ($0.uid, $0.pid) < ($1.uid, $1.pid) }
  }

  /// Creates the socket, mode 0666 (any user may connect; the daemon
  /// checks who), and watches it on `loop`.
  init(path: String, loop: EventLoop, logger: Logger) throws(SystemError) {
    self.loop = loop
    self.logger = logger
    listener = try ListeningSocket(path: path, mode: 0o666, loop: loop, token: Self.listenToken)
  }

  deinit {
    for connection in connections.keys { close(connection) }
    chunk.deallocate()
  }

  /// Handles a ready token if it is the server's; false when it is not.
  func handle(_ token: UInt64) -> Bool {
    switch token {
    case Self.listenToken: acceptAgents()
    case Self.connectionTokenBase...: receive(from: Int32(truncatingIfNeeded: token - Self.connectionTokenBase))
    default: return false
    }
    return true
  }

  /// Sets whose reports count, and tells each agent whose standing
  /// changed; an agent that becomes active reports its focus again.
  func setActiveUsers(_ users: [uid_t]) {
    activeUsers = users
    for (agent, connection) in connections where users.contains(connection.uid) != connection.active {
      connections[agent]!.active.toggle()
      connections[agent]!.loggedIgnoring = false
      tell(agent, .session(active: !connection.active))
      if connection.active && agent == reporting { stopReporting() }
      if connection.active { dropSnippets(of: agent) } else { useSnippets(of: agent) }
    }
  }

  /// Accepts the agents waiting, sixteen at a time.
  private func acceptAgents() {
    for _ in 0..<16 {
      guard let agent = listener.accept() else { return }
      guard let peer = UnixSocket.peer(of: agent) else {
        close(agent)
        continue
      }
      let ofUser = connections.values.filter { $0.uid == peer.uid }.count
      guard connections.count < Self.maximumConnections && ofUser < Self.maximumPerUser else {
        if loggedCrowds.insert(peer.uid).inserted {
          logger.warning("agent socket: refused an agent of uid \(peer.uid) (pid \(peer.pid)): too many connected")
        }
        _ = UnixSocket.send(agent, DaemonMessage.refused("too many agents connected").encoded()[...])
        close(agent)
        continue
      }
      do {
        try loop.watch(agent, token: Self.connectionTokenBase + UInt64(agent))
      } catch {
        close(agent)
        continue
      }
      let active = activeUsers.contains(peer.uid)
      connections[agent] = Connection(uid: peer.uid, pid: peer.pid, active: active)
      tell(agent, .session(active: active))
    }
  }

  /// Reads what the agent sent, once, and reads every whole line in it;
  /// of each kind of report only the last is applied, the others being
  /// past: the layout, then the focus, then the field (whose text follows
  /// the focus's reset).
  private func receive(from agent: Int32) {
    guard connections[agent] != nil else { return }
    let count = read(agent, chunk, Self.readSize)
    if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
    guard count > 0 else {
      drop(agent)
      return
    }
    connections[agent]!.received.append(contentsOf: UnsafeRawBufferPointer(start: chunk, count: count))
    var latest = Reports()
    while let connection = connections[agent] {
      guard let newline = connection.received.firstIndex(of: UInt8(ascii: "\n")) else {
        if connection.received.count >= AgentProtocol.maximumValueMessage {
          refuse(agent, "message longer than \(AgentProtocol.maximumValueMessage) bytes")
        }
        break
      }
      let line = connection.received[..<newline]
      connections[agent]!.received.removeSubrange(...newline)
      do {
        switch try AgentMessage(decoding: line) {
        case .hello(let version, let source): hello(agent, version: version, source: source)
        case .focus(let report): latest.focus = report
        case .field(let report): latest.field = report
        case .layout(let report): latest.layout = report
        case .value(let answer):
          guard asked[answer.id] == agent else { break }  // not asked of this agent, or too late
          asked[answer.id] = nil
          onValue(answer)
        case .snippetFile(let path, let text):
          connections[agent]!.incomingBytes += text.utf8.count
          guard connections[agent]!.incoming.count < AgentProtocol.maximumSnippetFiles,
            connections[agent]!.incomingBytes <= AgentProtocol.maximumSnippetBytes
          else {
            refuse(
              agent,
              "more than \(AgentProtocol.maximumSnippetFiles) match files or \(AgentProtocol.maximumSnippetBytes) bytes"
            )
            return
          }
          connections[agent]!.incoming[path] = text
        case .snippetFilesEnd(let directory, let count):
          let files = connections[agent]!.incoming
          connections[agent]!.incoming = [:]
          connections[agent]!.incomingBytes = 0
          guard files.count == count else {
            refuse(agent, "snippet-files-end counts \(count) files, \(files.count) came")
            return
          }
          connections[agent]!.snippetFiles = (files, directory)
          if connections[agent]!.active { useSnippets(of: agent) }
        }
      } catch {
        refuse(agent, error.message)
        return
      }
    }
    if !latest.isEmpty, connections[agent] != nil { take(latest, from: agent) }
  }

  /// The last report of each kind one read brought.
  private struct Reports {
    var focus: FocusReport?
    var field: FieldReport?
    var layout: LayoutReport?
    var isEmpty: Bool { focus == nil && field == nil && layout == nil }
  }

  private func hello(_ agent: Int32, version: String, source: String) {
    connections[agent]!.source = source
    let connection = connections[agent]!
    logger.info(
      "session agent connected",
      metadata: [
        "uid": "\(connection.uid)", "pid": "\(connection.pid)", "source": "\(source)", "agent": "\(version)",
        "active": "\(connection.active)",
      ])
  }

  private func take(_ reports: Reports, from agent: Int32) {
    let connection = connections[agent]!
    guard connection.active else {
      if !connection.loggedIgnoring {
        connections[agent]!.loggedIgnoring = true
        logger.notice(
          "ignoring the reports of a session agent: not the active session's user",
          metadata: ["uid": "\(connection.uid)", "pid": "\(connection.pid)"])
      }
      return
    }
    if reporting != agent && reporting != nil { stopReporting() }
    reporting = agent
    if let layout = reports.layout { onLayout(layout) }
    if let focus = reports.focus { onFocus(focus) }
    if let field = reports.field { onField(field) }
  }

  /// The agent whose reports were in force is gone or no longer counts.
  private func stopReporting() {
    reporting = nil
    onLayout(nil)
    onFocus(nil)
    onField(nil)
  }

  /// Uses the match files of `agent`'s user.
  private func useSnippets(of agent: Int32) {
    guard let connection = connections[agent], let sent = connection.snippetFiles else { return }
    snippetsFrom = agent
    onSnippets((sent.files, sent.directory, connection.uid))
  }

  /// The user whose match files were in use is gone, or no longer counts.
  private func dropSnippets(of agent: Int32) {
    guard snippetsFrom == agent else { return }
    snippetsFrom = nil
    onSnippets(nil)
  }

  /// Asks the agent whose reports are in force (else any that counts) to
  /// work out a snippet variable; false when no agent counts.
  func ask(_ request: VariableRequest) -> Bool {
    guard let agent = reporting ?? connections.first(where: { $0.value.active })?.key else { return false }
    let bytes = DaemonMessage.variable(request).encoded()
    // A write that would block drops the agent: a request the socket's
    // buffer cannot take whole is not made (a paste that long is typed).
    guard bytes.count <= Self.largestRequest, send(bytes, to: agent) else { return false }
    asked[request.id] = agent
    return true
  }

  /// The longest request sent, well within a Unix socket's default buffer
  /// (208 KiB on Linux).
  static let largestRequest = 128 << 10

  /// Tells the agent why, and closes the connection. The message is the
  /// protocol's error, which never quotes what the agent sent.
  private func refuse(_ agent: Int32, _ reason: String) {
    if let connection = connections[agent] {
      logger.warning(
        "agent socket: refused a message: \(reason)",
        metadata: ["uid": "\(connection.uid)", "pid": "\(connection.pid)"])
    }
    tell(agent, .refused(reason))
    drop(agent)
  }

  /// Sends a message; an agent whose socket is full is dropped.
  private func tell(_ agent: Int32, _ message: DaemonMessage) {
    send(message.encoded(), to: agent)
  }

  /// Writes a message whole; false, with the agent dropped, when it cannot.
  @discardableResult
  private func send(_ bytes: [UInt8], to agent: Int32) -> Bool {
    guard UnixSocket.send(agent, bytes[...]) == bytes.count else {
      drop(agent)
      return false
    }
    return true
  }

  private func drop(_ agent: Int32) {
    guard let connection = connections.removeValue(forKey: agent) else { return }
    loop.unwatch(agent)
    close(agent)
    logger.info("session agent disconnected", metadata: ["uid": "\(connection.uid)", "pid": "\(connection.pid)"])
    if agent == reporting { stopReporting() }
    dropSnippets(of: agent)
    for (id, asker) in asked where asker == agent {
      asked[id] = nil
      onValue(VariableAnswer(id: id, result: .failure(AgentProtocolError("the session agent went away"))))
    }
  }
}
