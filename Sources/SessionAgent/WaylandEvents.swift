import CAgent

/// How the agent's Wayland clients take their events: a proxy's events go
/// to one static dispatcher of the client's, which finds the client again
/// in the proxy's user data.
enum WaylandEvents {
  /// Sends `proxy`'s events to `dispatcher`, with `owner` as the proxy's user data.
  static func dispatch(_ proxy: OpaquePointer?, to dispatcher: wl_dispatcher_func_t, owner: AnyObject) {
    wl_proxy_add_dispatcher(proxy, dispatcher, nil, Unmanaged.passUnretained(owner).toOpaque())
  }

  /// The client ``dispatch(_:to:owner:)`` gave `proxy`.
  static func owner<Owner: AnyObject>(of proxy: UnsafeMutableRawPointer?) -> Owner {
    Unmanaged<Owner>.fromOpaque(wl_proxy_get_user_data(OpaquePointer(proxy))).takeUnretainedValue()
  }
}
