import AgentProtocol
import Glibc
import LinuxSystem
import Logging
import SystemPackage

/// What the agents tell the daemon.
enum AgentEvent {
  /// The focus report in force: each one that counts, and nil when the
  /// agent whose report was in force went or no longer counts.
  case focus(FocusReport?)
  /// The same for the focused text field's reports.
  case field(FieldReport?)
  /// The same for the desktop layout's reports.
  case layout(LayoutReport?)
  /// The answer to an ``AgentServer/ask(_:)``, from the agent asked; a
  /// failure when that agent went away first.
  case value(VariableAnswer)
  /// The user's own match files from an agent that counts; nil when that
  /// agent goes or no longer counts.
  case snippets(UserSnippets.Sent?)
  /// The words the user of an agent that counts taught autocorrect, and
  /// their own programs' names; nil when that agent goes or no longer counts.
  case learnedWords(LearnedWords?)
  /// The dialog of a request has the keyboard.
  case dialogShown(UInt32)
  /// The agent showing the picker went away or no longer counts.
  case pickerLost
  /// An agent connected (after its hello), or went: its user.
  case connected(uid_t)
  case disconnected(uid_t)
  /// What the user asked through an agent that counts (its status icon).
  case command(DaemonCommand.Command)
}

/// The daemon's agent socket (DESIGN 7): each user's session agent stays
/// connected, says hello, and pushes a report on every focus change. Only
/// the agents of the users ``setActiveUsers(_:)`` names count; the others
/// are told so and their reports are ignored. Bounded like the control
/// socket: at most ``maximumConnections`` agents, ``maximumPerUser`` of one
/// user, messages of ``AgentProtocol/maximumMessage`` bytes, one read of
/// at most ``readSize`` bytes per agent and loop turn, of whose reports only
/// the last is applied, and at most ``maximumPending`` bytes waiting to be
/// written to an agent, which is dropped when it reads no more. So no
/// agent, however slow or hostile, delays a key.
final class AgentServer {
  static let maximumConnections = 32
  static let maximumPerUser = 4
  /// What one read takes of an agent: a dozen reports at the most. A
  /// longer message comes whole over several turns.
  static let readSize = 2048
  /// What may wait to be written to an agent: two of the longest requests.
  static let maximumPending = 2 * largestRequest

  var path: String { listener.path }
  private let listener: ListeningSocket
  private let loop: EventLoop
  private let budget: TurnBudget
  private let logger: Logger
  /// The agents connected, by their fd's token on the loop.
  var connections: [UInt64: Connection] = [:]
  private var activeUsers: [uid_t] = []
  /// The agent whose report is in force.
  var reporting: UInt64?
  /// Users already logged for having too many agents.
  private var loggedCrowds: Set<uid_t> = []
  /// Hears what the agents tell the daemon (``AgentEvent``), as it comes.
  var onEvent: (AgentEvent) -> Void = { _ in }
  /// The agent whose user's match files are in use.
  var snippetsFrom: UInt64?
  /// The agent whose user's learned words are in use.
  var wordsFrom: UInt64?
  /// The requests asked and not answered, and the agent asked.
  var asked: [UInt32: UInt64] = [:]
  /// The agent that shows the picker while it is open.
  var pickerShownBy: UInt64?
  /// The state now, which an agent hears when its reports start to count.
  var currentState: () -> DaemonEvent? = { nil }
  /// Whether the agents show notifications (`notifications` in the config).
  private(set) var notifications = true
  /// Within ``showPicker(_:)``, whose false says it: the engine is the caller.
  var showing = false
  /// The messages agents send, and what each does.
  private lazy var reader = makeReader()
  /// The reports of the read being handled.
  private var latest = Reports()

  struct Connection {
    let link: LineConnection
    let uid: uid_t
    let pid: pid_t
    /// Where its focus reports come from, as its hello said.
    var source: String?
    /// Whether it can show the picker, as its hello said.
    var showsPicker = false
    /// Where its field reports come from, as its hello said.
    var fields: String?
    var active: Bool
    var loggedIgnoring = false
    /// The user's match files as they come, and the last complete set.
    var incoming: [String: String] = [:]
    var incomingBytes = 0
    var snippetFiles: (files: [String: String], directory: String)?
    var learnedWords: LearnedWords?
  }

  /// What `vkbd status` says of an agent.
  var statuses: [AgentStatus] {
    connections.values.map {
      AgentStatus(
        uid: $0.uid, pid: $0.pid, source: $0.source, active: $0.active, picker: $0.showsPicker, fields: $0.fields)
    }
    .sorted { ($0.uid, $0.pid) < ($1.uid, $1.pid) }
  }

  /// Creates the socket, mode 0666 (any user may connect; the daemon
  /// checks who), and watches it on `loop`; each turn serves as many
  /// agents as `budget` lets it.
  init(path: String, loop: EventLoop, budget: TurnBudget, logger: Logger) throws(SystemError) {
    self.loop = loop
    self.budget = budget
    self.logger = logger
    listener = try ListeningSocket(path: path, mode: 0o666)
    try loop.watch(listener.fd) { [unowned self] _ in acceptAgents() }
  }

  deinit {
    for (token, connection) in connections { loop.unwatch(connection.link.fd, token: token) }
  }

  /// The agents connected.
  var count: Int { connections.count }
  /// Whether an agent that counts is connected.
  var hasActive: Bool { connections.values.contains { $0.active } }

  /// Sends `event` to each agent that counts and said hello.
  func announce(_ event: DaemonEvent) {
    let line = event.encoded()
    for (agent, connection) in connections where connection.active && connection.source != nil {
      send(line, to: agent)
    }
  }

  /// Turns the agents' notifications on or off, and tells them.
  func setNotifications(_ on: Bool) {
    guard on != notifications else { return }
    notifications = on
    for (agent, connection) in connections { tell(agent, standing(connection.active)) }
  }

  private func standing(_ active: Bool) -> AgentStanding {
    AgentStanding(active: active, notifications: notifications)
  }

  /// Tells an agent whose reports count the state now.
  private func tellState(_ agent: UInt64) {
    if let state = currentState() { tell(agent, state) }
  }

  /// Sets whose reports count, and tells each agent whose standing
  /// changed; an agent that becomes active reports its focus again.
  func setActiveUsers(_ users: [uid_t]) {
    activeUsers = users
    for (agent, connection) in connections where users.contains(connection.uid) != connection.active {
      connections[agent]?.active.toggle()
      connections[agent]?.loggedIgnoring = false
      tell(agent, standing(!connection.active))
      if !connection.active && connection.source != nil { tellState(agent) }
      if connection.active && agent == reporting { stopReporting() }
      if connection.active && agent == pickerShownBy { losePicker() }
      if connection.active { dropUserData(of: agent) } else { useUserData(of: agent) }
    }
  }

  /// Accepts the agents waiting, sixteen at a time.
  private func acceptAgents() {
    for _ in 0..<16 {
      guard let fd = listener.accept() else { return }
      let link = LineConnection(
        fd, maximumLine: AgentProtocol.maximumValueMessage, maximumPending: Self.maximumPending,
        readSize: Self.readSize)
      guard let peer = UnixSocket.peer(of: fd) else { continue }
      let ofUser = connections.values.filter { $0.uid == peer.uid }.count
      guard connections.count < Self.maximumConnections && ofUser < Self.maximumPerUser else {
        if loggedCrowds.insert(peer.uid).inserted {
          logger.warning("agent socket: refused an agent of uid \(peer.uid) (pid \(peer.pid)): too many connected")
        }
        try? link.send(Refusal("too many agents connected").encoded())
        continue
      }
      var agent: UInt64 = 0
      do {
        agent = try loop.watch(fd) { [unowned self] readiness in serve(agent, readiness) }
      } catch {
        continue
      }
      let active = activeUsers.contains(peer.uid)
      connections[agent] = Connection(link: link, uid: peer.uid, pid: peer.pid, active: active)
      tell(agent, standing(active))
    }
  }

  /// Writes what waits for the agent when it can take it; reads what it
  /// sent, once a turn.
  private func serve(_ agent: UInt64, _ readiness: EventLoop.Readiness) {
    guard let link = connections[agent]?.link else { return }
    if readiness.contains(.writable) {
      do {
        try link.flush()
      } catch {
        drop(agent)
        return
      }
      if !link.hasPendingOutput { try? loop.change(link.fd, token: agent, to: .readable) }
    }
    if readiness.contains(.readable) || readiness.contains(.hangUp), budget.take() { receive(from: agent) }
  }

  /// Reads what the agent sent, once, and reads every whole line in it;
  /// of each kind of report only the last is applied, the others being
  /// past: the layout, then the focus, then the field (whose text follows
  /// the focus's reset).
  private func receive(from agent: UInt64) {
    guard let link = connections[agent]?.link else { return }
    latest = Reports()
    do throws(LineConnection.End) {
      guard try link.read() else { return }
      while connections[agent] != nil, let line = try link.nextLine() {
        do {
          try reader.read(line, agent)
        } catch {
          refuse(agent, error.message)
          return
        }
      }
    } catch .lineTooLong(let limit) {
      refuse(agent, "message longer than \(limit) bytes")
      return
    } catch {
      drop(agent)
      return
    }
    if !latest.isEmpty, connections[agent] != nil { take(latest, from: agent) }
  }

  /// What each message an agent sends does: reports wait in `latest`
  /// until the read is done.
  private func makeReader() -> MessageReader<UInt64> {
    var reader = MessageReader<UInt64>()
    reader.on(Hello.self) { [unowned self] hello, agent in self.hello(agent, hello) }
    reader.on(DaemonCommand.self) { [unowned self] command, agent in
      if connections[agent]?.active == true { onEvent(.command(command.command)) }
    }
    reader.on(FocusReport.self) { [unowned self] report, _ in latest.focus = report }
    reader.on(FieldReport.self) { [unowned self] report, _ in latest.field = report }
    reader.on(LayoutReport.self) { [unowned self] report, _ in latest.layout = report }
    reader.on(VariableAnswer.self) { [unowned self] answer, agent in
      guard asked[answer.id] == agent else { return }  // not asked of this agent, or too late
      asked[answer.id] = nil
      onEvent(.value(answer))
    }
    reader.on(DialogShown.self) { [unowned self] shown, agent in
      if asked[shown.id] == agent { onEvent(.dialogShown(shown.id)) }
    }
    reader.on(SnippetFile.self) { [unowned self] file, agent in
      guard var connection = connections[agent] else { return }
      connection.incomingBytes += file.text.utf8.count
      guard connection.incoming.count < AgentProtocol.maximumSnippetFiles,
        connection.incomingBytes <= AgentProtocol.maximumSnippetBytes
      else {
        throw AgentProtocolError(
          "more than \(AgentProtocol.maximumSnippetFiles) match files or \(AgentProtocol.maximumSnippetBytes) bytes")
      }
      connection.incoming[file.path] = file.text
      connections[agent] = connection
    }
    reader.on(SnippetFilesEnd.self) { [unowned self] end, agent in
      guard var connection = connections[agent] else { return }
      let files = connection.incoming
      connection.incoming = [:]
      connection.incomingBytes = 0
      guard files.count == end.count else {
        throw AgentProtocolError("snippet-files-end counts \(end.count) files, \(files.count) came")
      }
      connection.snippetFiles = (files, end.directory)
      connections[agent] = connection
      if connection.active { useSnippets(of: agent) }
    }
    reader.on(LearnedWords.self) { [unowned self] learned, agent in
      connections[agent]?.learnedWords = learned
      if connections[agent]?.active == true { useWords(of: agent) }
    }
    return reader
  }

  /// The last report of each kind one read brought.
  private struct Reports {
    var focus: FocusReport?
    var field: FieldReport?
    var layout: LayoutReport?
    var isEmpty: Bool { focus == nil && field == nil && layout == nil }
  }

  private func hello(_ agent: UInt64, _ hello: Hello) {
    guard var connection = connections[agent] else { return }
    connection.source = hello.source
    connection.showsPicker = hello.picker ?? false
    connection.fields = hello.fields
    connections[agent] = connection
    logger.info(
      "session agent connected",
      metadata: [
        "uid": "\(connection.uid)", "pid": "\(connection.pid)", "source": "\(hello.source)", "agent": "\(hello.agent)",
        "fields": "\(hello.fields ?? "none")", "active": "\(connection.active)",
      ])
    if connection.active { tellState(agent) }
    onEvent(.connected(connection.uid))
  }

  private func take(_ reports: Reports, from agent: UInt64) {
    guard let connection = connections[agent] else { return }
    guard connection.active else {
      if !connection.loggedIgnoring {
        connections[agent]?.loggedIgnoring = true
        logger.notice(
          "ignoring the reports of a session agent: not the active session's user",
          metadata: ["uid": "\(connection.uid)", "pid": "\(connection.pid)"])
      }
      return
    }
    if reporting != agent && reporting != nil { stopReporting() }
    reporting = agent
    if let layout = reports.layout { onEvent(.layout(layout)) }
    if let focus = reports.focus { onEvent(.focus(focus)) }
    if let field = reports.field { onEvent(.field(field)) }
  }

  /// The agent whose reports were in force is gone or no longer counts.
  private func stopReporting() {
    reporting = nil
    onEvent(.layout(nil))
    onEvent(.focus(nil))
    onEvent(.field(nil))
  }

  /// The longest request sent, well within a Unix socket's default buffer
  /// (208 KiB on Linux).
  static let largestRequest = 128 << 10

  /// Tells the agent why, and closes the connection. The message is the
  /// protocol's error, which never quotes what the agent sent.
  private func refuse(_ agent: UInt64, _ reason: String) {
    if let connection = connections[agent] {
      logger.warning(
        "agent socket: refused a message: \(reason)",
        metadata: ["uid": "\(connection.uid)", "pid": "\(connection.pid)"])
    }
    tell(agent, Refusal(reason))
    drop(agent)
  }

  /// Sends a message; an agent that does not read is dropped.
  func tell(_ agent: UInt64, _ message: some AgentProtocolMessage) {
    send(message.encoded(), to: agent)
  }

  /// Queues a message and writes what the socket takes now; false, with
  /// the agent dropped, when it cannot.
  @discardableResult
  func send(_ bytes: [UInt8], to agent: UInt64) -> Bool {
    guard let link = connections[agent]?.link else { return false }
    do {
      try link.send(bytes)
    } catch {
      drop(agent)
      return false
    }
    if link.hasPendingOutput { try? loop.change(link.fd, token: agent, to: [.readable, .writable]) }
    return true
  }

  private func drop(_ agent: UInt64) {
    guard let connection = connections.removeValue(forKey: agent) else { return }
    loop.unwatch(connection.link.fd, token: agent)
    logger.info("session agent disconnected", metadata: ["uid": "\(connection.uid)", "pid": "\(connection.pid)"])
    if connection.source != nil { onEvent(.disconnected(connection.uid)) }
    if agent == reporting { stopReporting() }
    if agent == pickerShownBy { losePicker() }
    dropUserData(of: agent)
    for (id, asker) in asked where asker == agent {
      asked[id] = nil
      onEvent(.value(VariableAnswer(id: id, result: .failure(AgentProtocolError("the session agent went away")))))
    }
  }
}
