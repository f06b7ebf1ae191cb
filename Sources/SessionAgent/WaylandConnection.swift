import CAgent
import SystemPackage

/// The agent's one connection to the Wayland compositor (WAYLAND_DISPLAY).
/// Its Wayland clients (the focused window, the input method, the picker's
/// window) each make their own registry and objects on it, and the loop
/// watches it once. The compositor closes it on its way out, which ends
/// the agent (also where the desktop is heard on the session bus, which
/// outlives the compositor: GNOME, KDE).
final class WaylandConnection: Pollable {
  let display: OpaquePointer
  /// What the clients do once the events read are dispatched.
  private var afterEvents: [() -> Void] = []

  init() throws(AgentExit) {
    guard let display = wl_display_connect(nil) else {
      throw AgentExit.unavailable("cannot connect to the Wayland compositor (WAYLAND_DISPLAY)")
    }
    self.display = display
  }

  deinit { wl_display_disconnect(display) }

  /// Calls `work` each time events were dispatched, whichever client's
  /// round trip or read took them.
  func afterEvents(_ work: @escaping () -> Void) { afterEvents.append(work) }

  /// Sends what is queued and waits until the compositor has handled it,
  /// dispatching every event that came meanwhile; false when it closed.
  func roundtrip() -> Bool {
    let done = wl_display_roundtrip(display) >= 0
    for work in afterEvents { work() }
    return done
  }

  /// Forgets a client's objects (`wl_proxy_destroy`): events the compositor
  /// still sends them are dropped, never given to a client that is gone.
  static func release(_ proxies: [OpaquePointer?]) {
    for case let proxy? in proxies { wl_proxy_destroy(proxy) }
  }

  var pollFD: FileDescriptor? { FileDescriptor(rawValue: wl_display_get_fd(display)) }

  /// Dispatches what a round trip read but left queued, then sends.
  func beforeWait() {
    if wl_display_dispatch_pending(display) > 0 { for work in afterEvents { work() } }
    _ = wl_display_flush(display)
  }

  func readable() throws(AgentExit) {
    guard wl_display_dispatch(display) >= 0 else { throw AgentExit.ended("the Wayland compositor closed") }
    for work in afterEvents { work() }
  }
}
