import AgentProtocol
import CXCB
import Glibc
import SystemPackage

/// The focused window on X11 (any EWMH window manager; under a Wayland
/// compositor, the Xwayland windows only): the root window's
/// `_NET_ACTIVE_WINDOW`, and that window's `WM_CLASS` and `_NET_WM_NAME`
/// (else `WM_NAME`), followed through property-change events.
final class X11Source: FocusSource, XCBClient {
  let name = "x11"

  let connection: OpaquePointer
  private let root: xcb_window_t
  /// The atoms it reads, interned once.
  private let activeWindowAtom, netWMNameAtom, utf8StringAtom, wmClassAtom, wmNameAtom: xcb_atom_t
  /// The window whose property changes are followed.
  private var watched: xcb_window_t = 0
  private var lastReport: FocusReport?
  /// Takes the focused window whenever it changes.
  var onFocus: (FocusReport) -> Void = { _ in }

  /// Connects to `DISPLAY` and starts following the root window's properties.
  init() throws(AgentExit) {
    let (connection, screen) = try Self.connect(to: nil)
    self.connection = connection
    root = screen.root
    activeWindowAtom = Self.intern("_NET_ACTIVE_WINDOW", on: connection)
    netWMNameAtom = Self.intern("_NET_WM_NAME", on: connection)
    utf8StringAtom = Self.intern("UTF8_STRING", on: connection)
    wmClassAtom = Self.intern("WM_CLASS", on: connection)
    wmNameAtom = Self.intern("WM_NAME", on: connection)
    follow(root)
  }

  func start() throws(AgentExit) { reportFocus() }

  deinit { xcb_disconnect(connection) }

  /// Handles `first` and every event queued after it; reports the focus
  /// when the active window or one of its properties changed. Reading
  /// properties can queue more events, which are handled in turn.
  func handle(_ first: UnsafeMutablePointer<xcb_generic_event_t>?) {
    var next = first
    while next != nil {
      var changed = false
      while let event = next {
        if event.pointee.response_type & 0x7F == UInt8(XCB_PROPERTY_NOTIFY) {
          let notify = UnsafeMutableRawPointer(event).assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
          if notify.window == root ? notify.atom == activeWindowAtom : notify.window == watched {
            changed = true
          }
        }
        free(event)
        next = xcb_poll_for_queued_event(connection)
      }
      if changed {
        reportFocus()
        next = xcb_poll_for_queued_event(connection)
      }
    }
  }

  /// Reads the active window and its properties, and reports them when
  /// they changed.
  private func reportFocus() {
    let active =
      property(of: root, activeWindowAtom, type: xcb_atom_t(XCB_ATOM_WINDOW.rawValue))
      .flatMap { $0.count >= 4 ? $0.withUnsafeBytes { $0.load(as: xcb_window_t.self) } : nil } ?? 0
    if active != watched {
      if watched != 0 { unfollow(watched) }
      watched = active
      if active != 0 { follow(active) }
    }
    var report = FocusReport(window: Int64(active), app: "")
    if active != 0 {
      // WM_CLASS: the instance and the class, each ended by a NUL.
      let classes = (property(of: active, wmClassAtom, type: xcb_atom_t(XCB_ATOM_STRING.rawValue)) ?? [])
        .split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
      report.instance = classes.first
      report.app = classes.count > 1 ? classes[1] : ""
      if let name = property(of: active, netWMNameAtom, type: utf8StringAtom) {
        report.title = String(decoding: name, as: UTF8.self)
      } else if let name = property(of: active, wmNameAtom, type: xcb_atom_t(XCB_ATOM_STRING.rawValue)) {
        report.title = String(String.UnicodeScalarView(name.map { Unicode.Scalar($0) }))  // Latin-1
      } else if let name = property(of: active, wmNameAtom, type: xcb_atom_t(XCB_GET_PROPERTY_TYPE_ANY.rawValue)) {
        // COMPOUND_TEXT: xlib puts what Latin-1 cannot hold in UTF-8
        // segments (ESC % G … ESC % @); its ASCII reads the same.
        report.title = String(decoding: name, as: UTF8.self).replacing("\u{1B}%G", with: "")
          .replacing("\u{1B}%@", with: "")
      }
    }
    guard report != lastReport else { return }
    lastReport = report
    onFocus(report)
  }

  /// Asks for property-change events of `window`.
  private func follow(_ window: xcb_window_t) {
    var mask = UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)
    xcb_change_window_attributes(connection, window, UInt32(XCB_CW_EVENT_MASK.rawValue), &mask)
  }

  private func unfollow(_ window: xcb_window_t) {
    var mask: UInt32 = 0
    xcb_change_window_attributes(connection, window, UInt32(XCB_CW_EVENT_MASK.rawValue), &mask)
  }

  /// Connects to `display` (nil: `DISPLAY`); returns the connection and
  /// its screen.
  static func connect(to display: String?) throws(AgentExit) -> (OpaquePointer, xcb_screen_t) {
    var screenNumber: Int32 = 0
    let connection = xcb_connect(display, &screenNumber)
    guard let connection, xcb_connection_has_error(connection) == 0 else {
      if let connection { xcb_disconnect(connection) }
      throw AgentExit.unavailable("cannot connect to the X server (DISPLAY)")
    }
    var screens = xcb_setup_roots_iterator(xcb_get_setup(connection))
    for _ in 0..<screenNumber { xcb_screen_next(&screens) }
    return (connection, screens.data.pointee)
  }

  /// The atom of `name` (`xcb_intern_atom`), 0 on an error.
  static func intern(_ name: String, on connection: OpaquePointer) -> xcb_atom_t {
    let cookie = xcb_intern_atom(connection, 0, UInt16(name.utf8.count), name)
    guard let reply = xcb_intern_atom_reply(connection, cookie, nil) else { return 0 }
    defer { free(reply) }
    return reply.pointee.atom
  }

  private func property(of window: xcb_window_t, _ atom: xcb_atom_t, type: xcb_atom_t) -> [UInt8]? {
    Self.property(of: window, atom, type: type, on: connection)
  }

  /// A property's bytes (at most 64 KiB), nil when the window has none of that type.
  static func property(of window: xcb_window_t, _ atom: xcb_atom_t, type: xcb_atom_t, on connection: OpaquePointer)
    -> [UInt8]?
  {
    let cookie = xcb_get_property(connection, 0, window, atom, type, 0, 16_384)
    guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return nil }
    defer { free(reply) }
    guard reply.pointee.type != 0, type == 0 || reply.pointee.type == type, let value = xcb_get_property_value(reply)
    else { return nil }
    let length = Int(xcb_get_property_value_length(reply))
    return Array(UnsafeRawBufferPointer(start: value, count: length))
  }
}

/// An X client in the agent's loop: one xcb connection, whose events it
/// handles as they come and after xcb read them while waiting for a reply
/// (the fd no longer tells of those).
protocol XCBClient: Pollable {
  var connection: OpaquePointer { get }
  /// Handles `first` and every event queued after it.
  func handle(_ first: UnsafeMutablePointer<xcb_generic_event_t>?)
  /// Called once the events of a turn are handled.
  func eventsHandled()
}

extension XCBClient {
  var pollFD: FileDescriptor? { FileDescriptor(rawValue: xcb_get_file_descriptor(connection)) }

  func eventsHandled() {}

  /// Handles what xcb already read, then sends what is pending.
  func beforeWait() {
    handle(xcb_poll_for_queued_event(connection))
    eventsHandled()
    _ = xcb_flush(connection)
  }

  /// Reads and handles the events waiting; throws when the X server went away.
  func readable() throws(AgentExit) {
    handle(xcb_poll_for_event(connection))
    guard xcb_connection_has_error(connection) == 0 else { throw AgentExit.ended("the X server closed") }
    eventsHandled()
  }
}
