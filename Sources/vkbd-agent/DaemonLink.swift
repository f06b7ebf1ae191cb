import AgentProtocol
import Glibc
import Logging
import SessionCommands

/// The agent's connection to the daemon's agent socket: hello, then the
/// focus whenever it changes and the daemon counts this agent's reports.
/// Reconnects (every ``retryInterval``) when the daemon is not there or
/// restarts.
final class DaemonLink: Pollable, Timed {
  /// In microseconds.
  static let retryInterval: Int64 = 1_000_000

  let path: String
  private let source: String
  private let logger: Logger
  private var fd: Int32 = -1
  private var received: [UInt8] = []
  /// Whether the daemon counts this agent's reports now.
  private(set) var isActive = false
  /// The focus, field and layout last learnt, sent again when the daemon
  /// starts counting (the field's text is kept only until the next report).
  private var focus: FocusReport?
  private var field: FieldReport?
  private var layout: LayoutReport?
  /// The user's own match files, sent whole when the daemon counts this
  /// agent and whenever they change.
  private var snippetFiles: (files: [(path: String, text: String)], directory: String)?
  private var loggedAbsence = false
  /// When to try to connect next; nil while connected.
  private(set) var due: Int64? = 0

  init(path: String, source: String, logger: Logger) {
    self.path = path
    self.source = source
    self.logger = logger
  }

  var isConnected: Bool { fd >= 0 }
  var pollFD: Int32? { fd >= 0 ? fd : nil }

  /// Connects when it is time to try.
  func tick(at now: Int64) {
    guard let due, now >= due else { return }
    connect()
    self.due = isConnected ? nil : now + Self.retryInterval
  }

  /// Connects and says hello; on failure, logs it once and stays away
  /// until the next try.
  func connect() {
    guard fd < 0 else { return }
    let socketFD = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard socketFD >= 0 else { return }
    guard withSocketAddress(path, { Glibc.connect(socketFD, $0, $1) }) == 0 else {
      if !loggedAbsence {
        logger.notice(
          "the daemon is not listening; trying again every second",
          metadata: ["socket": "\(path)", "error": "\(String(cString: strerror(errno)))"])
        loggedAbsence = true
      }
      close(socketFD)
      return
    }
    fd = socketFD
    loggedAbsence = false
    logger.info("connected to the daemon", metadata: ["socket": "\(path)"])
    send(.hello(agent: VKBDVersion.current, source: source))
  }

  /// Remembers the focus and sends it when the daemon counts this agent.
  func report(_ report: FocusReport) {
    var bounded = report
    bounded.app = AgentProtocol.truncated(report.app, toBytes: AgentProtocol.maximumName)
    bounded.instance = report.instance.map { AgentProtocol.truncated($0, toBytes: AgentProtocol.maximumName) }
    bounded.title = report.title.map { AgentProtocol.truncated($0, toBytes: AgentProtocol.maximumTitle) }
    focus = bounded
    if isActive { send(.focus(bounded)) }
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
    if isActive { send(.field(bounded)) }
  }

  /// Remembers the user's match files and sends them when the daemon
  /// counts this agent.
  func report(snippetFiles files: [(path: String, text: String)], directory: String) {
    snippetFiles = (files, directory)
    logger.info("the user's match files", metadata: ["files": "\(files.count)", "directory": "\(directory)"])
    sendSnippetFiles()
  }

  private func sendSnippetFiles() {
    guard isActive, let snippetFiles else { return }
    for file in snippetFiles.files { send(.snippetFile(path: file.path, text: file.text)) }
    send(.snippetFilesEnd(directory: snippetFiles.directory, count: snippetFiles.files.count))
  }

  /// Remembers the layout and sends it when the daemon counts this agent.
  func report(_ report: LayoutReport) {
    guard report != layout else { return }
    layout = report
    if isActive { send(.layout(report)) }
  }

  func readable() throws(AgentExit) {
    var chunk = [UInt8](repeating: 0, count: 65536)
    let count = read(fd, &chunk, chunk.count)
    if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
    guard count > 0 else {
      disconnect("the daemon closed the connection")
      return
    }
    received += chunk[..<count]
    while let newline = received.firstIndex(of: UInt8(ascii: "\n")) {
      let line = received[..<newline]
      received.removeSubrange(...newline)
      let message: DaemonMessage
      do {
        message = try DaemonMessage(decoding: line)
      } catch {
        disconnect("the daemon sent what this agent cannot read: \(error.message)")
        return
      }
      switch message {
      case .session(let active):
        isActive = active
        logger.info(
          active ? "the daemon counts this session's reports" : "the daemon ignores this agent: not the active session")
        if active {
          if let layout { send(.layout(layout)) }
          if let focus { send(.focus(focus)) }
          if let field { send(.field(field)) }
          sendSnippetFiles()
        }
      case .refused(let reason):
        disconnect("the daemon refused this agent: \(reason)")
        return
      case .variable(let request):
        // Runs here, as this user; a program is bounded in time
        // (SessionWork), and the daemon gives up on its own timeout.
        let result = SessionWork.perform(request)
        if case .failure(let reason) = result {
          logger.notice(
            "a snippet variable got no value", metadata: ["kind": "\(request.kind.rawValue)", "why": "\(reason)"])
        }
        send(.value(VariableAnswer(id: request.id, result: result)))
      }
    }
    if received.count >= AgentProtocol.maximumMessage { disconnect("the daemon sent a line too long") }
  }

  /// Writes one message whole, or gives up the connection: a daemon whose
  /// socket is full is stuck, and a partial line would garble the next.
  private func send(_ message: AgentMessage) {
    guard fd >= 0 else { return }
    let bytes = message.encoded()
    var written = 0
    // The daemon reads a little of each agent per loop turn: a long run of
    // match files fills the socket, and the agent waits for it to drain
    // (up to a second at a time), which only the agent can afford.
    while written < bytes.count {
      let sent = bytes[written...].withUnsafeBytes {
        Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT))
      }
      if sent > 0 {
        written += sent
        continue
      }
      var ready = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
      guard sent < 0, errno == EAGAIN || errno == EINTR, poll(&ready, 1, 1000) > 0 else {
        disconnect("could not write to the daemon: \(String(cString: strerror(errno)))")
        return
      }
    }
  }

  private func disconnect(_ why: String) {
    logger.notice("\(why); reconnecting")
    close(fd)
    fd = -1
    due = monotonicMicroseconds() + Self.retryInterval
    received.removeAll()
    isActive = false
  }
}
