import Logging

/// The session's switch for assistive technologies: `IsEnabled` of
/// org.a11y.Status, which at-spi-bus-launcher keeps (GNOME as its
/// `toolkit-accessibility` setting). Firefox puts its fields on the
/// accessibility bus only while it is on; on X11 that bus is the only
/// place their text can be read.
enum AccessibilitySwitch {
  /// Switches it on if it is off, without waiting for the answers:
  /// `done` gets true when this call did, false when it was on, nil when
  /// the session has no such switch or refused.
  static func switchOn(on session: SessionBus, logger: Logger, done: @escaping (Bool?) -> Void) {
    let properties = "org.freedesktop.DBus.Properties"
    let status = [DBus.Argument.string("org.a11y.Status"), .string("IsEnabled")]
    DBus.ask(
      session.bus, "org.a11y.Bus", "/org/a11y/bus", properties, "Get", status, timeout: timeout, logger: logger,
      reading: DBus.readVariant("b", DBus.readBool)
    ) { on in
      guard let on, !on else { return done(on.map { !$0 }) }
      DBus.ask(
        session.bus, "org.a11y.Bus", "/org/a11y/bus", properties, "Set", status + [.variant("b", .bool(true))],
        timeout: timeout, logger: logger, reading: { _ in true }, answer: done)
    }
  }

  /// For each call, in microseconds: the launcher may be started on demand.
  private static let timeout: UInt64 = 2_000_000
}
