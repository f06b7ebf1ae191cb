import CSystemd

/// The session's switch for assistive technologies: `IsEnabled` of
/// org.a11y.Status, which at-spi-bus-launcher keeps (GNOME as its
/// `toolkit-accessibility` setting). Firefox puts its fields on the
/// accessibility bus only while it is on; on X11 that bus is the only
/// place their text can be read.
enum AccessibilitySwitch {
  /// Switches it on if it is off: true when this call did, false when it
  /// was on; nil when the session has no such switch or refused.
  static func switchOn() -> Bool? {
    guard let session = try? DBus.openSessionBus() else { return nil }
    defer { sd_bus_flush_close_unref(session) }
    let properties = "org.freedesktop.DBus.Properties"
    let status = [DBus.Argument.string("org.a11y.Status"), .string("IsEnabled")]
    let state = DBus.call(
      session, "org.a11y.Bus", "/org/a11y/bus", properties, "Get", status, timeout: timeout,
      reading: DBus.readVariant("b", DBus.readBool))
    guard case .success(let on) = state else { return nil }
    if on { return false }
    let set = DBus.call(
      session, "org.a11y.Bus", "/org/a11y/bus", properties, "Set", status + [.variant("b", .bool(true))],
      timeout: timeout, reading: { _ in true })
    guard case .success = set else { return nil }
    return true
  }

  /// For each call, in microseconds: the launcher may be started on demand.
  private static let timeout: UInt64 = 2_000_000
}
