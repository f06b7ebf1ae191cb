import CSystemd
import Glibc
import Logging
import SystemPackage

/// Whether the desktop is dark: the XDG desktop portal's
/// `org.freedesktop.appearance` `color-scheme` (1: prefer dark), which
/// GNOME, KDE and the wlroots portals set from the desktop's own setting,
/// asked without waiting and followed through `SettingChanged`; where no
/// portal answers, a `GTK_THEME` that names a dark variant (`Adwaita:dark`).
final class Appearance: Pollable {
  static let portal = "org.freedesktop.portal.Desktop"
  static let path = "/org/freedesktop/portal/desktop"
  static let settings = "org.freedesktop.portal.Settings"

  private var bus: OpaquePointer?
  private var slots: [OpaquePointer?] = []
  /// What the portal said, nil until it did.
  private var prefersDark: Bool?
  private let fallbackDark: Bool

  init(gtkTheme: String, logger: Logger) {
    let gtkTheme = gtkTheme.lowercased()
    fallbackDark = gtkTheme.hasSuffix(":dark") || gtkTheme.hasSuffix("-dark")
    guard let bus = try? DBus.openSessionBus() else {
      logger.debug("no session bus: the picker follows GTK_THEME")
      return
    }
    self.bus = bus
    let context = Unmanaged.passUnretained(self).toOpaque()
    var slot: OpaquePointer?
    _ = sd_bus_match_signal_async(
      bus, &slot, Self.portal, Self.path, Self.settings, "SettingChanged", Self.changed, nil, context)
    slots.append(slot)
    var message: OpaquePointer?
    guard sd_bus_message_new_method_call(bus, &message, Self.portal, Self.path, Self.settings, "Read") >= 0,
      let message
    else { return }
    defer { sd_bus_message_unref(message) }
    for argument in ["org.freedesktop.appearance", "color-scheme"] {
      _ = argument.withCString { sd_bus_message_append_basic(message, DBus.type("s"), $0) }
    }
    slot = nil
    _ = sd_bus_call_async(bus, &slot, message, Self.answered, context, 2_000_000)
    slots.append(slot)
  }

  deinit {
    for slot in slots { sd_bus_slot_unref(slot) }
    sd_bus_flush_close_unref(bus)
  }

  /// The picker's colours now.
  var theme: PickerTheme { prefersDark ?? fallbackDark ? .dark : .light }

  var pollFD: FileDescriptor? { bus.map { FileDescriptor(rawValue: sd_bus_get_fd($0)) } }

  func beforeWait() {
    guard let bus else { return }
    while sd_bus_process(bus, nil) > 0 {}
    _ = sd_bus_flush(bus)
  }

  func readable() throws(AgentExit) {
    guard let bus else { return }
    while true {
      let status = sd_bus_process(bus, nil)
      if status == 0 { return }
      if status < 0 {
        // The session bus went: the last answer stands.
        sd_bus_flush_close_unref(bus)
        self.bus = nil
        return
      }
    }
  }

  private static func appearance(_ context: UnsafeMutableRawPointer?) -> Appearance {
    Unmanaged<Appearance>.fromOpaque(context!).takeUnretainedValue()
  }

  /// The color-scheme's value: `Read` wraps it in two variants (one in the
  /// portal's newer `ReadOne`), the signal in one.
  private static func readScheme(_ message: OpaquePointer) -> UInt32? {
    var contents: UnsafePointer<CChar>?
    while sd_bus_message_peek_type(message, nil, &contents) > 0, let inner = contents.map({ String(cString: $0) }) {
      guard sd_bus_message_enter_container(message, DBus.type("v"), inner) > 0 else { return nil }
      if inner == "u" { return DBus.readUInt32(message) }
      guard inner == "v" else { return nil }
    }
    return nil
  }

  private static let answered: sd_bus_message_handler_t = { message, context, _ in
    guard let message, sd_bus_message_is_method_error(message, nil) == 0 else { return 0 }
    if let scheme = readScheme(message) { appearance(context).prefersDark = scheme == 1 }
    return 0
  }

  private static let changed: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let strings = DBus.readStrings(message, count: 2),
      strings == ["org.freedesktop.appearance", "color-scheme"], let scheme = readScheme(message)
    else { return 0 }
    appearance(context).prefersDark = scheme == 1
    return 0
  }
}
