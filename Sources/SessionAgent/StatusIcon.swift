import AgentProtocol
import CSystemd
import Glibc
import LinuxSystem
import Logging
import SystemPackage

/// The status icon: a StatusNotifierItem (what KDE Plasma, waybar and
/// GNOME Shell with the AppIndicator extension show), with a menu over
/// com.canonical.dbusmenu. It shows whether the daemon runs or is paused;
/// a click opens its menu, which pauses or resumes, reloads,
/// opens the snippet picker (where this session shows it), the config file
/// and its manual. It is there while the daemon counts this agent, and
/// gone with the daemon: the icon has a connection to the session bus of
/// its own while it is shown, registered by its object path, and closing
/// that connection takes it out of every tray (which all follow the
/// sender). Nothing here waits: the registration and the replies go out
/// asynchronously, on the agent's loop.
final class StatusIcon: Reconnecting {
  static let itemPath = "/StatusNotifierItem"
  static let menuPath = "/MenuBar"
  static let itemInterface = "org.kde.StatusNotifierItem"
  static let menuInterface = "com.canonical.dbusmenu"
  static let watcher = "org.kde.StatusNotifierWatcher"

  private let loop: EventLoop
  private let logger: Logger
  /// Whether the menu offers the picker: this session can show it.
  private let hasPicker: Bool
  /// Takes what the user asked of the daemon.
  var onCommand: (DaemonCommand.Command) -> Void = { _ in }
  var onDescriptorChange: () -> Void = {}
  /// The icon's connection while it is shown.
  private var bus: SessionBus?
  /// The daemon's state as its last event told; nil: no icon.
  private(set) var state: DaemonEvent?
  /// The reload that failed last, until one succeeds.
  private var reloadProblem: String?
  private var slots: [OpaquePointer?] = []
  /// The menu's revision, one up at every change of its items.
  private var revision: UInt32 = 1
  /// Why the icon could not be shown, logged once.
  private var lastFailure: String?

  init(hasPicker: Bool, loop: EventLoop, logger: Logger) {
    self.hasPicker = hasPicker
    self.loop = loop
    self.logger = logger
  }

  deinit { hide() }

  var pollFD: FileDescriptor? { bus?.pollFD }
  func beforeWait() { bus?.beforeWait() }
  func readable() throws(AgentExit) { try bus?.readable() }

  /// Shows the icon as the daemon's `event` says, or updates it.
  func show(_ event: DaemonEvent) {
    let old = state
    state = event
    switch event.event {
    case .reloadFailed: reloadProblem = event.problems?.first ?? "the config did not load"
    case .reloaded: reloadProblem = nil
    default: break
    }
    guard old != nil else { return register() }
    if old?.isPaused != event.isPaused {
      revision += 1
      emit(Self.itemPath, Self.itemInterface, "NewIcon", [])
      emit(Self.itemPath, Self.itemInterface, "NewStatus", [.string(status)])
      emit(Self.menuPath, Self.menuInterface, "LayoutUpdated", [.uint32(revision), .int32(0)])
    }
    emit(Self.itemPath, Self.itemInterface, "NewToolTip", [])
  }

  /// Takes the icon away: the daemon went, or no longer counts this agent.
  func hide() {
    state = nil
    reloadProblem = nil
    for slot in slots { sd_bus_slot_unref(slot) }
    slots = []
    guard let old = bus else { return }
    bus = nil
    withExtendedLifetime(old) { onDescriptorChange() }  // before its fd closes
  }

  /// Connects, serves the item and its menu, and tells the watcher; again
  /// whenever a watcher appears.
  private func register() {
    let bus: SessionBus
    do {
      bus = try SessionBus(loop: loop)
    } catch {
      if error.message != lastFailure { logger.notice("no status icon: \(error.message)") }
      lastFailure = error.message
      return
    }
    self.bus = bus
    let context = Unmanaged.passUnretained(self).toOpaque()
    var slot: OpaquePointer?
    if sd_bus_add_object(bus.bus, &slot, Self.itemPath, Self.methodCall, context) >= 0 { slots.append(slot) }
    if sd_bus_add_object(bus.bus, &slot, Self.menuPath, Self.methodCall, context) >= 0 { slots.append(slot) }
    let watcherAppears =
      "type='signal',sender='org.freedesktop.DBus',interface='org.freedesktop.DBus',member='NameOwnerChanged',"
      + "arg0='\(Self.watcher)'"
    if sd_bus_add_match_async(bus.bus, &slot, watcherAppears, Self.watcherChanged, nil, context) >= 0 {
      slots.append(slot)
    }
    onDescriptorChange()
    registerWithWatcher()
  }

  private func registerWithWatcher() {
    guard let bus else { return }
    DBus.callAsync(
      bus.bus, Self.watcher, "/StatusNotifierWatcher", Self.watcher, "RegisterStatusNotifierItem",
      [.string(Self.itemPath)], timeout: Notifier.callTimeout
    ) { [weak self] result in
      guard let self else { return }
      switch result {
      case .success: lastFailure = nil
      case .failure(let error):
        if error.description != lastFailure {
          logger.info("no status icon shown yet: \(error.description) (it is when a tray appears)")
        }
        lastFailure = error.description
      }
    }
  }

  private static let watcherChanged: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let context else { return 0 }
    let icon = Unmanaged<StatusIcon>.fromOpaque(context).takeUnretainedValue()
    // NameOwnerChanged(name, old owner, new owner): a new owner is a new watcher.
    if let names = DBus.readStrings(message, count: 3), !names[2].isEmpty, icon.state != nil {
      icon.registerWithWatcher()
    }
    return 0
  }

  // MARK: - What the item and the menu say

  private var isPaused: Bool { state?.isPaused ?? false }
  private var status: String { reloadProblem == nil ? "Active" : "NeedsAttention" }
  private var iconName: String { isPaused ? "media-playback-pause" : "input-keyboard" }

  private var toolTip: (title: String, text: String) {
    guard let state else { return ("vkbd", "") }
    var lines = ["layout \(state.layout)"]
    if let app = state.app, !app.isEmpty { lines.append("app \(app)" + (state.rule.map { ", rule \($0)" } ?? "")) }
    if let reloadProblem { lines.append("the config did not load: \(reloadProblem)") }
    return ("vkbd \(isPaused ? "paused" : "running")", lines.joined(separator: "\n"))
  }

  private var itemProperties: [(String, String, DBus.Argument)] {
    let tip = toolTip
    return [
      ("Category", "s", .string("ApplicationStatus")), ("Id", "s", .string("vkbd")), ("Title", "s", .string("vkbd")),
      ("Status", "s", .string(status)), ("IconName", "s", .string(iconName)),
      ("AttentionIconName", "s", .string("dialog-warning")), ("IconThemePath", "s", .string("")),
      // What GNOME's AppIndicator extension reads again at each New… signal.
      ("IconPixmap", "a(iiay)", .array("(iiay)", [])), ("AttentionIconPixmap", "a(iiay)", .array("(iiay)", [])),
      ("OverlayIconName", "s", .string("")), ("OverlayIconPixmap", "a(iiay)", .array("(iiay)", [])),
      ("IconAccessibleDesc", "s", .string(tip.title)), ("AttentionAccessibleDesc", "s", .string(tip.title)),
      ("ItemIsMenu", "b", .bool(true)), ("Menu", "o", .objectPath(Self.menuPath)), ("WindowId", "i", .int32(0)),
      (
        "ToolTip", "(sa(iiay)ss)",
        .structure("sa(iiay)ss", [.string(iconName), .array("(iiay)", []), .string(tip.title), .string(tip.text)])
      ),
    ]
  }

  private var menuProperties: [(String, String, DBus.Argument)] {
    [
      ("Version", "u", .uint32(3)), ("TextDirection", "s", .string("ltr")), ("Status", "s", .string("normal")),
      ("IconThemePath", "as", .array("s", [])),
    ]
  }

  /// The menu's items: id, label (empty: a separator), enabled.
  enum Item: Int32, CaseIterable {
    case pause = 1, reload, picker, separator, configFile, manual
  }

  private func label(_ item: Item) -> String {
    switch item {
    case .pause: isPaused ? "Resume" : "Pause"
    case .reload: "Reload the configuration"
    case .picker: "Find a snippet…"
    case .separator: ""
    case .configFile: "Open the configuration file"
    case .manual: "Configuration manual (vkbd.yaml)"
    }
  }

  /// An item's properties: name, D-Bus type, value.
  private func properties(of item: Item) -> [(String, String, DBus.Argument)] {
    if item == .separator { return [("type", "s", .string("separator"))] }
    return [("label", "s", .string(label(item))), ("enabled", "b", .bool(item != .picker || (hasPicker && !isPaused)))]
  }

  private func itemLayout(_ item: Item) -> DBus.Argument {
    .structure(
      "ia{sv}av",
      [
        .int32(item.rawValue), .array("{sv}", properties(of: item).map { .property($0.0, $0.1, $0.2) }),
        .array("v", []),
      ])
  }

  private var rootLayout: DBus.Argument {
    let items = Item.allCases.filter { $0 != .picker || hasPicker }
    return .structure(
      "ia{sv}av",
      [
        .int32(0), .array("{sv}", [Self.rootProperty]),
        .array("v", items.map { .variant("(ia{sv}av)", itemLayout($0)) }),
      ])
  }

  /// The menu's root: an item whose children are the menu.
  private static let rootProperty = DBus.Argument.property("children-display", "s", .string("submenu"))

  /// A menu item was clicked.
  private func clicked(_ item: Item) {
    switch item {
    case .pause: onCommand(isPaused ? .resume : .pause)
    case .reload: onCommand(.reload)
    case .picker: onCommand(.picker)
    case .separator: break
    case .configFile:
      guard let config = state?.config, config.hasPrefix("/") else { return open("man:vkbd.yaml(5)") }
      open(config)
    case .manual: open("man:vkbd.yaml(5)")
    }
  }

  /// Opens a file or a man: URI with the desktop's application for it.
  private func open(_ target: String) {
    ProgramRun.start(
      ["xdg-open", target], capturingOutput: false, timeoutMicroseconds: 60_000_000, on: loop
    ) { [logger] result in
      if case .failure(let failure) = result { logger.notice("xdg-open \(target): \(failure)") }
    }
  }

  // MARK: - D-Bus

  private static let methodCall: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let context else { return 0 }
    let icon = Unmanaged<StatusIcon>.fromOpaque(context).takeUnretainedValue()
    guard icon.state != nil, let path = sd_bus_message_get_path(message).map({ String(cString: $0) }) else {
      return 0
    }
    return icon.answer(message, at: path)
  }

  /// Answers a call on the item or the menu; 0: not ours (sd-bus says so).
  private func answer(_ message: OpaquePointer, at path: String) -> Int32 {
    let isItem = path == Self.itemPath
    let interface = isItem ? Self.itemInterface : Self.menuInterface
    let own = isItem ? itemProperties : menuProperties
    func called(_ member: String, on name: String = interface) -> Bool {
      sd_bus_message_is_method_call(message, name, member) > 0
    }
    let propertiesInterface = "org.freedesktop.DBus.Properties"
    if called("Get", on: propertiesInterface) {
      guard let names = DBus.readStrings(message, count: 2), let found = own.first(where: { $0.0 == names[1] })
      else { return sd_bus_reply_method_errno(message, EINVAL, nil) }
      return DBus.reply(to: message, [.variant(found.1, found.2)])
    }
    if called("GetAll", on: propertiesInterface) {
      return DBus.reply(to: message, [.array("{sv}", own.map { .property($0.0, $0.1, $0.2) })])
    }
    if called("Introspect", on: "org.freedesktop.DBus.Introspectable") {
      return DBus.reply(to: message, [.string(isItem ? Self.itemIntrospection : Self.menuIntrospection)])
    }
    if isItem {
      // Activate is left to sd-bus's "unknown method": Plasma then opens
      // the menu, as waybar does for ItemIsMenu and GNOME on any click.
      if called("SecondaryActivate") || called("ContextMenu") || called("Scroll") { return DBus.reply(to: message, []) }
      return 0
    }
    if called("GetLayout") {
      return DBus.reply(to: message, [.uint32(revision), rootLayout])
    }
    if called("GetGroupProperties") {
      // Every id asked for, the root (0) among them, which libdbusmenu asks for too.
      let ids = DBus.readInt32Array(message) ?? []
      let items = Item.allCases.filter { (ids.isEmpty || ids.contains($0.rawValue)) && ($0 != .picker || hasPicker) }
      var entries: [DBus.Argument] = items.map { item in
        .structure(
          "ia{sv}", [.int32(item.rawValue), .array("{sv}", properties(of: item).map { .property($0.0, $0.1, $0.2) })])
      }
      if ids.isEmpty || ids.contains(0) {
        entries.insert(.structure("ia{sv}", [.int32(0), .array("{sv}", [Self.rootProperty])]), at: 0)
      }
      return DBus.reply(to: message, [.array("(ia{sv})", entries)])
    }
    if called("Event") {
      if let id = DBus.readInt32(message), let event = DBus.readString(message), event == "clicked",
        let item = Item(rawValue: id)
      {
        clicked(item)
      }
      return DBus.reply(to: message, [])
    }
    if called("EventGroup") {
      // a(isvu): each event's id and name; the data and time are not needed.
      var unknown: [DBus.Argument] = []
      if sd_bus_message_enter_container(message, DBus.type("a"), "(isvu)") > 0 {
        while sd_bus_message_enter_container(message, DBus.type("r"), "isvu") > 0 {
          if let id = DBus.readInt32(message), let event = DBus.readString(message) {
            if let item = Item(rawValue: id) {
              if event == "clicked" { clicked(item) }
            } else {
              unknown.append(.int32(id))
            }
          }
          _ = sd_bus_message_skip(message, "vu")
          _ = sd_bus_message_exit_container(message)
        }
      }
      return DBus.reply(to: message, [.array("i", unknown)])
    }
    if called("AboutToShow") { return DBus.reply(to: message, [.bool(false)]) }
    if called("AboutToShowGroup") { return DBus.reply(to: message, [.array("i", []), .array("i", [])]) }
    if called("GetProperty") {
      guard let id = DBus.readInt32(message), let name = DBus.readString(message), let item = Item(rawValue: id),
        let found = properties(of: item).first(where: { $0.0 == name })
      else { return sd_bus_reply_method_errno(message, EINVAL, nil) }
      return DBus.reply(to: message, [.variant(found.1, found.2)])
    }
    return 0
  }

  private func emit(_ path: String, _ interface: String, _ member: String, _ arguments: [DBus.Argument]) {
    if let bus { DBus.emit(bus.bus, path, interface, member, arguments) }
  }

  private static let itemIntrospection = """
    <node><interface name="org.kde.StatusNotifierItem">\
    <property name="Category" type="s" access="read"/><property name="Id" type="s" access="read"/>\
    <property name="Title" type="s" access="read"/><property name="Status" type="s" access="read"/>\
    <property name="IconName" type="s" access="read"/><property name="AttentionIconName" type="s" access="read"/>\
    <property name="IconThemePath" type="s" access="read"/><property name="ItemIsMenu" type="b" access="read"/>\
    <property name="Menu" type="o" access="read"/><property name="WindowId" type="i" access="read"/>\
    <property name="ToolTip" type="(sa(iiay)ss)" access="read"/>\
    <method name="SecondaryActivate"><arg type="i" direction="in"/><arg type="i" direction="in"/></method>\
    <method name="ContextMenu"><arg type="i" direction="in"/><arg type="i" direction="in"/></method>\
    <method name="Scroll"><arg type="i" direction="in"/><arg type="s" direction="in"/></method>\
    <signal name="NewIcon"/><signal name="NewToolTip"/><signal name="NewStatus"><arg type="s"/></signal>\
    </interface></node>
    """

  private static let menuIntrospection = """
    <node><interface name="com.canonical.dbusmenu">\
    <property name="Version" type="u" access="read"/><property name="TextDirection" type="s" access="read"/>\
    <property name="Status" type="s" access="read"/><property name="IconThemePath" type="as" access="read"/>\
    <method name="GetLayout"><arg type="i" direction="in"/><arg type="i" direction="in"/>\
    <arg type="as" direction="in"/><arg type="u" direction="out"/><arg type="(ia{sv}av)" direction="out"/></method>\
    <method name="GetGroupProperties"><arg type="ai" direction="in"/><arg type="as" direction="in"/>\
    <arg type="a(ia{sv})" direction="out"/></method>\
    <method name="GetProperty"><arg type="i" direction="in"/><arg type="s" direction="in"/>\
    <arg type="v" direction="out"/></method>\
    <method name="Event"><arg type="i" direction="in"/><arg type="s" direction="in"/><arg type="v" direction="in"/>\
    <arg type="u" direction="in"/></method>\
    <method name="EventGroup"><arg type="a(isvu)" direction="in"/><arg type="ai" direction="out"/></method>\
    <method name="AboutToShow"><arg type="i" direction="in"/><arg type="b" direction="out"/></method>\
    <method name="AboutToShowGroup"><arg type="ai" direction="in"/><arg type="ai" direction="out"/>\
    <arg type="ai" direction="out"/></method>\
    <signal name="LayoutUpdated"><arg type="u"/><arg type="i"/></signal>\
    <signal name="ItemsPropertiesUpdated"><arg type="a(ia{sv})"/><arg type="a(ias)"/></signal>\
    </interface></node>
    """
}
