import AgentProtocol
import Foundation
import Glibc
import LinuxSystem
import Logging
import Testing

@testable import VKBDDaemon

/// The agent socket's server on a loop this test pumps, and raw agents
/// against it. (Every agent here is the test's own user; the VM suite has
/// agents of other users.)
final class AgentServerUnderTest {
  let path = "/tmp/vkbd-agent-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))/agent.sock"
  let loop: EventLoop
  let budget = TurnBudget(perTurn: 4)
  let server: AgentServer
  var reports: [FocusReport?] = []

  init(active: Bool = true) throws {
    loop = try EventLoop()
    server = try AgentServer(path: path, loop: loop, budget: budget, logger: Logger(label: "test"))
    server.onEvent = { [unowned self] told in
      if case .focus(let report) = told { reports.append(report) }
    }
    server.setActiveUsers(active ? [geteuid()] : [])
  }

  /// Handles what is ready (at least once), until `condition` holds or a
  /// second passes.
  func pump(until condition: () -> Bool = { false }) {
    let deadline = monotonicMicroseconds() + 1_000_000
    repeat {
      budget.renew()
      try? loop.runOnce(timeoutMilliseconds: 10)
    } while !condition() && monotonicMicroseconds() < deadline
  }

  /// Sends `bytes`, however many, handling what arrives whenever the
  /// agent's socket is full.
  func send(_ bytes: [UInt8], from agent: Agent) {
    _ = fcntl(agent.fd, F_SETFL, O_NONBLOCK)
    var sent = 0
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { Glibc.send(agent.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if count > 0 { sent += count } else { pump { true } }
    }
  }

  /// A connected agent.
  func connect() -> Agent {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let status = withSocketAddress(path) { Glibc.connect(fd, $0, $1) }
    precondition(status == 0)
    var timeout = timeval(tv_sec: 2, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    return Agent(fd: fd)
  }

  struct Agent {
    let fd: Int32

    func send(_ bytes: [UInt8]) {
      _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
    }

    func send(_ message: some AgentProtocolMessage) { send(message.encoded()) }

    /// The daemon's messages that are waiting, and whether it closed the connection.
    func received() -> (messages: [DaemonSaid], closed: Bool) {
      var bytes: [UInt8] = []
      var buffer = [UInt8](repeating: 0, count: 65536)
      var closed = false
      while true {
        let count = recv(fd, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        if count == 0 || (count < 0 && errno != EAGAIN) { closed = true }
        if count <= 0 { break }
        bytes += buffer[..<count]
      }
      let messages = bytes.split(separator: UInt8(ascii: "\n")).compactMap(DaemonSaid.init)
      return (messages, closed)
    }

    func close() { _ = Glibc.close(fd) }
  }
}

/// What the daemon said to an agent.
enum DaemonSaid: Equatable {
  case session(active: Bool)
  case refused(String)
  case variable(VariableRequest)

  init?(_ line: ArraySlice<UInt8>) {
    if let standing = try? decodeMessage(AgentStanding.self, from: line) {
      self = .session(active: standing.active)
    } else if let refusal = try? decodeMessage(Refusal.self, from: line) {
      self = .refused(refusal.reason)
    } else if let request = try? decodeMessage(VariableRequest.self, from: line) {
      self = .variable(request)
    } else {
      return nil
    }
  }
}

@Suite(.serialized) struct AgentServerTests {
  @Test func theActiveUsersAgentReportsAndIsShownWithItsSource() throws {
    let server = try AgentServerUnderTest()
    // Closed once, below: a second close would close whatever fd a test
    // running beside this one opened under that number since.
    let agent = server.connect()
    agent.send(Hello(agent: "0.1.0", source: "x11"))
    let report = FocusReport(window: 1, app: "XTerm", instance: "xterm", title: "~", role: .terminal)
    agent.send(report)
    server.pump { server.reports.count == 1 }
    agent.send(FocusReport(window: 2, app: "firefox"))
    server.pump { server.reports.count == 2 }
    #expect(server.reports == [report, FocusReport(window: 2, app: "firefox")])
    #expect(agent.received().messages == [.session(active: true)])
    #expect(server.server.statuses.map(\.source) == ["x11"])
    #expect(server.server.statuses.first?.uid == geteuid())
    // The agent going away takes its report with it.
    agent.close()
    server.pump { server.reports.count == 3 }
    #expect(server.reports.last == .some(nil))
    #expect(server.server.statuses.isEmpty)
  }

  @Test func ofABurstOfReportsOnlyTheLastOfEachReadIsApplied() throws {
    let server = try AgentServerUnderTest()
    let agent = server.connect()
    defer { agent.close() }
    server.pump { server.server.statuses.count == 1 }
    // Two thousand reports at once: each read takes a dozen, of which the
    // last is applied; the very last report is the one in force.
    var burst: [UInt8] = []
    for window in 1...2000 {
      burst += FocusReport(window: Int64(window), app: "app\(window)").encoded()
    }
    server.send(burst, from: agent)
    server.pump { server.reports.last??.window == 2000 }
    #expect(server.reports.last == FocusReport(window: 2000, app: "app2000"))
    #expect(server.reports.count < 2000 / 10, "\(server.reports.count) reports applied")
    let windows = server.reports.compactMap { $0?.window }
    #expect(windows == windows.sorted(), "in order")
  }

  @Test func tenThousandReportsWhileADialogIsOpenAreBoundedAndTheAnswerComesOnce() throws {
    let server = try AgentServerUnderTest()
    var answers: [VariableAnswer] = []
    var shown: [UInt32] = []
    var fields: [FieldReport?] = []
    server.server.onEvent = { told in
      switch told {
      case .value(let answer): answers.append(answer)
      case .dialogShown(let id): shown.append(id)
      case .field(let report): fields.append(report)
      case .focus(let report): server.reports.append(report)
      default: break
      }
    }
    let agent = server.connect()
    defer { agent.close() }
    agent.send(FocusReport(window: 1, app: "foot"))
    server.pump { server.reports.count == 1 }
    var form = VariableRequest(id: 7, kind: .form)
    form.arguments = ["name"]
    form.values = [""]
    #expect(server.server.ask(form))
    #expect(agent.received().messages.contains(.variable(form)))
    // The dialog opens; the user moves about while it is open (ten
    // thousand reports), then submits; a stray second answer follows.
    var flood = DialogShown(id: 7).encoded()
    for index in 1...5000 {
      flood += FocusReport(window: Int64(index), app: "app\(index)").encoded()
      flood += FieldReport(source: "atspi", role: .text, before: "\(index)").encoded()
    }
    let answer = VariableAnswer(id: 7, result: .success(VariableValueText("", fields: ["name": "Ada"])))
    flood += answer.encoded() + answer.encoded()
    server.send(flood, from: agent)
    server.pump { server.reports.last??.window == 5000 && !answers.isEmpty }
    #expect(answers == [answer])
    #expect(shown == [7])
    #expect(server.reports.last == FocusReport(window: 5000, app: "app5000"))
    #expect(fields.last == FieldReport(source: "atspi", role: .text, before: "5000"))
    #expect(server.reports.count < 10_000 / 10, "\(server.reports.count) reports applied")
    #expect(server.server.statuses.count == 1, "the agent stays connected")
  }

  @Test func anAgentOfAUserWhoIsNotActiveIsToldSoAndIgnoredUntilItIs() throws {
    let server = try AgentServerUnderTest(active: false)
    let agent = server.connect()
    defer { agent.close() }
    agent.send(FocusReport(window: 1, app: "foot", title: "secret title"))
    server.pump()
    #expect(server.reports.isEmpty)
    #expect(agent.received().messages == [.session(active: false)])
    // A seat switch makes it count; a report then counts.
    server.server.setActiveUsers([geteuid()])
    #expect(agent.received().messages == [.session(active: true)])
    agent.send(FocusReport(window: 1, app: "foot"))
    server.pump { !server.reports.isEmpty }
    #expect(server.reports == [FocusReport(window: 1, app: "foot")])
    // Switched away again: its report is no longer in force.
    server.server.setActiveUsers([])
    #expect(agent.received().messages == [.session(active: false)])
    #expect(server.reports.last == .some(nil))
  }

  @Test(arguments: [
    (#"{"version":2,"type":"focus","window":1,"app":"a","extra":1}"#, "unknown field 'extra'"),
    (#"{"version":9,"type":"hello","agent":"x","source":"y"}"#, "protocol version 9"),
    ("not json at all", "not a JSON object"),
  ])
  func aMalformedMessageIsRefusedAndTheAgentClosedWhileOthersGoOn(line: String, reason: String) throws {
    let server = try AgentServerUnderTest()
    let bad = server.connect()
    let good = server.connect()
    defer { good.close() }
    server.pump { server.server.statuses.count == 2 }
    bad.send(Array((line + "\n").utf8))
    good.send(FocusReport(window: 1, app: "kitty"))
    server.pump { !server.reports.isEmpty && server.server.statuses.count == 1 }
    let answer = bad.received()
    #expect(answer.closed)
    #expect(answer.messages.contains { if case .refused(let why) = $0 { why.contains(reason) } else { false } })
    #expect(server.reports == [FocusReport(window: 1, app: "kitty")])
    bad.close()
  }

  @Test func aMebibyteTitleIsRefusedWithoutReadingItAll() throws {
    let server = try AgentServerUnderTest()
    let flood = server.connect()
    let good = server.connect()
    defer { good.close() }
    let title = String(repeating: "x", count: 1 << 20)
    let line = #"{"version":2,"type":"focus","window":1,"app":"a","title":""# + title + "\"}\n"
    var sent = 0
    let bytes = Array(line.utf8)
    // The daemon closes the connection after the first 8 KiB: the rest fails to send.
    _ = fcntl(flood.fd, F_SETFL, O_NONBLOCK)
    while sent < bytes.count {
      let count = bytes[sent...].withUnsafeBytes { Glibc.send(flood.fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
      if count > 0 { sent += count } else if errno == EAGAIN { server.pump { false } } else { break }
      if server.server.statuses.count == 1 { break }
    }
    server.pump { server.server.statuses.count == 1 }
    #expect(server.server.statuses.count == 1, "the flooding agent is dropped")
    #expect(sent < bytes.count)
    good.send(FocusReport(window: 1, app: "kitty"))
    server.pump { !server.reports.isEmpty }
    #expect(server.reports == [FocusReport(window: 1, app: "kitty")])
    flood.close()
  }

  @Test func aHundredAgentsOfOneUserAreBoundedAndTheRestTurnedAway() throws {
    let server = try AgentServerUnderTest()
    // Accepted as they come (a full listen backlog would block connect).
    let agents = (0..<100).map { _ in
      let agent = server.connect()
      server.pump { true }
      return agent
    }
    defer { agents.forEach { $0.close() } }
    server.pump { false }
    #expect(server.server.statuses.count == AgentServer.maximumPerUser)
    let answers = agents.map { $0.received() }
    #expect(answers.filter(\.closed).count == 100 - AgentServer.maximumPerUser)
    #expect(
      answers.filter { $0.messages == [.refused("too many agents connected")] }.count == 100
        - AgentServer.maximumPerUser)
  }

  @Test func anAgentThatNeverReadsIsDroppedOnceItsSocketIsFull() throws {
    let server = try AgentServerUnderTest()
    let deaf = server.connect()
    defer { deaf.close() }
    server.pump { server.server.statuses.count == 1 }
    var switches = 0
    while server.server.statuses.count == 1 && switches < 1_000_000 {
      server.server.setActiveUsers(switches % 2 == 0 ? [] : [geteuid()])
      switches += 1
    }
    #expect(server.server.statuses.isEmpty, "dropped after \(switches) messages")
    #expect(switches < 1_000_000)
  }
}
