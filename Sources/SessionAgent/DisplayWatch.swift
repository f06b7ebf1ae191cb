import CAgent

/// A connection to the Wayland compositor held only to learn when the
/// session ends: the compositor closes it on its way out. (The GNOME and
/// KDE sources hear the desktop on the session bus, which outlives it.)
final class DisplayWatch: Pollable {
  private let display: OpaquePointer

  init() throws(AgentExit) {
    guard let display = wl_display_connect(nil) else {
      throw AgentExit("cannot connect to the Wayland compositor (WAYLAND_DISPLAY)")
    }
    self.display = display
  }

  deinit { wl_display_disconnect(display) }

  var pollFD: Int32? { wl_display_get_fd(display) }

  func beforeWait() { _ = wl_display_flush(display) }

  func readable() throws(AgentExit) {
    guard wl_display_dispatch(display) >= 0 else { throw AgentExit("the Wayland compositor closed", status: 0) }
  }
}
