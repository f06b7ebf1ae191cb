import AgentProtocol
import CSystemd
import Glibc
import LinuxSystem
import Logging
import SystemPackage

/// The focused window on GNOME Shell and KDE Plasma, whose Wayland
/// sessions have no protocol for it: a GNOME Shell extension or a KWin
/// script (shipped with vkbd) calls this agent's D-Bus method on the
/// session bus at every focus change, through sd-bus:
///
///     io.github.vkbd.Agent1.FocusChanged(s window, s app, s instance, s title)
///
/// on the object /io/github/vkbd/Agent of the name io.github.vkbd.Agent.
/// On KDE the agent loads the KWin script itself (org.kde.kwin.Scripting);
/// on GNOME it enables the extension, which GNOME Shell loads at login.
///
/// It also follows the desktop's keyboard layout. The GNOME extension calls
///
///     io.github.vkbd.Agent1.LayoutChanged(s rules, s model, s layout,
///                                         s variant, s options, u group)
///
/// whenever the input source changes; on KDE the bridge asks KWin's
/// keyboard service (org.kde.keyboard) and reads kxkbrc (``KxkbConfig``).
///
/// It follows the focused text field as well: on GNOME the extension
/// calls
///
///     io.github.vkbd.Agent1.FieldChanged(s kind, u purpose, u hints,
///                                        b has_text, s before, b start)
///
/// from the Shell's input method and IBus's panel, on KDE the agent's own
/// part that KWin runs as its input method (``KWinInputMethod``), from
/// KWin's (``takeField(_:)``).
final class ShellBridge: FocusSource, LayoutSource, FieldSource {
  static let busName = "io.github.vkbd.Agent"
  static let objectPath = "/io/github/vkbd/Agent"
  static let interface = "io.github.vkbd.Agent1"
  static let gnomeExtension = "vkbd-focus@vkbd.github.io"
  static let kwinPlugin = "vkbd-focus"

  enum Desktop: String {
    case gnome = "gnome-shell"
    case kde = "kwin"
  }

  let desktop: Desktop
  var name: String { desktop.rawValue }
  /// The KWin script to load, on KDE.
  private let kwinScript: String
  private var bus: OpaquePointer?
  private var slot: OpaquePointer?
  let logger: Logger
  private var ids = WindowIDs<String>()
  /// Takes the focused window whenever the desktop reports it.
  var onFocus: (FocusReport) -> Void = { _ in }
  /// Takes the desktop's layout whenever it changes.
  var onLayout: (LayoutReport) -> Void = { _ in }
  /// Takes the focused text field whenever it changes.
  var onField: (FieldReport) -> Void = { _ in }
  /// The field reported last, and which bad reports were logged (once each).
  var lastField: FieldReport?
  var loggedBadFields: Set<String> = []
  private var lastLayout: LayoutReport?
  /// KDE: the signals followed, and what they told.
  private var layoutSlots: [OpaquePointer?] = []
  private var kdeLayout: LayoutReport?
  /// KDE: the layouts must be read again (at the start, after
  /// layoutListChanged, when KWin's keyboard service comes or goes).
  private var kdeLayoutStale = false

  /// Takes the agent's name on the session bus and serves its object;
  /// throws when there is no session bus or another agent has the name.
  init(desktop: Desktop, kwinScript: String, logger: Logger) throws(AgentExit) {
    self.desktop = desktop
    self.kwinScript = kwinScript
    self.logger = logger
    bus = try DBus.openSessionBus()
    var status = sd_bus_request_name(bus, Self.busName, 0)
    guard status >= 0 else {
      throw status == -EEXIST
        ? AgentExit.ended("another vkbd-agent serves this session (it has \(Self.busName))")
        : AgentExit.unavailable("cannot take the name \(Self.busName): \(DBus.message(status))")
    }
    status = sd_bus_add_object(bus, &slot, Self.objectPath, Self.methodCall, Unmanaged.passUnretained(self).toOpaque())
    guard status >= 0 else { throw AgentExit.unavailable("cannot serve \(Self.objectPath): \(DBus.message(status))") }
    if desktop == .kde { followKDELayouts() }
  }

  deinit {
    for layoutSlot in layoutSlots { sd_bus_slot_unref(layoutSlot) }
    sd_bus_slot_unref(slot)
    sd_bus_flush_close_unref(bus)
  }

  /// Makes the desktop report: loads the KWin script, or enables the GNOME
  /// Shell extension; either reports the focused window at once (the
  /// extension when it sees the agent's name appear). Throws when the
  /// desktop will not report: the agent would wait for nothing.
  func start() throws(AgentExit) {
    switch desktop {
    case .kde: try loadKWinScript(kwinScript)
    case .gnome: try enableGNOMEExtension()
    }
  }

  var pollFD: FileDescriptor? { FileDescriptor(rawValue: sd_bus_get_fd(bus)) }

  /// Handles what sd-bus already read (a call that came while the agent
  /// waited for a reply no longer makes the fd readable), reads KDE's
  /// layouts when they changed, then sends what is pending.
  func beforeWait() {
    while sd_bus_process(bus, nil) > 0 {}
    if kdeLayoutStale {
      kdeLayoutStale = false
      readKDELayouts()
    }
    _ = sd_bus_flush(bus)
  }

  func readable() throws(AgentExit) { try DBus.processSessionBus(bus) }

  /// Reads the bridge's methods; other calls get sd-bus's own answer.
  private static let methodCall: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let context else { return 0 }
    let bridge = Unmanaged<ShellBridge>.fromOpaque(context).takeUnretainedValue()
    if sd_bus_message_is_method_call(message, ShellBridge.interface, "FocusChanged") > 0 {
      guard let fields = DBus.readStrings(message, count: 4) else {
        return sd_bus_reply_method_errno(message, EINVAL, nil)
      }
      DBus.reply(to: message)
      bridge.take(window: fields[0], app: fields[1], instance: fields[2], title: fields[3])
      return 1
    }
    if sd_bus_message_is_method_call(message, ShellBridge.interface, "FieldChanged") > 0 {
      guard bridge.takeField(message) else { return sd_bus_reply_method_errno(message, EINVAL, nil) }
      DBus.reply(to: message)
      return 1
    }
    if bridge.desktop == .gnome, sd_bus_message_is_method_call(message, ShellBridge.interface, "LayoutChanged") > 0 {
      guard let fields = DBus.readStrings(message, count: 5), let group = DBus.readUInt32(message)
      else { return sd_bus_reply_method_errno(message, EINVAL, nil) }
      let layout = LayoutReport(
        source: bridge.name, rules: fields[0].isEmpty ? "evdev" : fields[0], model: fields[1], layout: fields[2],
        variant: fields[3], options: fields[4], group: Int(group))
      // The daemon would refuse it, and this agent with it.
      guard layout.isWellFormed else { return sd_bus_reply_method_errno(message, EINVAL, nil) }
      DBus.reply(to: message)
      bridge.take(layout)
      return 1
    }
    return 0
  }

  /// Emits one of the agent's signals, with a string or no argument.
  func emit(_ member: String, _ argument: String?) {
    DBus.emit(bus, Self.objectPath, Self.interface, member, argument.map { [.string($0)] } ?? [])
  }

  /// One report of the extension or the script. An empty window: nothing
  /// has the focus (the overview, the lock screen, no window left).
  private func take(window: String, app: String, instance: String, title: String) {
    guard !window.isEmpty else {
      onFocus(FocusReport(window: 0, app: ""))
      return
    }
    onFocus(
      FocusReport(
        window: ids.id(for: window), app: app, instance: instance.isEmpty || instance == app ? nil : instance,
        title: title))
  }

  /// A layout of the desktop; one equal to the last is dropped.
  private func take(_ layout: LayoutReport) {
    guard layout != lastLayout else { return }
    lastLayout = layout
    onLayout(layout)
  }

  // MARK: - KDE's layouts

  static let kdeKeyboard = "org.kde.keyboard"

  /// Follows KWin's keyboard service: layoutChanged(u) gives the group,
  /// layoutListChanged() new layouts, and the service's owner coming or
  /// going (KWin 5 serves it only for two layouts or more) may too.
  private func followKDELayouts() {
    let context = Unmanaged.passUnretained(self).toOpaque()
    var signals: OpaquePointer?
    // No sender: sd-bus cannot match a well-known name on its side.
    if sd_bus_match_signal(bus, &signals, nil, "/Layouts", "org.kde.KeyboardLayouts", nil, Self.kdeSignal, context)
      >= 0
    {
      layoutSlots.append(signals)
    }
    var owner: OpaquePointer?
    let match =
      "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
      + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(Self.kdeKeyboard)'"
    if sd_bus_add_match(bus, &owner, match, Self.kdeSignal, context) >= 0 { layoutSlots.append(owner) }
    kdeLayoutStale = true
  }

  private static let kdeSignal: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let context else { return 0 }
    let bridge = Unmanaged<ShellBridge>.fromOpaque(context).takeUnretainedValue()
    if sd_bus_message_is_signal(message, "org.kde.KeyboardLayouts", "layoutChanged") > 0,
      let group = DBus.readUInt32(message), var layout = bridge.kdeLayout,
      Int(group) < layout.layout.split(separator: ",", omittingEmptySubsequences: false).count
    {
      layout.group = Int(group)
      bridge.kdeLayout = layout
      bridge.take(layout)
    } else {
      // layoutListChanged, a new owner of the service, or a group beyond
      // the layouts known: read them all (before the next wait).
      bridge.kdeLayoutStale = true
    }
    return 0
  }

  /// Reads the layouts from kxkbrc, as KWin does, and the group from KWin;
  /// without kxkbrc (or its layouts) the layouts' names from KWin. KWin's
  /// answers come through the loop: nothing waits for them.
  private func readKDELayouts() {
    ask(Self.kdeKeyboard, "/Layouts", "org.kde.KeyboardLayouts", "getLayout", reading: DBus.readUInt32) {
      [weak self] group in
      guard let self else { return }
      var config = KxkbConfig.read() ?? KxkbConfig()
      let count = config.layouts.split(separator: ",", omittingEmptySubsequences: false).count
      guard config.layouts.isEmpty || Int(group ?? 0) >= count else {
        return reportKDELayouts(config, group: group.map(Int.init), count: count)
      }
      ask(Self.kdeKeyboard, "/Layouts", "org.kde.KeyboardLayouts", "getLayoutsList", reading: Self.readLayoutNames) {
        [weak self] names in
        guard let self, let names, !names.isEmpty else { return }
        config.layouts = names.joined(separator: ",")
        config.variants = ""
        reportKDELayouts(config, group: group.map(Int.init), count: names.count)
      }
    }
  }

  private func reportKDELayouts(_ config: KxkbConfig, group: Int?, count: Int) {
    let layout = LayoutReport(
      source: name, rules: "evdev", model: config.model, layout: config.layouts, variant: config.variants,
      options: config.options, group: min(group ?? 0, count - 1))
    guard layout.isWellFormed else {
      logger.notice("KDE's layouts are not XKB names: not reported")
      return
    }
    kdeLayout = layout
    take(layout)
  }

  /// getLayoutsList's a(sss): the short names (the XKB layouts).
  private static func readLayoutNames(_ reply: OpaquePointer) -> [String]? {
    guard sd_bus_message_enter_container(reply, DBus.type("a"), "(sss)") > 0 else { return nil }
    var names: [String] = []
    while sd_bus_message_enter_container(reply, DBus.type("r"), "sss") > 0 {
      guard let fields = DBus.readStrings(reply, count: 3) else { return nil }
      names.append(fields[0])
      sd_bus_message_exit_container(reply)
    }
    return names
  }

  // MARK: - Making the desktop report

  /// Loads the script into KWin (replacing one loaded before) and runs it;
  /// it reports the window that has the focus at once. KWin 6 puts a
  /// loaded script at /Scripting/ScriptN, KWin 5 at /N.
  private func loadKWinScript(_ path: String) throws(AgentExit) {
    guard access(path, R_OK) == 0 else {
      throw AgentExit.unavailable("the KWin script \(path) is missing: reinstall vkbd")
    }
    _ = call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "unloadScript", [Self.kwinPlugin]) { _ in () }
    guard
      let id = call(
        "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "loadScript", [path, Self.kwinPlugin],
        reading: DBus.readInt32), id >= 0
    else { throw AgentExit.unavailable("KWin did not load the script \(path) (is this a KDE Plasma session?)") }
    for object in ["/Scripting/Script\(id)", "/\(id)"]
    where call("org.kde.KWin", object, "org.kde.kwin.Script", "run", [], reading: { _ in () }) != nil {
      logger.info("KWin runs the focus script", metadata: ["script": "\(path)"])
      return
    }
    throw AgentExit.unavailable("KWin loaded the script \(path) but would not run it")
  }

  /// How long the agent waits, as it starts, for GNOME Shell to answer:
  /// at a login the agent may start before the shell serves its
  /// interface, which it does a second or two after it takes its name.
  static let shellStartWait: Int64 = 30_000_000

  /// Enables the extension if GNOME Shell knows it. It does only when it
  /// was installed before the login: GNOME Shell reads its extensions then.
  /// With user extensions switched off it enables none, though it says it did.
  /// A shell that does not answer yet is asked again for ``shellStartWait``.
  private func enableGNOMEExtension() throws(AgentExit) {
    func enable() -> Bool? {
      call(
        "org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions", "EnableExtension", [Self.gnomeExtension],
        reading: DBus.readBool)
    }
    var enabled = enable()
    if enabled == nil { logger.info("waiting for GNOME Shell to answer") }
    let deadline = monotonicMicroseconds() + Self.shellStartWait
    while enabled == nil && monotonicMicroseconds() < deadline {
      usleep(250_000)
      enabled = enable()
    }
    guard enabled == true else {
      throw AgentExit.unavailable(
        "GNOME Shell has not loaded the extension \(Self.gnomeExtension): install it (make install) and log in again")
    }
    let extensionsOn = call(
      "org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Properties", "Get",
      ["org.gnome.Shell.Extensions", "UserExtensionsEnabled"], reading: DBus.readVariant("b", DBus.readBool))
    guard extensionsOn != false else {
      throw AgentExit.unavailable(
        "GNOME Shell has extensions switched off: switch them on in the Extensions app "
          + "(or: gsettings set org.gnome.shell disable-user-extensions false)")
    }
    logger.info("the GNOME Shell extension is enabled", metadata: ["extension": "\(Self.gnomeExtension)"])
  }

  /// Calls a method without arguments and without waiting: `answer` gets
  /// the reply read, or nil on an error (logged at debug) or after 5 s.
  private func ask<Value>(
    _ destination: String, _ path: String, _ interface: String, _ member: String,
    reading read: @escaping (OpaquePointer) -> Value?, answer: @escaping (Value?) -> Void
  ) {
    DBus.ask(
      bus, destination, path, interface, member, timeout: 5_000_000, logger: logger, reading: read, answer: answer)
  }

  /// Calls a method with string arguments, waits (at most 5 s) for the
  /// reply and reads it; nil on an error. Only as the agent starts.
  private func call<Value>(
    _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [String],
    reading read: (OpaquePointer) -> Value?
  ) -> Value? {
    DBus.call(
      bus, destination, path, interface, member, arguments.map(DBus.Argument.string), timeout: 5_000_000,
      logger: logger, reading: read)
  }
}

/// KDE's keyboard settings: the [Layout] section of kxkbrc, which KWin
/// reads for its keymap (LayoutList, VariantList, Model, and Options when
/// ResetOldOptions is true).
struct KxkbConfig: Equatable {
  var layouts = ""
  var variants = ""
  var model = "pc104"
  var options = ""

  init() {}

  init(parsing text: String) {
    let entries = KConfig.entries(of: "Layout", in: text)
    layouts = entries["LayoutList"] ?? ""
    variants = entries["VariantList"] ?? ""
    if let model = entries["Model"], !model.isEmpty { self.model = model }
    if entries["ResetOldOptions"] == "true" { options = entries["Options"] ?? "" }
  }

  /// `$XDG_CONFIG_HOME/kxkbrc` (else `~/.config/kxkbrc`); nil when there is none.
  static func read() -> KxkbConfig? {
    guard let path = KConfig.path("kxkbrc"), let text = try? Files.readText(path) else { return nil }
    return KxkbConfig(parsing: text)
  }
}
