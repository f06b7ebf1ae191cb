import AgentProtocol
import Foundation
import Glibc
import LinuxSystem
import Logging
import Testing

@testable import VKBDDaemon

/// The control socket's server on a loop of its own, in a thread, and the
/// client against it.
final class ServerUnderTest: @unchecked Sendable {
  let path: String
  let loop: EventLoop
  let budget = TurnBudget(perTurn: 4)
  let server: ControlServer
  private var stopped = false
  private let thread: Thread
  private let lock = NSLock()
  private(set) var requests: [ControlRequest] = []

  /// `respond` answers on the loop's thread (default: the trigger back);
  /// nil answers later (it gets the client's token for that).
  init(
    timeout: Int64 = 5_000_000, respond: ((ServerUnderTest, ControlRequest, UInt64) -> ControlReply?)? = nil
  ) throws {
    path = "/tmp/vkbd-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))/control.sock"
    loop = try EventLoop()
    server = try ControlServer(
      path: path, groupName: nil, loop: loop, budget: budget, logger: Logger(label: "test"), clientTimeout: timeout)
    let box = Box()
    thread = Thread { box.run() }
    box.owner = self
    server.respond = { [unowned self] request, client in
      lock.withLock { requests.append(request) }
      guard let respond else { return ControlReply(ok: true, expansion: request.trigger) }
      return respond(self, request, client)
    }
    thread.start()
  }

  final class Box: @unchecked Sendable {
    weak var owner: ServerUnderTest?
    func run() {
      while let owner, !owner.isStopped {
        owner.budget.renew()
        try? owner.loop.runOnce()
      }
    }
  }

  var isStopped: Bool { lock.withLock { stopped } }

  func stop() {
    lock.withLock { stopped = true }
    close(connect())  // wakes the loop
    while !thread.isFinished { usleep(1000) }
  }

  /// A raw connection, for clients that misbehave.
  func connect() -> Int32 {
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let status = withSocketAddress(path) { Glibc.connect(fd, $0, $1) }
    precondition(status == 0)
    return fd
  }

  func ask(_ trigger: String) throws -> ControlReply {
    try ControlClient.exchange(ControlRequest(command: .expand, trigger: trigger), socket: path)
  }
}

@Suite(.serialized) struct ControlTests {
  @Test func aRequestGetsItsReplyAndTheSocketIsForRootOnly() throws {
    let server = try ServerUnderTest()
    defer { server.stop() }
    #expect(try server.ask("hello").expansion == "hello")
    var info = stat()
    stat(server.path, &info)
    #expect(info.st_mode & 0o777 == 0o600)
  }

  @Test func badRequestsGetAnErrorReply() throws {
    let server = try ServerUnderTest()
    defer { server.stop() }
    for (line, error) in [
      ("nonsense\n", "not a request"),
      ("{\"version\":2,\"command\":\"status\"}\n", "protocol version 2 is not spoken here (1 is)"),
      ("{\"version\":1,\"command\":\"dance\"}\n", "not a request"),
    ] {
      let fd = server.connect()
      defer { close(fd) }
      _ = write(fd, line, line.utf8.count)
      let reply = try #require(Self.readReply(fd))
      #expect(!reply.ok)
      #expect(reply.error?.hasPrefix(error) == true, "\(line): \(reply.error ?? "")")
    }
  }

  @Test func aMebibyteRequestIsRefusedAndOthersAreStillServed() throws {
    let server = try ServerUnderTest()
    defer { server.stop() }
    let fd = server.connect()
    defer { close(fd) }
    let big = [UInt8](repeating: UInt8(ascii: "x"), count: 1 << 20)
    var offset = 0
    while offset < big.count {
      let count = big.withUnsafeBytes { send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
      if count <= 0 { break }  // the server closed on us once over the limit
      offset += count
    }
    let reply = Self.readReply(fd)
    #expect(reply?.error == "request too large (the limit is 65536 bytes)" || reply == nil)
    #expect(offset < big.count)
    #expect(try server.ask("after").expansion == "after")
  }

  @Test func silentAndHalfClosedClientsAreDroppedWithoutStallingOthers() throws {
    let server = try ServerUnderTest(timeout: 300_000)
    defer { server.stop() }
    let silent = server.connect()
    defer { close(silent) }
    let halfClosed = server.connect()
    _ = write(halfClosed, "{\"version\":1,", 13)
    shutdown(halfClosed, Int32(SHUT_WR))
    #expect(try server.ask("still served").expansion == "still served")
    // The half-closed one is gone at once (end of file), the silent one at its timeout.
    #expect(Self.readReply(halfClosed) == nil)
    close(halfClosed)
    var ended = false
    let deadline = Date().addingTimeInterval(3)
    while !ended && Date() < deadline {
      var byte: UInt8 = 0
      ended = read(silent, &byte, 1) == 0
    }
    #expect(ended)
    #expect(server.requests.count == 1)
  }

  @Test func aHundredClientsAtOnceAreAllAnsweredOrTurnedAway() throws {
    let server = try ServerUnderTest()
    defer { server.stop() }
    let clients = (0..<100).map { _ in server.connect() }
    defer { clients.forEach { close($0) } }
    let request = String(decoding: ControlProtocol.encode(ControlRequest(command: .status)), as: UTF8.self)
    var answered = 0
    var turnedAway = 0
    for fd in clients {
      _ = send(fd, request, request.utf8.count, Int32(MSG_NOSIGNAL))
      if let reply = Self.readReply(fd), reply.ok { answered += 1 } else { turnedAway += 1 }
    }
    #expect(answered + turnedAway == 100)
    #expect(answered >= ControlServer.maximumClients)
    #expect(try server.ask("later").expansion == "later")
  }

  @Test func anAnswerGivenLaterArrivesPastTheTimeoutAndAClientGoneMeanwhileIsForgotten() throws {
    // `later` is answered 300 ms on, three times the clients' timeout (as a
    // reload is once its config has loaded).
    let server = try ServerUnderTest(timeout: 100_000) { server, request, client in
      guard request.trigger == "later" else { return ControlReply(ok: true, expansion: request.trigger) }
      _ = server.loop.schedule(at: monotonicMicroseconds() + 300_000) {
        server.server.answer(client, with: ControlReply(ok: true, expansion: "at last"))
      }
      return nil
    }
    defer { server.stop() }
    let gone = server.connect()
    let request = ControlProtocol.encode(ControlRequest(command: .expand, trigger: "later"))
    _ = request.withUnsafeBytes { write(gone, $0.baseAddress, $0.count) }
    close(gone)
    let start = Date()
    #expect(try server.ask("later").expansion == "at last")
    #expect(Date().timeIntervalSince(start) >= 0.25)
    #expect(try server.ask("now").expansion == "now")
  }

  @Test func theClientSaysWhenTheDaemonIsNotRunning() throws {
    let run = try VKBDBinary.run(["status", "--socket", "/tmp/vkbd-nothing-here.sock"])
    #expect(run.status == 69)
    #expect(run.error == "vkbd: the daemon is not running (nothing listens on /tmp/vkbd-nothing-here.sock)\n")
  }

  @Test func aReplyWithoutItsAnswerIsAnErrorNotACrash() throws {
    // A daemon of another version: `ok`, but not the field asked for.
    let server = try ServerUnderTest { _, _, _ in ControlReply(ok: true) }
    defer { server.stop() }
    for command in ["status", "pause", "stats"] {
      let run = try VKBDBinary.run([command, "--socket", server.path])
      #expect(run.status == 76, "\(command)")
      #expect(run.error == "vkbd: the daemon answered \(command) without its answer: a daemon of another version?\n")
    }
  }

  static func event(_ kind: DaemonEvent.Kind, problems: [String]? = nil) -> DaemonEvent {
    var event = DaemonEvent(
      event: kind, state: kind == .paused ? "paused" : "running", layout: "us", group: 1, app: "foot", rule: 2,
      agents: 1, config: "/etc/vkbd/config.yaml")
    event.problems = problems
    return event
  }

  /// A server whose `expand` of `announce` announces a paused event, and
  /// of `flood` eight events of 64 KiB each.
  static func announcingServer(timeout: Int64 = 5_000_000) throws -> ServerUnderTest {
    let server = try ServerUnderTest(timeout: timeout) { server, request, _ in
      if request.trigger == "announce" { server.server.announce(event(.paused)) }
      if request.trigger == "flood" {
        let problem = String(repeating: "x", count: 4096)
        for _ in 0..<8 { server.server.announce(event(.reloadFailed, problems: Array(repeating: problem, count: 16))) }
      }
      return ControlReply(ok: true)
    }
    server.server.currentState = { event(.state) }
    return server
  }

  /// The lines a listener has received within `seconds`.
  static func readEvents(_ fd: Int32, count: Int, seconds: Double = 5) -> [DaemonEvent] {
    var lines: [DaemonEvent] = []
    var buffer: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    let deadline = Date().addingTimeInterval(seconds)
    while lines.count < count && Date() < deadline {
      var poller = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
      guard poll(&poller, 1, 100) > 0 else { continue }
      let got = read(fd, &chunk, chunk.count)
      if got <= 0 { break }
      buffer += chunk[..<got]
      while let newline = buffer.firstIndex(of: UInt8(ascii: "\n")) {
        if let event = ControlProtocol.decode(DaemonEvent.self, from: buffer[..<newline]) { lines.append(event) }
        buffer.removeFirst(newline + 1)
      }
    }
    return lines
  }

  static func listen(_ server: ServerUnderTest) -> Int32 {
    let fd = server.connect()
    let request = ControlProtocol.encode(ControlRequest(command: .listen))
    _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
    return fd
  }

  @Test func aListenerGetsTheStateThenEachEventAndHasNoTimeout() throws {
    let server = try Self.announcingServer(timeout: 100_000)
    defer { server.stop() }
    let fd = Self.listen(server)
    defer { close(fd) }
    #expect(Self.readEvents(fd, count: 1).map(\.event) == [.state])
    usleep(500_000)  // five times the client timeout
    _ = try server.ask("announce")
    let events = Self.readEvents(fd, count: 1)
    #expect(events.map(\.event) == [.paused])
    #expect(events.first?.state == "paused" && events.first?.app == "foot")
  }

  @Test func aListenerThatReadsNothingIsDroppedOnceAMebibyteWaits() throws {
    let server = try Self.announcingServer()
    defer { server.stop() }
    let stalled = Self.listen(server)
    defer { close(stalled) }
    let reading = Self.listen(server)
    defer { close(reading) }
    #expect(Self.readEvents(reading, count: 1).map(\.event) == [.state])
    // The reader gets every event; the one that never reads is cut off
    // once a mebibyte waits for it.
    for _ in 0..<4 {
      _ = try server.ask("flood")
      #expect(Self.readEvents(reading, count: 8, seconds: 10).count == 8)
    }
    var total = 0
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while true {
      let got = read(stalled, &chunk, chunk.count)
      if got <= 0 { break }
      total += got
    }
    #expect(total < 32 * 64 * 1024)
    #expect(try server.ask("still served").ok)
  }

  @Test func listenSaysWhenTheDaemonIsNotRunningAndWaybarReadsTheState() throws {
    let run = try VKBDBinary.run(["listen", "--socket", "/tmp/vkbd-nothing-here.sock"])
    #expect(run.status == 69)
    let waybar = WaybarState(Self.event(.paused))
    #expect((waybar.text, waybar.alt, waybar.class) == ("paused", "paused", "paused"))
    #expect(waybar.tooltip == "vkbd paused\nlayout us, group 1\napp foot, rule 2\n1 session agent")
    #expect(WaybarState(Self.event(.state)).text == "us")
  }

  /// While the daemon is away, waybar's module reads "stopped" once, not a
  /// line every second of the wait.
  @Test func waybarHearsStoppedOnceWhileTheDaemonIsAway() throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
    // timeout's SIGTERM ends it, though the test runner gives its
    // children every signal blocked.
    process.arguments = ["2.5", VKBDBinary.url.path, "listen", "--waybar", "--socket", "/tmp/vkbd-nothing-here.sock"]
    let output = Pipe()
    process.standardOutput = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    let lines = text.split(separator: "\n")
    #expect(lines == [#"{"alt":"stopped","class":"stopped","text":"","tooltip":"vkbd is not running"}"#])
  }

  static func readReply(_ fd: Int32) -> ControlReply? {
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 4096)
    while true {
      let count = read(fd, &chunk, chunk.count)
      if count <= 0 { break }
      bytes += chunk[..<count]
    }
    return ControlProtocol.decode(ControlReply.self, from: bytes.prefix { $0 != UInt8(ascii: "\n") })
  }
}

@Suite struct ReportTests {
  @Test func statusReadsLikeASentenceAndATable() {
    let status = StatusReport(
      state: "running", config: "/etc/vkbd/config.yaml", configLoaded: "2026-11-23T01:00:00Z", layout: "de",
      devicesGrabbed: 2, snippets: 3, uptimeSeconds: 3723, pid: 42, version: "0.1.0")
    #expect(
      Report.status(status) == """
        vkbd 0.1.0 is running (pid 42, up 1h 02m 03s)
        config    /etc/vkbd/config.yaml (loaded 2026-11-23T01:00:00Z)
        layout    de
        devices   2 keyboards grabbed
        snippets  3

        """)
  }

  @Test func statusSaysWhatAutocorrectUses() {
    var status = StatusReport(
      state: "running", config: "/etc/vkbd/config.yaml", configLoaded: "2026-11-23T01:00:00Z", layout: "de",
      devicesGrabbed: 2, snippets: 3, uptimeSeconds: 3723, pid: 42, version: "0.1.0")
    status.autocorrect = "de_DE (1 word forms, index 0.1 MiB); 2 words taught"
    #expect(
      Report.status(status).hasSuffix("snippets  3\nspelling  de_DE (1 word forms, index 0.1 MiB); 2 words taught\n"))
  }

  @Test func statsShowsThePercentilesInMicroseconds() {
    let stats = StatsReport(
      eventsIn: 10, eventsOut: 12, samples: 12, p50: 20, p90: 30, p99: 40, p999: 41, max: 50, sinceSeconds: 65)
    #expect(
      Report.stats(stats) == """
        events    10 in, 12 out, in 1m 05s
        latency   p50 20 µs, p90 30 µs, p99 40 µs, p99.9 41 µs, max 50 µs (12 events)

        """)
  }

  @Test func devicesLineUpInColumns() {
    let devices = [
      DeviceReport(
        name: "AT Translated Set 2 keyboard", id: "0001:0001", path: "/dev/input/event0", grabbed: true,
        state: "grabbed"),
      DeviceReport(
        name: "Mouse", id: "046d:c077", path: "/dev/input/event10", grabbed: false,
        state: "a pointer: read for button presses"),
    ]
    #expect(
      Report.devices(devices) == """
        /dev/input/event0   0001:0001  AT Translated Set 2 keyboard  grabbed
        /dev/input/event10  046d:c077  Mouse                         a pointer: read for button presses

        """)
  }

  @Test func devicesAreListedInTheOrderPeopleCount() {
    let paths = ["/dev/input/event10", "/dev/input/mouse0", "/dev/input/event2", "/dev/input/event1"]
    #expect(
      paths.sorted { InputDevices.numbersPadded($0) < InputDevices.numbersPadded($1) } == [
        "/dev/input/event1", "/dev/input/event2", "/dev/input/event10", "/dev/input/mouse0",
      ])
  }

  @Test func theJSONFieldNamesAreStable() {
    let stats = StatsReport(
      eventsIn: 1, eventsOut: 2, samples: 2, p50: 3, p90: 4, p99: 5, p999: 6, max: 7, sinceSeconds: 8)
    #expect(
      String(decoding: ControlProtocol.encode(stats), as: UTF8.self)
        == "{\"eventsIn\":1,\"eventsOut\":2,\"max\":7,\"p50\":3,\"p90\":4,\"p99\":5,\"p999\":6,\"samples\":2,\"sinceSeconds\":8}\n"
    )
    #expect(
      String(decoding: ControlProtocol.encode(ControlRequest(command: .releaseAll)), as: UTF8.self)
        == "{\"command\":\"release-all\",\"version\":1}\n")
  }

  @Test func statusHelpSaysWhatItShows() throws {
    let run = try VKBDBinary.run(["status", "--help"])
    #expect(
      run.output == """
        OVERVIEW: Show whether the daemon runs or is paused, its config, layout,
        devices and snippets.

        USAGE: vkbd status [--socket <path>] [--json]

        OPTIONS:
          --socket <path>         The daemon's control socket (control_socket in the
                                  config). (default: /run/vkbd/control.sock)
          --json                  Print JSON (stable field names) instead of text.
          -h, --help              Show help information.


        """)
  }
}
