import AgentProtocol
import CSystemd
import Glibc
import LinuxSystem
import Logging
import SystemPackage

/// The focused text field of IBus's clients (GTK's IBus module, Qt's,
/// Firefox and Chromium on X11), from ibus-daemon's own bus, without text:
/// the agent takes the accessibility bus's for that. IBus keeps a field's
/// content type write-only and sends its signals to the client alone, but
/// its bus passes every message to whoever added a matching rule: the agent
/// follows the clients' calls to their input contexts, `FocusIn`,
/// `FocusOut`, and the `ContentType` property they set (IBus's purposes are
/// GTK's, ``ContentType/ibus(purpose:hints:)``). The calls are not the
/// agent's to answer: a filter takes them before sd-bus would.
///
/// When ibus-daemon goes away, the source says no field and tries again
/// every few seconds, so that a restarted daemon is followed.
final class IBusSource: FieldSource, Reconnecting {
  let name = "ibus"
  /// Chromium gives its password fields IBus's free-form purpose.
  let freeFormMayBeSecret = true
  /// How long the source waits between tries while IBus is away (µs).
  static let retryInterval: Int64 = 5_000_000
  static let inputContext = "org.freedesktop.IBus.InputContext"

  private var bus: OpaquePointer?
  private var slots: [OpaquePointer?] = []
  private let loop: EventLoop
  private let logger: Logger
  private var retry: ScheduledTimer?
  /// Each input context's content type, as its client set it last.
  private var contentTypes: [String: (purpose: UInt32, hints: UInt32)] = [:]
  /// The input context that has the focus, and its client's connection.
  private var focused: (path: String, client: String)?
  private var lastReport: FieldReport?
  private var loggedUnknownPurpose = false
  var onField: (FieldReport) -> Void = { _ in }
  var onDescriptorChange: () -> Void = {}

  /// Connects to the session's ibus-daemon; throws when none runs.
  init(loop: EventLoop, logger: Logger) throws(AgentExit) {
    self.loop = loop
    self.logger = logger
    try connect()
  }

  deinit { disconnect() }

  var pollFD: FileDescriptor? { bus.map { FileDescriptor(rawValue: sd_bus_get_fd($0)) } }
  var isConnected: Bool { bus != nil }

  func beforeWait() {
    drain()
    if let bus { _ = sd_bus_flush(bus) }
  }

  func readable() throws(AgentExit) { drain() }

  /// The address of the session's ibus-daemon, as IBus's clients find it:
  /// IBUS_ADDRESS, else the file IBus writes for the display
  /// (``addressFile()``), if the daemon it names still runs.
  static func address() -> String? {
    if let address = getenv("IBUS_ADDRESS").map({ String(cString: $0) }), !address.isEmpty { return address }
    guard let path = addressFile(), let text = try? Files.readText(path, limit: 65536) else { return nil }
    var address: String?
    var pid: pid_t?
    for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
      if line.hasPrefix("IBUS_ADDRESS=") { address = String(line.dropFirst("IBUS_ADDRESS=".count)) }
      if line.hasPrefix("IBUS_DAEMON_PID=") { pid = pid_t(line.dropFirst("IBUS_DAEMON_PID=".count)) }
    }
    guard let pid, kill(pid, 0) == 0 else { return nil }
    return address
  }

  /// IBUS_ADDRESS_FILE, else the file IBus writes for this display.
  static func addressFile() -> String? {
    let variable = { (name: String) in getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 } }
    if let file = variable("IBUS_ADDRESS_FILE") { return file }
    let machine = ["/var/lib/dbus/machine-id", "/etc/machine-id"].lazy
      .compactMap { try? Files.readText($0, limit: 256) }.first?.split(whereSeparator: \.isNewline).first
    guard let machine, let config = KConfig.path("ibus") else { return nil }
    return addressFile(
      in: config, machine: String(machine), wayland: variable("WAYLAND_DISPLAY"), x11: variable("DISPLAY"))
  }

  /// `CONFIG/bus/MACHINE-HOST-DISPLAY`: the Wayland display's name, or the
  /// X display's host (`unix` when none) and number, as IBus names it.
  static func addressFile(in config: String, machine: String, wayland: String?, x11: String?) -> String {
    var host = "unix"
    var display = "0"
    if let wayland {
      display = wayland
    } else if let x11, let colon = x11.firstIndex(of: ":") {
      if colon != x11.startIndex { host = String(x11[..<colon]) }
      display = String(x11[x11.index(after: colon)...].prefix { $0 != "." })
    }
    return "\(config)/bus/\(machine)-\(host)-\(display)"
  }

  // MARK: - The connection

  private func connect() throws(AgentExit) {
    guard let address = Self.address() else { throw AgentExit.unavailable("no ibus-daemon runs for this display") }
    var bus: OpaquePointer?
    var status = sd_bus_new(&bus)
    guard status >= 0, let bus else { throw AgentExit.unavailable("sd_bus_new: \(DBus.message(status))") }
    self.bus = bus
    status = sd_bus_set_address(bus, address)
    _ = sd_bus_set_bus_client(bus, 1)
    if status >= 0 { status = sd_bus_start(bus) }
    guard status >= 0 else {
      disconnect()
      throw AgentExit.unavailable("cannot connect to IBus's bus: \(DBus.message(status))")
    }
    let context = Unmanaged.passUnretained(self).toOpaque()
    var slot: OpaquePointer?
    status = sd_bus_add_filter(bus, &slot, Self.filter, context)
    slots.append(slot)
    let rules = [
      "type='method_call',interface='\(Self.inputContext)',member='FocusIn'",
      "type='method_call',interface='\(Self.inputContext)',member='FocusOut'",
      "type='method_call',interface='org.freedesktop.DBus.Properties',member='Set',arg0='\(Self.inputContext)'",
      "type='method_call',interface='org.freedesktop.IBus.Service',member='Destroy'",
      "type='signal',interface='org.freedesktop.DBus',member='NameOwnerChanged'",
    ]
    for rule in rules where status >= 0 {
      // The filter reads them all.
      status = sd_bus_add_match(bus, &slot, rule, { _, _, _ in 0 }, nil)
      slots.append(slot)
    }
    guard status >= 0 else {
      disconnect()
      throw AgentExit.unavailable("IBus's bus refused a match: \(DBus.message(status))")
    }
  }

  /// Gives the connection up; the loop, if `notifying`, forgets its fd
  /// before it is closed.
  private func disconnect(notifying: Bool = false) {
    for slot in slots { sd_bus_slot_unref(slot) }
    slots = []
    let closing = bus
    bus = nil
    if notifying { onDescriptorChange() }
    sd_bus_flush_close_unref(closing)
  }

  /// Handles every message sd-bus has read. When the bus closes (IBus
  /// went away), no field, and a try again later.
  private func drain() {
    while let bus {
      let status = sd_bus_process(bus, nil)
      if status > 0 { continue }
      if status < 0 {
        logger.notice("IBus's bus closed (\(DBus.message(status))): trying again every few seconds")
        disconnect(notifying: true)
        contentTypes = [:]
        focused = nil
        report(FieldReport(source: name))
        scheduleRetry()
      }
      return
    }
  }

  private func scheduleRetry() {
    retry = loop.schedule(at: monotonicMicroseconds() + Self.retryInterval) { [unowned self] in
      retry = nil
      do {
        try connect()
        logger.notice("following IBus's bus again")
        onDescriptorChange()
      } catch {
        scheduleRetry()
      }
    }
  }

  // MARK: - The clients' calls

  /// The calls and signals the rules ask for; 1 (handled) for the calls,
  /// which are ibus-daemon's to answer.
  private static let filter: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let context else { return 0 }
    let source = Unmanaged<IBusSource>.fromOpaque(context).takeUnretainedValue()
    let path = sd_bus_message_get_path(message).map { String(cString: $0) } ?? ""
    let client = sd_bus_message_get_sender(message).map { String(cString: $0) } ?? ""
    let destroyed = sd_bus_message_is_method_call(message, "org.freedesktop.IBus.Service", "Destroy") > 0
    if sd_bus_message_is_method_call(message, inputContext, "FocusIn") > 0 {
      source.focused = (path, client)
      source.reportFocused()
    } else if destroyed || sd_bus_message_is_method_call(message, inputContext, "FocusOut") > 0 {
      if destroyed { source.contentTypes[path] = nil }
      guard source.focused?.path == path else { return 1 }
      source.focused = nil
      source.report(FieldReport(source: source.name))
    } else if sd_bus_message_is_method_call(message, "org.freedesktop.DBus.Properties", "Set") > 0 {
      guard let names = DBus.readStrings(message, count: 2), names[1] == "ContentType",
        sd_bus_message_enter_container(message, DBus.type("v"), "(uu)") > 0,
        sd_bus_message_enter_container(message, DBus.type("r"), "uu") > 0,
        let purpose = DBus.readUInt32(message), let hints = DBus.readUInt32(message)
      else { return 1 }
      source.contentTypes[path] = (purpose, hints)
      if source.focused?.path == path { source.reportFocused() }
    } else if sd_bus_message_is_signal(message, "org.freedesktop.DBus", "NameOwnerChanged") > 0 {
      // A client that goes takes its input contexts with it.
      guard let names = DBus.readStrings(message, count: 3), names[2].isEmpty, source.focused?.client == names[0]
      else { return 0 }
      source.focused = nil
      source.report(FieldReport(source: source.name))
      return 0
    } else {
      return 0
    }
    return 1
  }

  /// The focused context's field: free form (a context that set no content
  /// type) is text; a purpose IBus does not know keeps the last report.
  private func reportFocused() {
    guard let focused else { return }
    let type = contentTypes[focused.path] ?? (0, 0)
    guard let role = ContentType.ibus(purpose: type.purpose, hints: type.hints) else {
      if !loggedUnknownPurpose {
        loggedUnknownPurpose = true
        logger.notice("an IBus client set a purpose this agent does not know (a newer IBus?): the last field stays")
      }
      return
    }
    var field = FieldReport(source: name, role: role)
    if !field.isSecret { field.takeIBusHints(type.hints) }
    report(field, hints: type.hints)
  }

  private func report(_ report: FieldReport, hints: UInt32 = 0) {
    guard report != lastReport else { return }
    lastReport = report
    logger.debug("text field", metadata: ["role": "\(report.role?.rawValue ?? "none")", "hints": "\(hints)"])
    onField(report)
  }
}
