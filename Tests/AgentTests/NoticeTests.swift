import AgentProtocol
import Foundation
import Glibc
import LinuxSystem
import Logging
import SystemPackage
import Testing

@testable import SessionAgent

/// What the user is told of the daemon's events.
@Suite struct NoticeTests {
  static func event(_ kind: DaemonEvent.Kind, by: String? = nil) -> DaemonEvent {
    var event = DaemonEvent(
      event: kind, state: kind == .paused ? "paused" : "running", layout: "us", group: 1, app: "foot", rule: nil,
      agents: 1, config: "/etc/vkbd/config.yaml")
    event.by = by
    return event
  }

  @Test func aPauseByTheChordOrTheCommandIsShownButNotOneByTheIcon() {
    #expect(Notice.about(Self.event(.paused, by: "chord"))?.summary == "vkbd paused")
    #expect(Notice.about(Self.event(.paused, by: "chord"))?.body.contains("the toggle chord") == true)
    #expect(Notice.about(Self.event(.paused, by: "vkbd pause"))?.body.contains("paused by vkbd pause") == true)
    #expect(Notice.about(Self.event(.resumed, by: "vkbd resume"))?.cause == .pause)
    #expect(Notice.about(Self.event(.paused, by: DaemonEvent.statusIcon)) == nil)
    #expect(Notice.about(Self.event(.resumed, by: DaemonEvent.statusIcon)) == nil)
  }

  @Test func aFailedReloadShowsItsFirstProblemsAndThatTheOldConfigRuns() {
    var failed = Self.event(.reloadFailed, by: "file")
    failed.problems = (1...5).map { "/etc/vkbd/config.yaml:\($0):1: problem \($0)" }
    let notice = Notice.about(failed)
    #expect(notice?.cause == .reload && notice?.urgency == 2)
    #expect(
      notice?.body == """
        /etc/vkbd/config.yaml:1:1: problem 1
        /etc/vkbd/config.yaml:2:1: problem 2
        /etc/vkbd/config.yaml:3:1: problem 3
        … and 2 more (vkbd check)
        The previous configuration keeps running.
        """)
  }

  @Test func aSnippetNotTypedSaysWhyAndTheRestIsQuiet() {
    var failed = Self.event(.snippetFailed)
    failed.reason = "snippet at base.yml:3 not typed: the session agent did not answer in time"
    #expect(
      Notice.about(failed) == Notice(cause: .snippet, summary: "vkbd: a snippet was not typed", body: failed.reason!))
    for kind in [DaemonEvent.Kind.state, .layout, .app, .agentConnected, .agentDisconnected, .reloaded] {
      #expect(Notice.about(Self.event(kind)) == nil, "\(kind)")
    }
  }
}

/// The notifier against a notification service on a private session bus:
/// one that answers, one that is slow, none at all. The agent never waits.
/// In the shell bridge's suite, whose tests run one at a time: a private bus
/// is named by the process's environment.
extension ShellBridgeTests {
  /// A notification service in Python (Gio): it records each call's
  /// summary, body and replaces_id to `record`, and answers after `delay`
  /// (with the id it replaced, as servers do).
  final class Service {
    let record: String
    private let process: Process

    init(delay: Double) throws {
      record = "/tmp/vkbd-notifications-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
      let script = """
        import json, sys, time
        from gi.repository import Gio, GLib
        XML = '''<node><interface name='org.freedesktop.Notifications'><method name='Notify'>
        <arg type='s' direction='in'/><arg type='u' direction='in'/><arg type='s' direction='in'/>
        <arg type='s' direction='in'/><arg type='s' direction='in'/><arg type='as' direction='in'/>
        <arg type='a{sv}' direction='in'/><arg type='i' direction='in'/><arg type='u' direction='out'/></method>
        <method name='CloseNotification'><arg type='u' direction='in'/></method></interface></node>'''
        count = [0]
        def call(connection, sender, path, interface, method, parameters, invocation):
            arguments = parameters.unpack()
            with open(sys.argv[1], 'a') as record:
                record.write(json.dumps([method] + list(arguments[:5] if method == 'Notify' else arguments)) + '\\n')
            time.sleep(\(delay))
            if method == 'Notify' and not arguments[1]:
                count[0] += 1
            answer = arguments[1] or count[0] if method == 'Notify' else 0
            invocation.return_value(GLib.Variant('(u)', (answer,)) if method == 'Notify' else None)
        def acquired(connection, name):
            connection.register_object('/org/freedesktop/Notifications',
                Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], call, None, None)
        Gio.bus_own_name(Gio.BusType.SESSION, 'org.freedesktop.Notifications', 0, acquired,
            lambda connection, name: open(sys.argv[1] + '.ready', 'w').close(), None)
        GLib.MainLoop().run()
        """
      process = try ShellBridgeTests.runPython(script, argument: record, ready: record + ".ready")
    }

    /// Each call so far: the method, then for Notify its app name,
    /// replaces_id, icon, summary and body.
    var calls: [[String]] {
      ((try? String(contentsOfFile: record, encoding: .utf8)) ?? "").split(separator: "\n").compactMap {
        (try? JSONSerialization.jsonObject(with: Data($0.utf8)) as? [Any])?.map { "\($0)" }
      }
    }

    deinit {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
      unlink(record)
      unlink(record + ".ready")
    }
  }

  /// Runs `script` in Python with `argument`, until it makes the file `ready` (30 s at most).
  static func runPython(_ script: String, argument: String, ready: String) throws -> Process {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    process.arguments = ["-c", script, argument]
    try process.run()
    let deadline = Date().addingTimeInterval(30)
    while access(ready, F_OK) != 0 && Date() < deadline { usleep(20_000) }
    return process
  }

  /// The agent's bus and notifier on a loop driven by the test.
  final class Agent {
    let loop: EventLoop
    let bus: SessionAgent.SessionBus
    let notifier: Notifier

    init() throws {
      loop = try EventLoop()
      bus = try SessionAgent.SessionBus(loop: loop)
      notifier = Notifier(bus: bus, loop: loop, logger: Logger(label: "test"))
      let bus = bus
      try loop.watch(bus.pollFD!) { _ in try? bus.readable() }
    }

    /// Turns the loop for `seconds`; how long the longest turn took.
    @discardableResult
    func run(_ seconds: Double) -> Double {
      let end = Date().addingTimeInterval(seconds)
      var longest = 0.0
      while Date() < end {
        let start = Date()
        bus.beforeWait()
        try? loop.runOnce(timeoutMilliseconds: 20)
        longest = max(longest, Date().timeIntervalSince(start))
      }
      return longest
    }
  }

  static let pause = Notice(cause: .pause, summary: "vkbd paused", body: "paused")
  static let resume = Notice(cause: .pause, summary: "vkbd resumed", body: "resumed")

  @Test func oneNoticeOfACauseAtATimeAndTheLastOfABurst() throws {
    let bus = try ShellBridgeTests.PrivateBus()
    let service = try Service(delay: 0)
    let agent = try Agent()
    agent.notifier.show(Self.pause)
    agent.run(0.5)
    agent.notifier.show(Self.resume)
    agent.notifier.show(Self.pause)  // within the interval: only the last waits
    agent.run(0.5)
    #expect(service.calls.map { $0[4] } == ["vkbd paused"])
    agent.run(Double(Notifier.minimumInterval) / 1e6 + 1)
    // The last one, in place of the first (its id, 1, as replaces_id).
    #expect(service.calls.map { [$0[2], $0[4]] } == [["0", "vkbd paused"], ["1", "vkbd paused"]])
    agent.notifier.withdraw(.pause)
    agent.run(0.5)
    #expect(service.calls.last == ["CloseNotification", "1"])
    withExtendedLifetime(bus) {}
  }

  @Test func aNoticeWaitsForTheIdOfTheOneBeforeItReplaces() throws {
    let bus = try ShellBridgeTests.PrivateBus()
    let service = try Service(delay: 6)
    let agent = try Agent()
    agent.notifier.show(Self.pause)
    agent.run(Double(Notifier.minimumInterval) / 1e6 + 1)
    // The interval is over but the pause is not answered yet: the resume
    // waits, or it would show beside the pause instead of in its place.
    agent.notifier.show(Self.resume)
    agent.run(1)
    #expect(service.calls.map { $0[4] } == ["vkbd paused"])
    agent.run(2.5)
    #expect(service.calls.map { [$0[2], $0[4]] } == [["0", "vkbd paused"], ["1", "vkbd resumed"]])
    withExtendedLifetime(bus) {}
  }

  @Test func aSlowOrMissingServiceNeverHoldsTheLoop() throws {
    let bus = try ShellBridgeTests.PrivateBus()
    let agent = try Agent()
    agent.notifier.show(Self.pause)  // no service at all
    #expect(agent.run(1) < 0.5)
    let service = try Service(delay: 8)
    agent.notifier.show(Notice(cause: .reload, summary: "vkbd: the config did not load", body: "x"))
    // The service takes 8 s to answer: every turn of the loop stays short.
    #expect(agent.run(2) < 0.5)
    #expect(service.calls.map { $0[4] } == ["vkbd: the config did not load"])
    agent.notifier.isEnabled = false
    agent.notifier.show(Notice(cause: .snippet, summary: "off", body: ""))
    agent.run(0.5)
    #expect(service.calls.count == 1)
    withExtendedLifetime(bus) {}
  }
}
