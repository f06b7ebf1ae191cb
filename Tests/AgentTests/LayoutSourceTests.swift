import AgentProtocol
import Foundation
import Glibc
import LinuxSystem
import Logging
import Testing

@testable import SessionAgent

/// Runs a program to its end; its status.
@discardableResult
private func run(_ program: String, _ arguments: [String], environment: [String: String] = [:]) throws -> Int32 {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: program)
  process.arguments = arguments
  process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  process.standardOutput = FileHandle.nullDevice
  process.standardError = FileHandle.nullDevice
  try process.run()
  process.waitUntilExit()
  return process.terminationStatus
}

/// Lets `source` handle what comes until `done` holds, at most `seconds`.
private func pump(_ source: Pollable, seconds: Double = 2, until done: () -> Bool) throws {
  let end = monotonicMicroseconds() + Int64(seconds * 1_000_000)
  while monotonicMicroseconds() < end {
    source.beforeWait()
    if done() { return }
    var ready = pollfd(fd: source.pollFD?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
    if poll(&ready, 1, 20) > 0 { try source.readable() }
  }
}

/// The X11 source against Xvfb, its layouts set by setxkbmap and its group
/// locked through libX11, as a desktop's switcher would.
@Suite(.serialized) struct X11LayoutSourceTests {
  /// An Xvfb on a display no one uses, for the life of the test. It does
  /// not reset when its last client leaves: setxkbmap's layouts stay.
  final class VirtualDisplay {
    let display: String
    private let server: Process

    init() throws {
      var number = Int.random(in: 100...400)
      while access("/tmp/.X11-unix/X\(number)", F_OK) == 0 || access("/tmp/.X\(number)-lock", F_OK) == 0 {
        number += 1
      }
      display = ":\(number)"
      server = Process()
      server.executableURL = URL(fileURLWithPath: "/usr/bin/Xvfb")
      server.arguments = [display, "-nolisten", "tcp", "-noreset"]
      server.standardOutput = FileHandle.nullDevice
      server.standardError = FileHandle.nullDevice
      try server.run()
      for _ in 0..<100 where access("/tmp/.X11-unix/X\(number)", F_OK) != 0 { usleep(20_000) }
    }

    deinit {
      // SIGKILL: a process started from a test's thread inherits its
      // blocked signals, SIGTERM among them. Xvfb leaves its files then.
      kill(server.processIdentifier, SIGKILL)
      server.waitUntilExit()
      let number = display.dropFirst()
      unlink("/tmp/.X11-unix/X\(number)")
      unlink("/tmp/.X\(number)-lock")
    }

    func setxkbmap(_ arguments: [String]) throws {
      #expect(try run("/usr/bin/setxkbmap", ["-display", display] + arguments) == 0)
    }

    /// `XkbLockGroup(display, XkbUseCoreKbd, group)`, as a layout switcher calls it.
    func lockGroup(_ group: Int) throws {
      let script = """
        import ctypes
        x = ctypes.CDLL("libX11.so.6")
        x.XOpenDisplay.restype = ctypes.c_void_p
        display = ctypes.c_void_p(x.XOpenDisplay(b"\(display)"))
        x.XkbLockGroup(display, 0x100, \(group))
        x.XSync(display, 0)
        """
      #expect(try run("/usr/bin/python3", ["-c", script]) == 0)
    }
  }

  @Test func theLayoutsAndTheGroupAreReportedAtEveryChange() throws {
    let x = try VirtualDisplay()
    try x.setxkbmap(["-layout", "us,de", "-option", "grp:alt_shift_toggle"])
    let source = try X11LayoutSource(display: x.display)
    var reports: [LayoutReport] = []
    source.onLayout = { reports.append($0) }
    try pump(source) { !reports.isEmpty }
    #expect(
      reports == [
        LayoutReport(
          source: "x11", rules: "evdev", model: "pc105", layout: "us,de", options: "grp:alt_shift_toggle", group: 0)
      ])

    try x.lockGroup(1)
    try pump(source) { reports.count >= 2 }
    #expect(reports.count == 2 && reports.last?.layout == "us,de" && reports.last?.group == 1)

    try x.setxkbmap(["-layout", "de,us", "-variant", "nodeadkeys,"])
    try pump(source) { reports.last?.layout == "de,us" }
    #expect(reports.last?.variant == "nodeadkeys," && reports.last?.group == 1, "the locked group stays")

    // One layout: Xvfb keeps group 1 and sends no StateNotify; the group
    // wraps as XKB wraps it.
    try x.setxkbmap(["-layout", "fr", "-variant", ""])
    try pump(source) { reports.last?.layout == "fr" }
    #expect(reports.last?.group == 0)

    let count = reports.count
    try x.setxkbmap(["-layout", "fr", "-variant", ""])
    try x.lockGroup(0)
    try pump(source, seconds: 0.3) { false }
    #expect(reports.count == count, "the same layout again is not reported")
  }

  @Test func noXServerIsAnError() {
    #expect(throws: AgentExit.self) { try X11LayoutSource(display: ":999") }
  }
}

/// The layouts of GNOME and KDE, through the bridge: the extension's calls
/// played with busctl, and a fake of KWin's keyboard service. In the
/// bridge's suite: the bus address is the process's environment.
extension ShellBridgeTests {
  static func layoutChanged(_ fields: [String], group: UInt32) -> [String] {
    [ShellBridge.busName, ShellBridge.objectPath, ShellBridge.interface, "LayoutChanged", "sssssu"] + fields + [
      "\(group)"
    ]
  }

  /// Makes the call and handles it; the call's exit status.
  static func play(_ arguments: [String], on bus: PrivateBus, to bridge: ShellBridge) throws -> Int32 {
    let call = try bus.call(arguments)
    while call.isRunning {
      bridge.beforeWait()
      var ready = pollfd(fd: bridge.pollFD?.rawValue ?? -1, events: Int16(POLLIN), revents: 0)
      if poll(&ready, 1, 10) > 0 { try bridge.readable() }
    }
    return call.terminationStatus
  }

  @Test func theExtensionsLayoutCallsBecomeReports() throws {
    let bus = try PrivateBus()
    let bridge = try ShellBridge(desktop: .gnome, kwinScript: "/nonexistent", logger: Logger(label: "test"))
    var reports: [LayoutReport] = []
    bridge.onLayout = { reports.append($0) }
    let german = ["evdev", "pc105+inet", "de", "nodeadkeys", "compose:ralt"]
    #expect(try Self.play(Self.layoutChanged(german, group: 0), on: bus, to: bridge) == 0)
    #expect(try Self.play(Self.layoutChanged(german, group: 0), on: bus, to: bridge) == 0)
    // An ibus source: its xkbId, an empty variant; no rules: evdev.
    #expect(try Self.play(Self.layoutChanged(["", "pc105+inet", "us", "", ""], group: 0), on: bus, to: bridge) == 0)
    #expect(
      reports == [
        LayoutReport(
          source: "gnome-shell", rules: "evdev", model: "pc105+inet", layout: "de", variant: "nodeadkeys",
          options: "compose:ralt"),
        LayoutReport(source: "gnome-shell", rules: "evdev", model: "pc105+inet", layout: "us"),
      ], "the same layout again is not reported")
    // What the daemon would refuse is refused here.
    #expect(try Self.play(Self.layoutChanged(["evdev", "pc105", "us;x", "", ""], group: 0), on: bus, to: bridge) != 0)
    #expect(try Self.play(Self.layoutChanged(["evdev", "pc105", "us", "", ""], group: 1), on: bus, to: bridge) != 0)
    #expect(try Self.play(Self.focusChanged("1", "a", "", ""), on: bus, to: bridge) == 0, "focus calls still work")
    #expect(reports.count == 2)
  }

  /// GNOME Shell's pieces the extension uses (the display, the input
  /// source manager, GSettings, the session bus), as fakes that record
  /// the extension's calls.
  static let fakeShell = #"""
    // GNOME Shell's pieces the reporter uses, as fakes that record.
    class Emitter {
      constructor() { this._handlers = new Map(); this._next = 0; }
      connect(signal, handler) { this._handlers.set(++this._next, [signal, handler]); return this._next; }
      disconnect(id) { this._handlers.delete(id); }
      emit(signal, ...args) {
        for (const [name, handler] of [...this._handlers.values()]) if (name === signal) handler(this, ...args);
      }
    }
    const calls = [];
    const watchers = [];
    const settings = [];
    const store = {'xkb-options': ['compose:ralt'], 'xkb-model': ''};
    const global = {display: Object.assign(new Emitter(), {focus_window: null})};
    const manager = Object.assign(new Emitter(), {currentSource: {type: 'xkb', id: 'de+nodeadkeys', xkbId: 'de+nodeadkeys', index: 0}});
    const Keyboard = {getInputSourceManager: () => manager};
    class Settings extends Emitter {
      constructor(properties) {
        super();
        this.schema_id = properties.schema_id;
        this.settings_schema = {has_key: key => key in store};
        settings.push(this);
      }
      get_strv(key) { return store[key]; }
      get_string(key) { return store[key]; }
    }
    const Gio = {
      Settings, BusType: {SESSION: 0}, BusNameWatcherFlags: {NONE: 0}, DBusCallFlags: {NO_AUTO_START: 1},
      DBusSignalFlags: {NONE: 0},
      bus_watch_name: (bus, name, flags, appeared) => { watchers.push(appeared); return 1; },
      bus_unwatch_name: () => {},
      DBus: {session: {
        call: (name, path, iface, method, parameters) => calls.push([method, parameters.signature, ...parameters.values]),
        signal_subscribe: () => 1, signal_unsubscribe: () => {},
      }},
    };
    const idles = [];
    const runIdles = () => { while (idles.length) idles.shift()(); };
    const GLib = {
      Variant: class { constructor(signature, values) { this.signature = signature; this.values = values; } },
      PRIORITY_DEFAULT: 0, SOURCE_REMOVE: false,
      idle_add: (priority, callback) => idles.push(callback), source_remove: () => {},
    };
    const Meta = {WindowClientType: {WAYLAND: 0, X11: 1}};
    const windowOf = type => ({get_client_type: () => type});
    const Clutter = {
      InputContentPurpose: {NORMAL: 0, ALPHA: 1, DIGITS: 2, NUMBER: 3, PHONE: 4, URL: 5, EMAIL: 6, NAME: 7,
        PASSWORD: 8, DATE: 9, TIME: 10, DATETIME: 11, TERMINAL: 12},
      InputContentHintFlags: {HIDDEN_TEXT: 64, SENSITIVE_DATA: 128, MULTILINE: 512},
    };
    const inputMethod = Object.assign(new Emitter(), {
      _currentFocus: null, content_purpose: 0, content_hints: 0, text: [null, null],
      getSurroundingText() { return this.text; },
    });
    Object.defineProperty(inputMethod, 'currentFocus', {get() { return this._currentFocus; }});
    const Main = {inputMethod};
    const ibus = new Emitter();
    const IBusManager = {getIBusManager: () => ibus};
    """#

  /// The extension run by node against the fake shell, then `steps`,
  /// which print the calls it made as JSON; those calls.
  static func runExtension(_ steps: String) throws -> [[Any]] {
    // make check installs node (BUILD_PACKAGES): missing, the test fails.
    try #require(access("/usr/bin/node", X_OK) == 0, "node runs the extension here")
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let reporter = try String(
      contentsOf: repository.appendingPathComponent("desktop/gnome-shell/reporter.js"), encoding: .utf8)
    let node = Process()
    node.executableURL = URL(fileURLWithPath: "/usr/bin/node")
    node.arguments = ["-e", fakeShell + reporter + steps]
    let output = Pipe()
    node.standardOutput = output
    try node.run()
    let printed = output.fileHandleForReading.readDataToEndOfFile()
    node.waitUntilExit()
    #expect(node.terminationStatus == 0)
    return try #require(try JSONSerialization.jsonObject(with: printed) as? [[Any]])
  }

  /// The extension, run by node against the fake shell: its calls as it
  /// enables, the sources change, the options change, the agent's name
  /// appears and it is disabled; then those calls played to the agent.
  @Test func theExtensionReportsTheCurrentInputSource() throws {
    let steps = """
      const reporter = new FocusReporter();
      reporter.enable();
      manager.currentSource = null;
      manager.emit('sources-changed');
      manager.currentSource = {type: 'ibus', id: 'anthy', xkbId: 'jp', index: 1};
      manager.emit('current-source-changed');
      store['xkb-options'] = ['grp:alt_shift_toggle', 'caps:escape'];
      settings[0].emit('changed', 'xkb-options');
      settings[0].emit('changed', 'show-all-sources');
      store['xkb-model'] = 'pc104';
      settings[0].emit('changed', 'xkb-model');
      watchers[0]();
      reporter.disable();
      manager.emit('current-source-changed');
      console.log(JSON.stringify(calls));
      """
    let calls = try Self.runExtension(steps)
    #expect(calls.filter { $0.first as? String == "FocusChanged" }.count == 2, "at enabling and when the agent came")
    let layoutCalls = calls.filter { $0.first as? String == "LayoutChanged" }
    #expect(layoutCalls.allSatisfy { $0[1] as? String == "(sssssu)" })
    let played = layoutCalls.map { $0.dropFirst(2).map { "\($0)" } }
    #expect(
      played == [
        ["evdev", "pc105+inet", "de", "nodeadkeys", "compose:ralt", "0"],
        ["evdev", "pc105+inet", "jp", "", "compose:ralt", "0"],
        ["evdev", "pc105+inet", "jp", "", "grp:alt_shift_toggle,caps:escape", "0"],
        ["evdev", "pc104", "jp", "", "grp:alt_shift_toggle,caps:escape", "0"],
        ["evdev", "pc104", "jp", "", "grp:alt_shift_toggle,caps:escape", "0"],
      ])

    let bus = try PrivateBus()
    let bridge = try ShellBridge(desktop: .gnome, kwinScript: "/nonexistent", logger: Logger(label: "test"))
    var reports: [LayoutReport] = []
    bridge.onLayout = { reports.append($0) }
    for fields in played {
      #expect(try Self.play(Self.layoutChanged(Array(fields.dropLast()), group: 0), on: bus, to: bridge) == 0)
    }
    #expect(
      reports.map { [$0.model, $0.layout, $0.variant, $0.options] } == [
        ["pc105+inet", "de", "nodeadkeys", "compose:ralt"], ["pc105+inet", "jp", "", "compose:ralt"],
        ["pc105+inet", "jp", "", "grp:alt_shift_toggle,caps:escape"],
        ["pc104", "jp", "", "grp:alt_shift_toggle,caps:escape"],
      ])
    #expect(reports.allSatisfy { $0.source == "gnome-shell" && $0.rules == "evdev" && $0.group == 0 })
  }

  /// The extension's field reports, run by node against the fake shell as
  /// the input method's focus, content type and text change; then played
  /// to the agent.
  @Test func theExtensionReportsTheFocusedField() throws {
    let steps = """
      const reporter = new FocusReporter();
      reporter.enable();
      runIdles();
      const set = (purpose, hints, text, cursor) => {
        Object.assign(inputMethod, {content_purpose: purpose, content_hints: hints, text: [text, cursor]});
        inputMethod.emit('surrounding-text-set');
        runIdles();
      };
      // What mutter 43 gave for GTK's entry: the cursor a byte offset.
      inputMethod._currentFocus = {};
      set(0, 0, 'Grüße 😀. Thanks', 20);
      set(0, 0, 'Grüße 😀. Thanks', 20);
      set(8, 192, '●●●', 9);
      set(0, 0, 'Grüße', 3);
      set(0, 0, 'abc', 9);
      set(99, 0, 'abc', 3);
      set(0, 0, 'x'.repeat(300), 300);
      inputMethod._currentFocus = null;
      runIdles();
      // An Xwayland window's password field: IBus's.
      global.display.focus_window = windowOf(Meta.WindowClientType.X11);
      ibus.emit('set-content-type', 8, 0);
      ibus.emit('focus-in');
      runIdles();
      ibus.emit('focus-out');
      runIdles();
      // The Shell's own IBus context, as a Wayland window's field comes and
      // goes: its focus-in while the Shell's text input has the focus, or
      // its focus-out late, is no field of IBus's.
      global.display.focus_window = windowOf(Meta.WindowClientType.WAYLAND);
      inputMethod._currentFocus = {};
      ibus.emit('focus-in');
      inputMethod._currentFocus = null;
      runIdles();
      ibus.emit('focus-in');
      runIdles();
      ibus.emit('focus-out');
      runIdles();
      watchers[0]();
      runIdles();
      reporter.disable();
      inputMethod._currentFocus = {};
      set(0, 0, 'after', 5);
      console.log(JSON.stringify(calls.filter(call => call[0] === 'FieldChanged')));
      """
    let calls = try Self.runExtension(steps)
    #expect(calls.allSatisfy { $0[1] as? String == "(suubsb)" })
    let sent = calls.map { $0.dropFirst(2).map { "\($0)" } }
    let none = ["", "0", "0", "0", "", "0"]
    #expect(
      sent == [
        none, ["input-method", "0", "0", "1", "Grüße 😀. Thanks", "1"], ["input-method", "8", "192", "0", "", "0"],
        // A cursor inside a character or past the text: left out; a purpose
        // the extension does not know: no text.
        ["input-method", "99", "0", "0", "", "0"],
        ["input-method", "0", "0", "1", String(repeating: "x", count: 256), "0"],
        none, ["ibus", "8", "0", "0", "", "0"], none, none,
      ])

    let bus = try PrivateBus()
    let bridge = try ShellBridge(desktop: .gnome, kwinScript: "/nonexistent", logger: Logger(label: "test"))
    var reports: [FieldReport] = []
    bridge.onField = { reports.append($0) }
    for fields in sent {
      let booleans = fields.enumerated().map {
        [3, 5].contains($0.offset) ? ($0.element == "1" ? "true" : "false") : $0.element
      }
      let call =
        [ShellBridge.busName, ShellBridge.objectPath, ShellBridge.interface, "FieldChanged", "suubsb"] + booleans
      #expect(try Self.play(call, on: bus, to: bridge) == 0)
    }
    let source = "gnome-shell"
    #expect(
      reports == [
        FieldReport(source: source),
        FieldReport(source: source, role: .entry, before: "Grüße 😀. Thanks", isFieldStart: true),
        FieldReport(source: source, role: .password),
        FieldReport(source: source, role: .entry, before: String(repeating: "x", count: 256)),
        FieldReport(source: source), FieldReport(source: source, role: .password), FieldReport(source: source),
      ], "the unknown purpose is left out, and the same report twice is one")
  }

  /// Each form of the extension gives the reporter GNOME's keyboard and IBus modules.
  @Test(arguments: ["desktop/gnome-shell/legacy.js", "desktop/gnome-shell/modern.js"])
  func eachFormOfTheExtensionImportsTheShellsModules(path: String) throws {
    let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent()
    let script = try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
    #expect(script.contains("imports.ui.status.keyboard") || script.contains("ui/status/keyboard.js"))
    #expect(script.contains("imports.misc.ibusManager") || script.contains("misc/ibusManager.js"))
    let reporter = try String(
      contentsOf: repository.appendingPathComponent("desktop/gnome-shell/reporter.js"), encoding: .utf8)
    #expect(reporter.contains("'LayoutChanged'") && reporter.contains("'(sssssu)'"))
  }

  /// KWin's org.kde.keyboard on /Layouts: its layouts and the current
  /// one, changed by lines on its standard input: `layout N` (then
  /// layoutChanged), `list us,de N` (a new list and, silently, the current
  /// layout; then layoutListChanged).
  final class FakeKeyboardService {
    static let script = """
      import sys
      from gi.repository import Gio, GLib
      state = {"layouts": sys.argv[1].split(","), "current": int(sys.argv[2])}
      XML = \"\"\"<node><interface name="org.kde.KeyboardLayouts">
        <method name="getLayout"><arg type="u" direction="out"/></method>
        <method name="getLayoutsList"><arg type="a(sss)" direction="out"/></method>
        <signal name="layoutChanged"><arg type="u"/></signal>
        <signal name="layoutListChanged"/>
      </interface></node>\"\"\"
      def method_call(connection, sender, path, interface, method, parameters, invocation):
          if method == "getLayout":
              invocation.return_value(GLib.Variant("(u)", (state["current"],)))
          else:
              names = [(name, name.upper(), "Long " + name) for name in state["layouts"]]
              invocation.return_value(GLib.Variant("(a(sss))", (names,)))
      def command(channel, condition):
          words = sys.stdin.readline().split()
          if not words:
              loop.quit()
              return False
          if words[0] == "layout":
              state["current"] = int(words[1])
              bus.emit_signal(None, "/Layouts", "org.kde.KeyboardLayouts", "layoutChanged",
                              GLib.Variant("(u)", (state["current"],)))
          else:
              state["layouts"], state["current"] = words[1].split(","), int(words[2])
              bus.emit_signal(None, "/Layouts", "org.kde.KeyboardLayouts", "layoutListChanged", None)
          bus.flush_sync(None)
          return True
      bus = Gio.bus_get_sync(Gio.BusType.SESSION, None)
      bus.register_object("/Layouts", Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0], method_call, None, None)
      Gio.bus_own_name_on_connection(bus, "org.kde.keyboard", Gio.BusNameOwnerFlags.NONE,
                                     lambda *_: print("ready", flush=True), None)
      GLib.io_add_watch(GLib.IOChannel.unix_new(0), GLib.IO_IN | GLib.IO_HUP, command)
      loop = GLib.MainLoop()
      loop.run()
      """
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()

    init(layouts: String, current: Int) throws {
      process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
      process.arguments = ["-c", Self.script, layouts, "\(current)"]
      process.standardInput = input
      process.standardOutput = output
      try process.run()
      var line = Data()
      while !line.contains(UInt8(ascii: "\n")) {
        let chunk = output.fileHandleForReading.availableData
        if chunk.isEmpty { break }
        line.append(chunk)
      }
    }

    func send(_ command: String) { input.fileHandleForWriting.write(Data((command + "\n").utf8)) }

    /// Stops the service: its name goes.
    func stop() {
      kill(process.processIdentifier, SIGKILL)
      process.waitUntilExit()
    }

    deinit { if process.isRunning { stop() } }
  }

  @Test func kwinsLayoutsBecomeReports() throws {
    let bus = try PrivateBus()
    let config = "/tmp/vkbd-kxkbrc-test-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    mkdir(config, 0o700)
    let saved = getenv("XDG_CONFIG_HOME").map { String(cString: $0) }
    setenv("XDG_CONFIG_HOME", config, 1)
    defer {
      if let saved { setenv("XDG_CONFIG_HOME", saved, 1) } else { unsetenv("XDG_CONFIG_HOME") }
      unlink(config + "/kxkbrc")
      rmdir(config)
    }
    func write(_ kxkbrc: String) throws {
      try kxkbrc.write(toFile: config + "/kxkbrc", atomically: true, encoding: .utf8)
    }

    // KWin 5 with one layout serves no org.kde.keyboard: kxkbrc tells.
    try write("[Layout]\nLayoutList=de\nModel=pc105\nUse=true\nVariantList=nodeadkeys\n")
    let bridge = try ShellBridge(desktop: .kde, kwinScript: "/nonexistent", logger: Logger(label: "test"))
    var reports: [LayoutReport] = []
    bridge.onLayout = { reports.append($0) }
    try pump(bridge) { !reports.isEmpty }
    #expect(
      reports.last == LayoutReport(source: "kwin", model: "pc105", layout: "de", variant: "nodeadkeys", group: 0))

    // A second layout: the service comes, the second layout current.
    try write(
      """
      [Layout]
      DisplayNames=,
      LayoutList=us,de
      Model=pc105
      Options=grp:alt_shift_toggle,compose:ralt
      ResetOldOptions=true
      Use=true
      VariantList=,nodeadkeys

      [Other]
      LayoutList=fr
      """)
    let service = try FakeKeyboardService(layouts: "us,de", current: 1)
    try pump(bridge) { reports.count >= 2 }
    #expect(
      reports.last
        == LayoutReport(
          source: "kwin", model: "pc105", layout: "us,de", variant: ",nodeadkeys",
          options: "grp:alt_shift_toggle,compose:ralt", group: 1))

    service.send("layout 0")
    try pump(bridge) { reports.count >= 3 }
    #expect(reports.last?.group == 0 && reports.last?.layout == "us,de")

    // A third layout; KWin's current layout moves without layoutChanged.
    try write("[Layout]\nLayoutList=us,de,fr\nOptions=caps:escape\nVariantList=,nodeadkeys,\n")
    service.send("list us,de,fr 2")
    try pump(bridge) { reports.count >= 4 }
    #expect(
      reports.last
        == LayoutReport(source: "kwin", model: "pc104", layout: "us,de,fr", variant: ",nodeadkeys,", group: 2),
      "options only with ResetOldOptions=true; pc104 by default")

    // No kxkbrc: KWin's names of its layouts.
    unlink(config + "/kxkbrc")
    service.send("list gb,fr 1")
    try pump(bridge) { reports.count >= 5 }
    #expect(reports.last == LayoutReport(source: "kwin", model: "pc104", layout: "gb,fr", group: 1))

    service.send("layout 1")
    try pump(bridge, seconds: 0.3) { false }
    #expect(reports.count == 5, "the same layout again is not reported")

    // Back to one layout: KWin 5 drops the service.
    try write("[Layout]\nLayoutList=gb\n")
    service.stop()
    try pump(bridge) { reports.count >= 6 }
    #expect(reports.last == LayoutReport(source: "kwin", model: "pc104", layout: "gb", group: 0))
    // The KDE bridge serves no LayoutChanged.
    #expect(try Self.play(Self.layoutChanged(["evdev", "pc105", "us", "", ""], group: 0), on: bus, to: bridge) != 0)
  }
}
