import AgentProtocol
import Glibc
import LinuxSystem
import Logging
import SessionWork
import SystemPackage

/// The agent's connection to the daemon's agent socket: hello, then the
/// focus, the field and the layout whenever they change and the daemon
/// counts this agent's reports, and the answers to the daemon's requests,
/// worked out as the loop goes on. Connects again (every
/// ``retryInterval``) when the daemon is not there or restarts. Never
/// waits: what the socket cannot take at once waits for it to have room.
final class DaemonLink: Reconnecting {
  /// In microseconds.
  static let retryInterval: Int64 = 1_000_000
  /// What may wait to be written: every match file of the user, and then some.
  static let maximumPending = AgentProtocol.maximumSnippetBytes + (1 << 20)

  let path: String
  private let source: String
  /// Where the field reports come from (the hello's `fields`).
  private let fields: String?
  private let logger: Logger
  private let loop: EventLoop
  private let worker: SessionWorker
  private var connection: LineConnection?
  private var reader = MessageReader<Void>()
  /// Whether the daemon counts this agent's reports now.
  private(set) var isActive = false
  /// The focus, field and layout last learnt, sent again when the daemon
  /// starts counting (the field's text is kept only until the next report).
  private var focus: FocusReport?
  private var field: FieldReport?
  private var layout: LayoutReport?
  /// The user's own match files, sent whole when the daemon counts this
  /// agent and whenever they change.
  private var snippetFiles: (files: [SnippetFile], directory: String)?
  /// The words the user taught autocorrect, sent likewise.
  private var learnedWords: [String]?
  /// The names of the user's own programs, sent with the learned words.
  var programs: [String] = []
  /// Takes a word the daemon says the user just taught.
  var onWordLearned: (String) -> Void = { _ in }
  /// Takes each of the daemon's events (while it counts this agent).
  var onEvent: (DaemonEvent) -> Void = { _ in }
  /// Takes the daemon's word on this agent, and whether it is the first
  /// since connecting.
  var onStanding: (_ standing: AgentStanding, _ first: Bool) -> Void = { _, _ in }
  /// Hears that the connection to the daemon is gone.
  var onLost: () -> Void = {}
  /// Whether the daemon's word on this agent came since connecting.
  private var heardStanding = false
  /// The dialogs started for the daemon's requests that have not yet
  /// taken the keyboard, with the window that had the focus when each
  /// started: another window taking it is the dialog's.
  private var dialogs: [UInt32: Int64] = [:]
  /// Why the connection last failed, logged once until it changes.
  private var lastFailure: String?
  private var retry: ScheduledTimer?
  var onDescriptorChange: () -> Void = {}
  /// Where the daemon's snippet picker is shown; nil: this desktop has no
  /// way for the agent to show it, and the hello says so.
  private let picker: PickerWindow?

  init(path: String, source: String, fields: String?, picker: PickerWindow?, loop: EventLoop, logger: Logger) {
    self.path = path
    self.source = source
    self.fields = fields
    self.picker = picker
    self.loop = loop
    self.logger = logger
    worker = SessionWorker(loop: loop)
    reader.on(AgentStanding.self) { [unowned self] standing, _ in take(standing) }
    reader.on(Refusal.self) { [unowned self] refusal, _ in
      disconnect("the daemon refused this agent: \(refusal.reason)")
    }
    reader.on(VariableRequest.self) { [unowned self] request, _ in work(request) }
    reader.on(PickerShow.self) { [unowned self] view, _ in self.picker?.show(view) }
    reader.on(PickerHide.self) { [unowned self] _, _ in self.picker?.hide() }
    reader.on(WordLearned.self) { [unowned self] learned, _ in onWordLearned(learned.word) }
    reader.on(DaemonEvent.self) { [unowned self] event, _ in onEvent(event) }
  }

  var pollFD: FileDescriptor? { connection?.fd }
  var isConnected: Bool { connection != nil }
  var wantsWritable: Bool { connection?.hasPendingOutput ?? false }

  /// Connects and says hello; on failure, logs it once and tries again
  /// ``retryInterval`` later.
  func connect() {
    retry = nil
    guard connection == nil else { return }
    do {
      let fd = try UnixSocket.connect(to: path, nonBlocking: true)
      connection = LineConnection(
        fd, maximumLine: AgentProtocol.maximumValueMessage, maximumPending: Self.maximumPending)
    } catch {
      failed("the daemon is not listening (\(error.errno)); trying again every second")
      return
    }
    onDescriptorChange()
    heardStanding = false
    lastFailure = nil
    logger.info("connected to the daemon", metadata: ["socket": "\(path)"])
    send(Hello(agent: VKBDVersion.current, source: source, picker: picker != nil, fields: fields))
  }

  /// Remembers the focus and sends it when the daemon counts this agent. A
  /// dialog waiting for the keyboard has it once another window does.
  func report(_ report: FocusReport) {
    var bounded = report
    bounded.app = AgentProtocol.truncated(report.app, toBytes: AgentProtocol.maximumName)
    bounded.instance = report.instance.map { AgentProtocol.truncated($0, toBytes: AgentProtocol.maximumName) }
    bounded.title = report.title.map { AgentProtocol.truncated($0, toBytes: AgentProtocol.maximumTitle) }
    focus = bounded
    if isActive { send(bounded) }
    for (id, window) in dialogs where bounded.window != 0 && bounded.window != window {
      dialogs[id] = nil
      send(DialogShown(id: id))
    }
  }

  /// Remembers the field and sends it when the daemon counts this agent;
  /// the text before the cursor is cut to its last characters.
  func report(_ report: FieldReport) {
    var bounded = report
    if let before = report.before {
      let (text, isWhole) = AgentProtocol.lastCharacters(Substring(before))
      bounded.before = text
      bounded.isFieldStart = report.isFieldStart && isWhole
    }
    guard bounded != field else { return }
    field = bounded
    if isActive { send(bounded) }
  }

  /// Remembers the user's match files and sends them when the daemon
  /// counts this agent.
  func report(snippetFiles files: [SnippetFile], directory: String) {
    snippetFiles = (files, directory)
    logger.info("the user's match files", metadata: ["files": "\(files.count)", "directory": "\(directory)"])
    sendSnippetFiles()
  }

  private func sendSnippetFiles() {
    guard isActive, let snippetFiles else { return }
    for file in snippetFiles.files { send(file) }
    send(SnippetFilesEnd(directory: snippetFiles.directory, count: snippetFiles.files.count))
  }

  /// Remembers the user's learned words and sends them when the daemon
  /// counts this agent.
  func report(learnedWords words: [String]) {
    guard words != learnedWords else { return }
    learnedWords = words
    logger.info("the user's learned words", metadata: ["words": "\(words.count)"])
    if isActive { send(LearnedWords(words: words, programs: programs)) }
  }

  /// Remembers the layout and sends it when the daemon counts this agent.
  func report(_ report: LayoutReport) {
    guard report != layout else { return }
    layout = report
    if isActive { send(report) }
  }

  func readable() throws(AgentExit) {
    guard let connection else { return }
    do throws(LineConnection.End) {
      try connection.read()
      while self.connection === connection, let line = try connection.nextLine() {
        do {
          try reader.read(line, ())
        } catch {
          disconnect("the daemon sent what this agent cannot read: \(error.message)")
        }
      }
    } catch {
      disconnect(error == .closed ? "the daemon closed the connection" : "\(error)")
    }
  }

  func writable() {
    do {
      try connection?.flush()
    } catch {
      disconnect("could not write to the daemon: \(error)")
    }
  }

  /// Asks the daemon to do what the user chose (the status icon's menu).
  func command(_ command: DaemonCommand.Command) {
    if isActive { send(DaemonCommand(command)) }
  }

  private func take(_ standing: AgentStanding) {
    isActive = standing.active
    onStanding(standing, !heardStanding)
    heardStanding = true
    if !isActive { picker?.hide() }
    logger.info(
      isActive ? "the daemon counts this session's reports" : "the daemon ignores this agent: not the active session")
    guard isActive else { return }
    if let layout { send(layout) }
    if let focus { send(focus) }
    if let field { send(field) }
    sendSnippetFiles()
    if let learnedWords { send(LearnedWords(words: learnedWords, programs: programs)) }
  }

  /// Works out a request as this user, on the loop; a dialog's program
  /// that started waits for its window to take the focus.
  private func work(_ request: VariableRequest) {
    worker.perform(
      request, dialogStarted: { [unowned self] in dialogs[request.id] = focus?.window ?? 0 },
      answer: { [unowned self] result in
        dialogs[request.id] = nil
        if case .failure(let reason) = result {
          logger.notice(
            "a snippet variable got no value", metadata: ["kind": "\(request.kind.rawValue)", "why": "\(reason)"])
        }
        send(VariableAnswer(id: request.id, result: result))
      })
  }

  /// Queues one message and writes what the socket takes now; a daemon
  /// that reads nothing of a whole set of match files is stuck, and the
  /// connection is given up.
  private func send(_ message: some AgentProtocolMessage) {
    guard let connection else { return }
    do {
      try connection.send(message.encoded())
    } catch {
      disconnect("could not write to the daemon: \(error)")
    }
  }

  private func disconnect(_ why: String) {
    guard connection != nil else { return }
    let old = connection
    connection = nil
    withExtendedLifetime(old) { onDescriptorChange() }  // before the old fd closes
    isActive = false
    // The daemon gave the keys back to the application when it lost this agent.
    picker?.hide()
    onLost()
    failed("\(why); reconnecting")
  }

  /// Logs why (once for the same reason in a row) and tries again later.
  private func failed(_ why: String) {
    if why != lastFailure { logger.notice("\(why)", metadata: ["socket": "\(path)"]) }
    lastFailure = why
    if retry == nil {
      retry = loop.schedule(at: monotonicMicroseconds() + Self.retryInterval) { [unowned self] in connect() }
    }
  }
}
