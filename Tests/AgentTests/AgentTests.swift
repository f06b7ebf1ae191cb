import AgentProtocol
import ArgumentParser
import Foundation
import Glibc
import LinuxSystem
import Logging
import Testing

@testable import SessionAgent
@testable import VKBDDaemon

/// The agent's link to the daemon, against the daemon's own agent server.
@Suite(.serialized) struct DaemonLinkTests {
  /// A server on a loop this test pumps, and an agent's link to it on the
  /// agent's own loop.
  final class Pair {
    let path = "/tmp/vkbd-link-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))/agent.sock"
    let loop: EventLoop
    let budget = TurnBudget(perTurn: 4)
    let server: AgentServer
    let agent: AgentLoop
    let link: DaemonLink
    var reports: [FocusReport?] = []
    let picker = RecordingPicker()

    init() throws {
      loop = try EventLoop()
      server = try AgentServer(path: path, loop: loop, budget: budget, logger: Logger(label: "test"))
      agent = try AgentLoop()
      link = DaemonLink(
        path: path, source: "x11", fields: "at-spi", picker: picker, loop: agent.loop, logger: Logger(label: "test"))
      agent.add(link)
      server.onEvent = { [unowned self] told in
        if case .focus(let report) = told { reports.append(report) }
      }
    }

    /// Lets both sides handle what came, a few rounds.
    func pump() throws {
      for _ in 0..<20 {
        budget.renew()
        try loop.runOnce(timeoutMilliseconds: 5)
        try agent.turn(timeoutMilliseconds: 0)
      }
    }
  }

  /// What the daemon asked the agent's picker window to show.
  final class RecordingPicker: PickerWindow {
    let name = "test"
    var shown: [PickerShow?] = []
    func show(_ view: PickerShow) { shown.append(view) }
    func hide() { shown.append(nil) }
  }

  @Test func thePickerShowsWhatTheDaemonSendsAndHidesWhenTheDaemonGoes() throws {
    var pair: Pair? = try Pair()
    pair!.link.connect()
    try pair!.pump()
    let view = PickerShow(
      query: "regards", labels: ["Signature"], triggers: [":sig"], sources: ["base.yml"], selected: 0, total: 1,
      trigger: nil)
    #expect(!pair!.server.showPicker(view), "an agent of a session that does not count shows nothing")
    pair!.server.setActiveUsers([geteuid()])
    try pair!.pump()
    #expect(pair!.server.statuses.first?.picker == true, "its hello said it shows the picker")
    pair!.picker.shown = []  // (a session that did not count hid it)
    #expect(pair!.server.showPicker(view))
    try pair!.pump()
    #expect(pair!.picker.shown == [view])
    #expect(pair!.server.showPicker(nil))
    try pair!.pump()
    #expect(pair!.picker.shown == [view, nil])
    #expect(pair!.server.showPicker(view))
    try pair!.pump()
    // The daemon goes while the picker is shown: the window goes too (the
    // daemon gave the keys back to the application).
    let picker = pair!.picker
    let (agent, link) = (pair!.agent, pair!.link)
    pair = nil
    for _ in 0..<10 { try agent.turn(timeoutMilliseconds: 5) }
    #expect(picker.shown.last == .some(nil))
    #expect(!link.isConnected)
  }

  @Test func theLinkReportsOnlyWhileTheDaemonCountsIt() throws {
    let pair = try Pair()
    pair.link.connect()
    try pair.pump()
    #expect(pair.link.isConnected && !pair.link.isActive)
    #expect(pair.server.statuses.map(\.source) == ["x11"], "the hello arrived")
    #expect(pair.server.statuses.map(\.fields) == ["at-spi"], "it said where its fields come from")
    pair.link.report(FocusReport(window: 1, app: "foot", title: "private"))
    try pair.pump()
    #expect(pair.reports.isEmpty, "a session that does not count sends nothing")
    // The session becomes the active one: the focus known is sent at once.
    pair.server.setActiveUsers([geteuid()])
    try pair.pump()
    #expect(pair.link.isActive)
    #expect(pair.reports == [FocusReport(window: 1, app: "foot", title: "private")])
    // A long title is cut to the bound.
    let long = String(repeating: "ü", count: 2000)
    pair.link.report(FocusReport(window: 2, app: "kitty", title: long))
    try pair.pump()
    #expect(pair.reports.count == 2)
    let title = try #require(pair.reports.last??.title)
    #expect(title.utf8.count <= AgentProtocol.maximumTitle && long.hasPrefix(title))
  }

  @Test func theAgentHearsTheDaemonsEventsWhileItCountsAndItsMenuReachesTheDaemon() throws {
    let pair = try Pair()
    var standings: [(active: Bool, first: Bool, notifications: Bool?)] = []
    var events: [DaemonEvent.Kind] = []
    var commands: [DaemonCommand.Command] = []
    let state = DaemonEvent(
      event: .state, state: "running", layout: "us", group: 1, app: nil, rule: nil, agents: 1, config: "/c.yaml")
    pair.server.currentState = { state }
    pair.server.onEvent = { [unowned pair] told in
      switch told {
      case .command(let command): commands.append(command)
      case .focus(let report): pair.reports.append(report)
      default: break
      }
    }
    pair.link.onStanding = { standings.append(($0.active, $1, $0.notifications)) }
    pair.link.onEvent = { events.append($0.event) }
    pair.link.connect()
    try pair.pump()
    // Not the active session: told once on connecting (the agent's notice), no event.
    #expect(standings.map { [$0.active, $0.first] } == [[false, true]])
    pair.server.announce(
      DaemonEvent(
        event: .paused, state: "paused", layout: "us", group: 1, app: nil, rule: nil, agents: 1, config: "/c.yaml"))
    pair.link.command(.pause)
    try pair.pump()
    #expect(events.isEmpty && commands.isEmpty)
    pair.server.setActiveUsers([geteuid()])
    try pair.pump()
    #expect(standings.map { [$0.active, $0.first] } == [[false, true], [true, false]])
    #expect(events == [.state], "the state, as it becomes the active session")
    var paused = state
    paused.event = .paused
    paused.state = "paused"
    pair.server.announce(paused)
    pair.link.command(.reload)
    try pair.pump()
    #expect(events == [.state, .paused])
    #expect(commands == [.reload])
    pair.server.setNotifications(false)
    try pair.pump()
    #expect(standings.last?.notifications == false)
  }

  @Test func theLinkReconnectsWhenTheDaemonComesBack() throws {
    var pair: Pair? = try Pair()
    let path = pair!.path
    let agent = try AgentLoop()
    let link = DaemonLink(
      path: path, source: "x11", fields: nil, picker: nil, loop: agent.loop, logger: Logger(label: "test"))
    agent.add(link)
    link.connect()
    try pair!.pump()
    try agent.turn(timeoutMilliseconds: 0)
    #expect(link.isConnected)
    link.report(FocusReport(window: 3, app: "code"))
    pair = nil  // the daemon stops: its socket goes
    // The link reads what the daemon said before it went (that this
    // session does not count), then the end of the connection.
    for _ in 0..<10 where link.isConnected { try agent.turn(timeoutMilliseconds: 1000) }
    #expect(!link.isConnected)
    link.connect()
    #expect(!link.isConnected, "nothing listens")
    // A new daemon at the same path: the link says hello again (on its
    // own, a second later) and, once counted, sends the focus it knows.
    let loop = try EventLoop()
    let budget = TurnBudget(perTurn: 4)
    let server = try AgentServer(path: path, loop: loop, budget: budget, logger: Logger(label: "test"))
    var reports: [FocusReport?] = []
    server.onEvent = { told in
      if case .focus(let report) = told { reports.append(report) }
    }
    server.setActiveUsers([geteuid()])
    let deadline = monotonicMicroseconds() + 5_000_000
    while reports.isEmpty && monotonicMicroseconds() < deadline {
      budget.renew()
      try loop.runOnce(timeoutMilliseconds: 5)
      try agent.turn(timeoutMilliseconds: 5)
    }
    #expect(reports == [FocusReport(window: 3, app: "code")])
  }
}

/// The GNOME and KDE source: the calls the extension and the KWin script
/// make, played on a private session bus with busctl.
@Suite(.serialized) struct ShellBridgeTests {
  /// A private session bus (dbus-daemon), for the life of the test.
  final class PrivateBus {
    let address: String
    private let daemon: Process

    init() throws {
      daemon = Process()
      daemon.executableURL = URL(fileURLWithPath: "/usr/bin/dbus-daemon")
      daemon.arguments = ["--session", "--nofork", "--print-address=1", "--nopidfile"]
      let output = Pipe()
      daemon.standardOutput = output
      daemon.standardError = FileHandle.nullDevice
      try daemon.run()
      var line = Data()
      while !line.contains(UInt8(ascii: "\n")) { line.append(output.fileHandleForReading.availableData) }
      address = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
      setenv("DBUS_SESSION_BUS_ADDRESS", address, 1)
    }

    deinit {
      // SIGKILL: a process started from a test's thread inherits its
      // blocked signals, SIGTERM among them.
      kill(daemon.processIdentifier, SIGKILL)
      daemon.waitUntilExit()
    }

    /// `busctl call` on this bus, as the extension or the script would call.
    func call(_ arguments: [String]) throws -> Process {
      let process = Process()
      process.executableURL = URL(fileURLWithPath: "/usr/bin/busctl")
      process.arguments = ["--address=\(address)", "call"] + arguments
      process.standardOutput = FileHandle.nullDevice
      process.standardError = FileHandle.nullDevice
      try process.run()
      return process
    }
  }

  static func focusChanged(_ window: String, _ app: String, _ instance: String, _ title: String) -> [String] {
    [
      ShellBridge.busName, ShellBridge.objectPath, ShellBridge.interface, "FocusChanged", "ssss", window, app, instance,
      title,
    ]
  }

  @Test func theExtensionsCallsBecomeReports() throws {
    let bus = try PrivateBus()
    let bridge = try ShellBridge(desktop: .gnome, kwinScript: "/nonexistent", logger: Logger(label: "test"))
    var reports: [FocusReport] = []
    bridge.onFocus = { reports.append($0) }
    let calls = [
      Self.focusChanged("10", "org.gnome.Console", "org.gnome.Console", "~"),
      Self.focusChanged("11", "gnome-terminal-server", "org.gnome.Terminal", "vim — notes"),
      Self.focusChanged("10", "org.gnome.Console", "", "~/src"),
      Self.focusChanged("", "", "", ""),
    ]
    for arguments in calls {
      let call = try bus.call(arguments)
      while call.isRunning {
        bridge.beforeWait()
        var ready = pollfd(fd: bridge.pollFD?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
        if poll(&ready, 1, 10) > 0 { try bridge.readable() }
      }
      #expect(call.terminationStatus == 0, "the call got its reply")
    }
    #expect(
      reports == [
        FocusReport(window: 1, app: "org.gnome.Console", title: "~"),
        FocusReport(window: 2, app: "gnome-terminal-server", instance: "org.gnome.Terminal", title: "vim — notes"),
        FocusReport(window: 1, app: "org.gnome.Console", title: "~/src"),
        FocusReport(window: 0, app: ""),
      ])
    // A second agent of the session cannot take the name.
    #expect {
      try ShellBridge(desktop: .kde, kwinScript: "/nonexistent", logger: Logger(label: "test"))
    } throws: { error in
      (error as? AgentExit)?.status == 0 && "\(error)".contains("another vkbd-agent")
    }
  }

  /// The JavaScript of the extension and the KWin script calls what the
  /// agent serves.
  @Test(arguments: ["desktop/gnome-shell/reporter.js", "desktop/kwin/vkbd-focus.js"])
  func theDesktopScriptsCallTheAgentsMethod(path: String) throws {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let script = try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    for name in [ShellBridge.busName, ShellBridge.objectPath, ShellBridge.interface, "FocusChanged"] {
      #expect(script.contains(name), "\(path) does not name \(name)")
    }
    if path.hasSuffix("reporter.js") {
      #expect(script.contains("'(ssss)'"))
      let metadata = try String(
        contentsOf: repository.appendingPathComponent("desktop/gnome-shell/metadata.json.in"), encoding: .utf8)
      #expect(metadata.contains("\"uuid\": \"\(ShellBridge.gnomeExtension)\""))
    }
  }
}

@Suite struct FocusSettlerTests {
  static func settle(_ steps: [(Int64, FocusReport?)]) -> [(Int64, FocusReport)] {
    var passed: [(Int64, FocusReport)] = []
    var now: Int64 = 0
    let settler = FocusSettler { passed.append((now, $0)) }
    for (time, report) in steps {
      now = time
      settler.tick(at: time)
      if let report { settler.take(report, at: time) }
    }
    return passed
  }

  static let none = FocusReport(window: 0, app: "")
  static let konsole = FocusReport(window: 1, app: "org.kde.konsole", instance: "konsole", title: "~")
  static let kwrite = FocusReport(window: 2, app: "org.kde.kwrite", instance: "kwrite", title: "Untitled")

  @Test func theNoWindowKWinSaysBeforeASwitchIsDropped() {
    // KWin 5.27 and 6.3: null, then the window, within 2 ms.
    let passed = Self.settle([(0, Self.konsole), (1_000_000, Self.none), (1_001_400, Self.kwrite), (2_000_000, nil)])
    #expect(passed.map(\.1) == [Self.konsole, Self.kwrite])
    #expect(passed.map(\.0) == [0, 1_001_400], "a window report goes at once")
  }

  @Test func noWindowAtAllGoesOnceItHasLasted() {
    let passed = Self.settle([
      (0, Self.konsole), (1_000_000, Self.none), (1_000_100, Self.none), (1_049_999, nil), (1_050_000, nil),
      (3_000_000, Self.none),
    ])
    #expect(passed.map(\.1) == [Self.konsole, Self.none], "GNOME's two empty reports at enabling make one")
    #expect(passed.map(\.0) == [0, 1_050_000])
  }

  @Test func aReportLikeTheLastIsDropped() {
    let passed = Self.settle([(0, Self.konsole), (10, Self.konsole), (20, Self.kwrite), (30, Self.konsole)])
    #expect(passed.map(\.1) == [Self.konsole, Self.kwrite, Self.konsole])
  }
}

@Suite struct AgentCommandTests {
  @Test func theAgentsOptionsAreInVkbdAgent1AndNothingElse() throws {
    let help = VKBDAgent.helpMessage(columns: 200)
    let pattern = try NSRegularExpression(pattern: "^  (--[a-z-]+)", options: [.anchorsMatchLines])
    let options = Set(
      pattern.matches(in: help, range: NSRange(help.startIndex..., in: help)).map {
        String(help[Range($0.range(at: 1), in: help)!])
      })
    let page = try String(
      contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("man/vkbd-agent.1"), encoding: .utf8)
    let flags = try NSRegularExpression(pattern: "(?:^\\.|\\s)Fl (-[a-z-]+)", options: [.anchorsMatchLines])
    let documented = Set(
      flags.matches(in: page, range: NSRange(page.startIndex..., in: page)).map {
        "-" + String(page[Range($0.range(at: 1), in: page)!])
      })
    #expect(options.subtracting(documented).isEmpty, "undocumented: \(options.subtracting(documented))")
    let extra = documented.subtracting(options).subtracting([
      "--help", "--version", "-h", "--headless", "--virtual-monitor", "--virtual",
    ])
    #expect(extra.isEmpty, "vkbd-agent.1 documents options the agent does not have: \(extra)")
    for source in VKBDAgent.Source.allCases { #expect(page.contains(".Cm \(source.rawValue)")) }
  }

  @Test func oneAgentADisplay() throws {
    let directory = "/tmp/vkbd-lock-test-\(getpid())"
    mkdir(directory, 0o700)
    let session = SessionEnvironment(
      wayland: true, x11: false, desktops: [], display: "wayland-9", runtimeDirectory: directory, locale: "")
    #expect(try SessionLock.take(for: session))
    #expect(try !SessionLock.take(for: session), "a second agent of the display is refused")
    var other = session
    other.display = ":3"
    #expect(try SessionLock.take(for: other), "another display has its own agent")
  }
}
