import AgentProtocol
import CSystemd
import Glibc
import Logging

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
final class ShellBridge: FocusSource {
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
  private let logger: Logger
  private var ids = WindowIDs<String>()
  /// Takes the focused window whenever the desktop reports it.
  var onFocus: (FocusReport) -> Void = { _ in }

  /// Takes the agent's name on the session bus and serves its object;
  /// throws when there is no session bus or another agent has the name.
  init(desktop: Desktop, kwinScript: String, logger: Logger) throws(AgentExit) {
    self.desktop = desktop
    self.kwinScript = kwinScript
    self.logger = logger
    var bus: OpaquePointer?
    var status = sd_bus_open_user(&bus)
    guard status >= 0, let bus else { throw AgentExit("cannot connect to the session bus: \(Self.message(status))") }
    self.bus = bus
    status = sd_bus_request_name(bus, Self.busName, 0)
    guard status >= 0 else {
      throw AgentExit(
        status == -EEXIST
          ? "another vkbd-agent serves this session (it has \(Self.busName))"
          : "cannot take the name \(Self.busName): \(Self.message(status))",
        status: status == -EEXIST ? 0 : 1)
    }
    status = sd_bus_add_object(bus, &slot, Self.objectPath, Self.methodCall, Unmanaged.passUnretained(self).toOpaque())
    guard status >= 0 else { throw AgentExit("cannot serve \(Self.objectPath): \(Self.message(status))") }
  }

  deinit {
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

  var pollFD: Int32? { sd_bus_get_fd(bus) }

  /// Handles what sd-bus already read (a call that came while the agent
  /// waited for a reply no longer makes the fd readable), then sends what
  /// is pending.
  func beforeWait() {
    while sd_bus_process(bus, nil) > 0 {}
    _ = sd_bus_flush(bus)
  }

  func readable() throws(AgentExit) {
    while true {
      let status = sd_bus_process(bus, nil)
      if status == 0 { return }
      guard status > 0 else { throw AgentExit("the session bus closed: \(Self.message(status))", status: 0) }
    }
  }

  /// Reads the bridge's one method; other calls get sd-bus's own answer.
  private static let methodCall: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let context,
      sd_bus_message_is_method_call(message, ShellBridge.interface, "FocusChanged") > 0
    else { return 0 }
    let bridge = Unmanaged<ShellBridge>.fromOpaque(context).takeUnretainedValue()
    var fields: [String] = []
    for _ in 0..<4 {
      var text: UnsafePointer<CChar>?
      guard sd_bus_message_read_basic(message, CChar(UInt8(ascii: "s")), &text) > 0, let text else {
        return sd_bus_reply_method_errno(message, EINVAL, nil)
      }
      fields.append(String(cString: text))
    }
    var reply: OpaquePointer?
    if sd_bus_message_new_method_return(message, &reply) >= 0 {
      _ = sd_bus_send(nil, reply, nil)
      sd_bus_message_unref(reply)
    }
    bridge.take(window: fields[0], app: fields[1], instance: fields[2], title: fields[3])
    return 1
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

  // MARK: - Making the desktop report

  /// Loads the script into KWin (replacing one loaded before) and runs it;
  /// it reports the window that has the focus at once. KWin 6 puts a
  /// loaded script at /Scripting/ScriptN, KWin 5 at /N.
  private func loadKWinScript(_ path: String) throws(AgentExit) {
    guard access(path, R_OK) == 0 else { throw AgentExit("the KWin script \(path) is missing: reinstall vkbd") }
    _ = call("org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "unloadScript", [Self.kwinPlugin]) { _ in () }
    guard
      let id = call(
        "org.kde.KWin", "/Scripting", "org.kde.kwin.Scripting", "loadScript", [path, Self.kwinPlugin],
        reading: Self.readInt32), id >= 0
    else { throw AgentExit("KWin did not load the script \(path) (is this a KDE Plasma session?)") }
    for object in ["/Scripting/Script\(id)", "/\(id)"]
    where call("org.kde.KWin", object, "org.kde.kwin.Script", "run", [], reading: { _ in () }) != nil {
      logger.info("KWin runs the focus script", metadata: ["script": "\(path)"])
      return
    }
    throw AgentExit("KWin loaded the script \(path) but would not run it")
  }

  /// Enables the extension if GNOME Shell knows it. It does only when it
  /// was installed before the login: GNOME Shell reads its extensions then.
  /// With user extensions switched off it enables none, though it says it did.
  private func enableGNOMEExtension() throws(AgentExit) {
    let enabled = call(
      "org.gnome.Shell", "/org/gnome/Shell", "org.gnome.Shell.Extensions", "EnableExtension", [Self.gnomeExtension],
      reading: Self.readBool)
    guard enabled == true else {
      throw AgentExit(
        "GNOME Shell has not loaded the extension \(Self.gnomeExtension): install it (make install) and log in again")
    }
    let extensionsOn = call(
      "org.gnome.Shell", "/org/gnome/Shell", "org.freedesktop.DBus.Properties", "Get",
      ["org.gnome.Shell.Extensions", "UserExtensionsEnabled"], reading: Self.readVariantBool)
    guard extensionsOn != false else {
      throw AgentExit(
        "GNOME Shell has extensions switched off: switch them on in the Extensions app "
          + "(or: gsettings set org.gnome.shell disable-user-extensions false)")
    }
    logger.info("the GNOME Shell extension is enabled", metadata: ["extension": "\(Self.gnomeExtension)"])
  }

  /// Calls a method with string arguments, waits (at most 5 s) for the
  /// reply and reads it; nil on an error.
  private func call<Value>(
    _ destination: String, _ path: String, _ interface: String, _ member: String, _ arguments: [String],
    reading read: (OpaquePointer) -> Value?
  ) -> Value? {
    var message: OpaquePointer?
    guard sd_bus_message_new_method_call(bus, &message, destination, path, interface, member) >= 0 else { return nil }
    defer { sd_bus_message_unref(message) }
    for argument in arguments {
      guard argument.withCString({ sd_bus_message_append_basic(message, CChar(UInt8(ascii: "s")), $0) }) >= 0 else {
        return nil
      }
    }
    var error = sd_bus_error()
    defer { sd_bus_error_free(&error) }
    var reply: OpaquePointer?
    let status = sd_bus_call(bus, message, 5_000_000, &error, &reply)
    guard status >= 0 else {
      logger.debug(
        "D-Bus call failed",
        metadata: [
          "call": "\(destination) \(path) \(member)", "error": "\(error.message.map { String(cString: $0) } ?? "")",
        ])
      return nil
    }
    defer { sd_bus_message_unref(reply) }
    return reply.flatMap(read)
  }

  private static func readInt32(_ reply: OpaquePointer) -> Int32? {
    var value: Int32 = 0
    return sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "i")), &value) > 0 ? value : nil
  }

  private static func readBool(_ reply: OpaquePointer) -> Bool? {
    var value: Int32 = 0  // D-Bus booleans are read as a C int
    return sd_bus_message_read_basic(reply, CChar(UInt8(ascii: "b")), &value) > 0 ? value != 0 : nil
  }

  /// A property's value: a boolean in a variant.
  private static func readVariantBool(_ reply: OpaquePointer) -> Bool? {
    guard sd_bus_message_enter_container(reply, CChar(UInt8(ascii: "v")), "b") > 0 else { return nil }
    return readBool(reply)
  }

  private static func message(_ status: Int32) -> String { String(cString: strerror(-status)) }
}
