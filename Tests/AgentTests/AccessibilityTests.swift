import AgentProtocol
import Foundation
import Glibc
import LinuxSystem
import Logging
import Testing

@testable import SessionAgent

/// The accessibility bus source: what an AT-SPI role and state make, and a
/// real GTK 3 application's fields on a private accessibility bus. The
/// end-to-end tests run one at a time: each starts an X server of its own.
@Suite(.serialized) struct AccessibilityTests {
  typealias Role = AccessibilitySource.Role

  /// The state words of an object with these state bits.
  static func states(_ bits: Int...) -> [UInt32] {
    var words: [UInt32] = [0, 0]
    for bit in bits { words[bit >> 5] |= 1 << UInt32(bit & 31) }
    return words
  }

  static let editable = AccessibilitySource.State.editable
  static let singleLine = AccessibilitySource.State.singleLine
  static let multiLine = AccessibilitySource.State.multiLine

  @Test(arguments: [
    // A GTK 3 Gtk.Entry, its password entry, a Gtk.TextView.
    (Role.text, states(editable, singleLine), FieldRole.entry),
    (Role.passwordText, states(editable, singleLine), .password),
    (Role.text, states(editable, multiLine), .text),
    (Role.entry, states(editable, singleLine), .entry),
    (Role.paragraph, states(editable, multiLine), .text),
    (Role.documentText, states(editable, multiLine), .text),
    (Role.editbar, states(editable, singleLine), .entry),
    (Role.text, states(editable), .text),
    (Role.spinButton, states(editable, singleLine), .number),
    // A web page's contenteditable element, a document in design mode.
    (Role.section, states(editable, multiLine), .text),
    (Role.documentWeb, states(editable), .text),
    // A terminal is a field whatever it says of itself.
    (Role.terminal, [], .terminal),
    (Role.terminal, states(editable, multiLine), .terminal),
  ])
  func editableObjectsAreFields(role: UInt32, states: [UInt32], field: FieldRole) {
    #expect(AccessibilitySource.fieldRole(role: role, states: states) == field)
  }

  @Test(arguments: [
    // A label's text, a read-only text view, a button, a window.
    (Role.text, states(singleLine)),
    (Role.text, states(multiLine)),
    (Role.passwordText, states(singleLine)),
    (Role.spinButton, []),
    // A web page, and a section of it that is no editable element.
    (Role.documentWeb, states(multiLine)),
    (Role.section, []),
    (UInt32(43), states(editable)),  // PUSH_BUTTON
    (UInt32(23), []),  // FRAME
    (Role.text, [UInt32]()),  // no state words at all
  ])
  func otherObjectsAreNoFields(role: UInt32, states: [UInt32]) {
    #expect(AccessibilitySource.fieldRole(role: role, states: states) == nil)
  }

  @Test func theStateWordsAreReadBitByBit() {
    // EDITABLE is bit 7 of word 0, SINGLE_LINE bit 26; a bit of the second
    // word (a state above 31) changes nothing.
    #expect(AccessibilitySource.fieldRole(role: Role.text, states: [1 << 7 | 1 << 26, 1 << 3]) == .entry)
    #expect(AccessibilitySource.fieldRole(role: Role.text, states: [1 << 6 | 1 << 26, 1 << 7]) == nil)
  }

  @Test(arguments: [
    (Int32(0), Int32(0), true), (11, 0, true), (256, 0, true), (257, 1, false), (10_000, 9_744, false),
  ])
  func theLast256CharactersBeforeTheCaretAreRead(caret: Int32, start: Int32, isFieldStart: Bool) throws {
    let range = try #require(AccessibilitySource.textRange(caret: caret))
    #expect(range.start == start && range.isFieldStart == isFieldStart)
  }

  @Test func aNegativeCaretReadsNothing() {
    #expect(AccessibilitySource.textRange(caret: -1) == nil)
  }

  @Test func textOfAnotherLengthThanAskedIsRefused() {
    #expect(AccessibilitySource.before("grüße", from: 0, to: 5) == "grüße", "characters, not bytes")
    #expect(AccessibilitySource.before("👍🏽", from: 3, to: 5) == "👍🏽", "code points, not graphemes")
    // A caret past the end: the application gave what it had.
    #expect(AccessibilitySource.before("hello", from: 0, to: 9) == nil)
    #expect(AccessibilitySource.before("", from: 0, to: 1) == nil)
  }

  // MARK: - End to end

  static let programs = [
    "/usr/bin/Xvfb", "/usr/bin/dbus-daemon", "/usr/bin/busctl", "/usr/libexec/at-spi-bus-launcher", "/usr/bin/python3",
  ]

  /// Whether this host has what the end-to-end test runs: Xvfb, the AT-SPI
  /// bus launcher and GTK 3 for /usr/bin/python3 (python3-gi).
  static var canRunGTK: Bool {
    guard programs.allSatisfy({ access($0, X_OK) == 0 }) else { return false }
    let check = Process()
    check.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
    check.arguments = ["-c", "import gi; gi.require_version('Gtk', '3.0'); from gi.repository import Gtk"]
    check.environment = ["PATH": "/usr/bin:/bin"]
    check.standardOutput = FileHandle.nullDevice
    check.standardError = FileHandle.nullDevice
    guard (try? check.run()) != nil else { return false }
    check.waitUntilExit()
    return check.terminationStatus == 0
  }

  /// A GTK 3 window with an entry, a password entry and a text view, whose
  /// focus and caret move on a timer; it quits at the end.
  static let application = """
    import gi
    gi.require_version("Gtk", "3.0")
    from gi.repository import GLib, Gtk

    window = Gtk.Window(title="fields")
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
    entry = Gtk.Entry()
    entry.set_text("hello world")
    password = Gtk.Entry()
    password.set_visibility(False)
    password.set_text("hunter2")
    view = Gtk.TextView()
    view.get_buffer().set_text("line one\\nline two")
    for widget in (entry, password, view):
        box.add(widget)
    window.add(box)
    window.show_all()
    window.present()  # without a window manager, GTK takes the X focus itself


    def end_of_view():
        buffer = view.get_buffer()
        buffer.place_cursor(buffer.get_end_iter())


    def long_view():
        view.get_buffer().set_text("x" * 300 + "y")
        end_of_view()


    steps = [
        entry.grab_focus, lambda: entry.set_position(5),
        password.grab_focus,
        view.grab_focus, end_of_view,
        entry.grab_focus, lambda: entry.set_text("grüße, world"), lambda: entry.set_position(5),
        view.grab_focus, long_view,
        Gtk.main_quit,
    ]


    def step():
        steps.pop(0)()
        return bool(steps)


    # A step a second: the agent reads a field without waiting, and drops
    # a read the next focus overtakes; a GTK application loaded by the rest
    # of the suite answered its first questions later than 300 ms.
    GLib.timeout_add(1000, step)
    Gtk.main()
    """

  /// Starts `arguments` in a session of its own, whose group the test
  /// kills whole at the end, with no signal blocked (the test's thread may
  /// block SIGTERM); the caller reaps it.
  static func spawnSession(_ arguments: [String], environment: [String]) throws -> pid_t {
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var none = sigset_t()
    sigemptyset(&none)
    posix_spawnattr_setsigmask(&attributes, &none)
    let setsid: Int32 = 0x80  // POSIX_SPAWN_SETSID (glibc 2.26), which the Glibc module hides (_GNU_SOURCE)
    posix_spawnattr_setflags(&attributes, Int16(setsid | POSIX_SPAWN_SETSIGMASK))
    let argv = arguments.map { strdup($0) } + [nil]
    let envp = environment.map { strdup($0) } + [nil]
    defer { for pointer in argv + envp { free(pointer) } }
    var pid: pid_t = 0
    let status = posix_spawn(&pid, arguments[0], nil, &attributes, argv, envp)
    guard status == 0 else { throw POSIXError(POSIXErrorCode(rawValue: status) ?? .EINVAL) }
    return pid
  }

  /// Runs a session (Xvfb, a session bus, the AT-SPI bus launcher) in a
  /// process group of its own, and in it the GTK application once the
  /// file `go` exists in the session's directory.
  static let session = """
    cd "$1"; n="$2"
    Xvfb ":$n" -nolisten tcp -screen 0 640x480x24 >/dev/null 2>&1 &
    dbus-daemon --session --nofork --nopidfile --print-address=1 >bus 2>/dev/null &
    while [ ! -s bus ] || [ ! -e "/tmp/.X11-unix/X$n" ]; do sleep 0.05; done
    export DBUS_SESSION_BUS_ADDRESS="$(head -n 1 bus)" DISPLAY=":$n"
    /usr/libexec/at-spi-bus-launcher >/dev/null 2>&1 &
    until busctl --user call org.a11y.Bus /org/a11y/bus org.a11y.Bus GetAddress >a11y.new 2>/dev/null; do
      sleep 0.05
    done
    mv a11y.new a11y
    while [ ! -e go ]; do sleep 0.05; done
    exec python3 application.py 2>application.log
    """

  /// An application on the accessibility bus (GDBus, no toolkit) with two
  /// text fields: `/slow`, which holds its answers to the agent's questions
  /// until `/fast`'s text was read (at most 5 s), and `/fast`, which answers
  /// at once. It gives `/slow` the focus, then `/fast` as soon as the
  /// agent asks `/slow` its role, and writes what it saw to `seen`.
  static let slowApplication = """
    import sys
    from gi.repository import Gio, GLib

    session = Gio.bus_get_sync(Gio.BusType.SESSION)
    address = session.call_sync("org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", None,
                                GLib.VariantType("(s)"), 0, -1, None).unpack()[0]
    bus = Gio.DBusConnection.new_for_address_sync(
        address, Gio.DBusConnectionFlags.AUTHENTICATION_CLIENT | Gio.DBusConnectionFlags.MESSAGE_BUS_CONNECTION)
    node = Gio.DBusNodeInfo.new_for_xml('''<node>
      <interface name="org.a11y.atspi.Accessible">
        <method name="GetRole"><arg type="u" direction="out"/></method>
        <method name="GetState"><arg type="au" direction="out"/></method>
      </interface>
      <interface name="org.a11y.atspi.Text">
        <method name="GetText"><arg type="i"/><arg type="i"/><arg type="s" direction="out"/></method>
        <property name="CaretOffset" type="i" access="read"/>
      </interface></node>''')
    held = []
    seen = []
    loop = GLib.MainLoop()
    ENTRY, STATES = 79, [(1 << 7) | (1 << 26), 0]  # editable, single-line


    def answer(invocation, member):
        if member == "GetRole":
            invocation.return_value(GLib.Variant("(u)", (ENTRY,)))
        elif member == "GetState":
            invocation.return_value(GLib.Variant("(au)", (STATES,)))
        else:
            invocation.return_value(GLib.Variant("(s)", ("abc",)))


    def release(why):
        if held:
            seen.append("slow answered " + why)
        for invocation, member in held:
            answer(invocation, member)
        held.clear()
        return False


    def called(connection, sender, path, interface, member, parameters, invocation):
        seen.append("%s %s" % (path, member))
        if path == "/slow":
            held.append((invocation, member))
            if member == "GetRole" and len(held) == 1:
                focus("/fast")
            return
        answer(invocation, member)
        if member == "GetText":
            release("once the fast field was read")
            GLib.timeout_add(1000, loop.quit)


    def caret(connection, sender, path, interface, name):
        return GLib.Variant("i", 3)


    for path in ("/slow", "/fast"):
        for interface in node.interfaces:
            bus.register_object(path, interface, called, caret, None)


    def focus(path):
        seen.append("focus " + path)
        bus.emit_signal(None, path, "org.a11y.atspi.Event.Object", "StateChanged",
                        GLib.Variant("(siiva{sv})", ("focused", 1, 0, GLib.Variant("i", 0), {})))
        return False


    GLib.timeout_add(300, focus, "/slow")
    GLib.timeout_add(5300, release, "after 5 s, the fast field unread")
    GLib.timeout_add(9000, loop.quit)
    loop.run()
    open("seen", "w").write("\\n".join(seen) + "\\n")
    """

  /// Runs `application` in a session of its own (``session``) and an
  /// accessibility source on its bus until the application quits: the
  /// source's reports, the application's log and what it wrote to `seen`.
  static func run(_ application: String, callTimeout: UInt64 = AccessibilitySource.callTimeout) throws -> (
    reports: [FieldReport], log: String, seen: String
  ) {
    let directory = "/tmp/vkbd-atspi-test-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try application.write(toFile: "\(directory)/application.py", atomically: true, encoding: .utf8)
    try Self.session.write(toFile: "\(directory)/session.sh", atomically: true, encoding: .utf8)
    var display = 300 + Int(getpid() % 500)
    while access("/tmp/.X11-unix/X\(display)", F_OK) == 0 || access("/tmp/.X\(display)-lock", F_OK) == 0 {
      display += 1
    }
    let session = try Self.spawnSession(
      ["/bin/sh", "\(directory)/session.sh", directory, "\(display)"],
      environment: ["PATH=/usr/bin:/bin", "HOME=\(directory)", "XDG_RUNTIME_DIR=\(directory)"])
    var exit: Int32?
    func isRunning() -> Bool {
      var status: Int32 = 0
      if exit == nil && waitpid(session, &status, WNOHANG) == session { exit = status }
      return exit == nil
    }
    defer {
      kill(-session, SIGKILL)
      if exit == nil { waitpid(session, nil, 0) }
    }

    let deadline = Date().addingTimeInterval(30)
    var reply = ""
    while isRunning() && Date() < deadline {
      if let text = try? String(contentsOfFile: "\(directory)/a11y", encoding: .utf8) {
        reply = text
        break
      }
      usleep(50_000)
    }
    // busctl prints the address as: s "unix:path=…"
    let address = try #require(reply.split(separator: "\"").dropFirst().first, "no accessibility bus")
    setenv("AT_SPI_BUS_ADDRESS", String(address), 1)
    // The loop never runs: nothing here waits for a call to time out.
    let source = try AccessibilitySource(loop: EventLoop(), logger: Logger(label: "test"), callTimeout: callTimeout)
    var reports: [FieldReport] = []
    source.onField = { reports.append($0) }
    #expect(FileManager.default.createFile(atPath: "\(directory)/go", contents: nil))
    while isRunning() && Date() < deadline {
      source.beforeWait()
      var ready = pollfd(fd: source.pollFD?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
      if poll(&ready, 1, 20) > 0 { try source.readable() }
    }
    source.beforeWait()
    let log = (try? String(contentsOfFile: "\(directory)/application.log", encoding: .utf8)) ?? ""
    #expect(!isRunning() && exit == 0, "the application ran its steps and quit: \(log)")
    return (reports, log, (try? String(contentsOfFile: "\(directory)/seen", encoding: .utf8)) ?? "")
  }

  /// An application that answers late holds nothing: the agent reads the
  /// next field, of another object, while its question to the first waits,
  /// and the late answer changes nothing.
  @Test(.timeLimit(.minutes(1)))
  func aLateAnswerHoldsNoOtherField() throws {
    try #require(Self.canRunGTK, "Xvfb, dbus, at-spi2-core and python3-gi with GTK 3 are needed")
    let (reports, log, seen) = try Self.run(Self.slowApplication, callTimeout: 10_000_000)
    #expect(seen.contains("/fast GetText\nslow answered once the fast field was read"), "\(seen)\(log)")
    let fast = FieldReport(source: "at-spi", role: .entry, before: "abc", isFieldStart: true)
    #expect(reports.last == fast, "\(reports)")
    #expect(reports.filter { $0.role != nil } == [fast], "the slow field's late answer is dropped: \(reports)")
  }

  @Test(.timeLimit(.minutes(1)))
  func aGTKApplicationsFieldsAreReported() throws {
    // make check installs them (BUILD_PACKAGES): missing, the test fails.
    try #require(Self.canRunGTK, "Xvfb, dbus, at-spi2-core and python3-gi with GTK 3 are needed")
    let (reports, log, _) = try Self.run(Self.application)
    #expect(!log.contains("Traceback"), "\(log)")
    let fields = reports.filter { $0.role != nil }
    let expected = [
      FieldReport(source: "at-spi", role: .entry, before: "hello", isFieldStart: true),
      FieldReport(source: "at-spi", role: .password),
      FieldReport(source: "at-spi", role: .text, before: "line one\nline two", isFieldStart: true),
      FieldReport(source: "at-spi", role: .entry, before: "grüße", isFieldStart: true),
      FieldReport(source: "at-spi", role: .text, before: String(repeating: "x", count: 255) + "y", isFieldStart: false),
    ]
    for report in expected {
      #expect(fields.contains(report), "missing \(report)")
    }
    // In the order the focus moved.
    let order = expected.compactMap { report in fields.firstIndex(of: report) }
    #expect(order == order.sorted())
    #expect(fields.last == expected.last)
    #expect(
      reports.allSatisfy { $0.role != .password || $0.before == nil }, "a password field's text is never read")
    #expect(zip(reports, reports.dropFirst()).allSatisfy { $0 != $1 }, "only changes are reported")
  }
}
