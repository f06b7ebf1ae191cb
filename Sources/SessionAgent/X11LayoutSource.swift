import AgentProtocol
import CXCB
import Glibc

/// The keyboard layout of an X11 session: the root window's
/// `_XKB_RULES_NAMES`, which setxkbmap and the desktops rewrite at every
/// change of layouts, and the core keyboard's XKB group, followed through
/// XKB's StateNotify.
final class X11LayoutSource: LayoutSource, XCBClient {
  let name = "x11"

  let connection: OpaquePointer
  private let root: xcb_window_t
  private let rulesNames: xcb_atom_t
  /// The code of XKB's events (all of them; their second byte tells which).
  private let xkbEvent: UInt8
  /// The names last read, and the group as the server last said it.
  private var names: [String] = []
  private var group = 0
  private var lastReport: LayoutReport?
  /// Takes the layout whenever its names or its group change.
  var onLayout: (LayoutReport) -> Void = { _ in }

  /// Connects to `display` (nil: `DISPLAY`), reads the layout and starts
  /// following it; throws when there is no X server or it has no XKB.
  init(display: String? = nil) throws(AgentExit) {
    let (connection, screen) = try X11Source.connect(to: display)
    self.connection = connection
    root = screen.root
    rulesNames = X11Source.intern("_XKB_RULES_NAMES", on: connection)
    let use = xcb_xkb_use_extension_reply(
      connection, xcb_xkb_use_extension(connection, UInt16(XCB_XKB_MAJOR_VERSION), UInt16(XCB_XKB_MINOR_VERSION)), nil)
    defer { free(use) }
    guard let use, use.pointee.supported != 0, let data = CXCB_xkbExtensionData(connection), data.pointee.present != 0
    else {
      xcb_disconnect(connection)
      throw AgentExit.unavailable("the X server has no XKB extension")
    }
    xkbEvent = data.pointee.first_event
    var mask = UInt32(XCB_EVENT_MASK_PROPERTY_CHANGE.rawValue)
    xcb_change_window_attributes(connection, root, UInt32(XCB_CW_EVENT_MASK.rawValue), &mask)
    let events = UInt16(XCB_XKB_EVENT_TYPE_STATE_NOTIFY.rawValue | XCB_XKB_EVENT_TYPE_NEW_KEYBOARD_NOTIFY.rawValue)
    var details = xcb_xkb_select_events_details_t()
    details.affectNewKeyboard = UInt16(
      XCB_XKB_NKN_DETAIL_KEYCODES.rawValue | XCB_XKB_NKN_DETAIL_GEOMETRY.rawValue
        | XCB_XKB_NKN_DETAIL_DEVICE_ID.rawValue)
    details.newKeyboardDetails = details.affectNewKeyboard
    details.affectState = UInt16(XCB_XKB_STATE_PART_GROUP_STATE.rawValue)
    details.stateDetails = details.affectState
    xcb_xkb_select_events_aux(
      connection, xcb_xkb_device_spec_t(XCB_XKB_ID_USE_CORE_KBD.rawValue), events, 0, 0, 0, 0, &details)
    readNames()
    readGroup()
  }

  deinit { xcb_disconnect(connection) }

  /// Reports the layout when it changed (the first time: the layout
  /// `init` read).
  func eventsHandled() { report() }

  /// Handles `first` and every event queued after it. A new keymap or
  /// new names read the group again: Xvfb keeps a group beyond the new
  /// layouts and sends no StateNotify for it.
  func handle(_ first: UnsafeMutablePointer<xcb_generic_event_t>?) {
    var next = first
    while next != nil {
      var namesChanged = false
      var keymapChanged = false
      while let event = next {
        let bytes = UnsafeMutableRawPointer(event)
        if event.pointee.response_type & 0x7F == UInt8(XCB_PROPERTY_NOTIFY) {
          let notify = bytes.assumingMemoryBound(to: xcb_property_notify_event_t.self).pointee
          if notify.window == root && notify.atom == rulesNames { namesChanged = true }
        } else if event.pointee.response_type & 0x7F == xkbEvent {
          switch Int32(bytes.load(fromByteOffset: 1, as: UInt8.self)) {
          case XCB_XKB_STATE_NOTIFY:
            group = Int(bytes.assumingMemoryBound(to: xcb_xkb_state_notify_event_t.self).pointee.group)
          case XCB_XKB_NEW_KEYBOARD_NOTIFY: keymapChanged = true
          default: break
          }
        }
        free(event)
        next = xcb_poll_for_queued_event(connection)
      }
      if namesChanged { readNames() }
      if namesChanged || keymapChanged {
        readGroup()
        next = xcb_poll_for_queued_event(connection)
      }
    }
  }

  /// Reports the layout when it changed. The group wraps as XKB wraps it.
  private func report() {
    guard names.count >= 3 else { return }
    let layouts = names[2].split(separator: ",", omittingEmptySubsequences: false).count
    var layout = LayoutReport(
      source: name, rules: names[0], model: names[1], layout: names[2], variant: names.count > 3 ? names[3] : "",
      options: names.count > 4 ? names[4] : "", group: group % layouts)
    if layout.rules.isEmpty { layout.rules = "evdev" }
    guard layout != lastReport, layout.isWellFormed else { return }
    lastReport = layout
    onLayout(layout)
  }

  /// `_XKB_RULES_NAMES`: rules, model, layout, variant and options, each
  /// ended by a NUL.
  private func readNames() {
    let type = xcb_atom_t(XCB_ATOM_STRING.rawValue)
    let cookie = xcb_get_property(connection, 0, root, rulesNames, type, 0, 1024)
    guard let reply = xcb_get_property_reply(connection, cookie, nil) else { return }
    defer { free(reply) }
    guard reply.pointee.type == type, let value = xcb_get_property_value(reply) else {
      names = []
      return
    }
    names = UnsafeRawBufferPointer(start: value, count: Int(xcb_get_property_value_length(reply)))
      .split(separator: 0, omittingEmptySubsequences: false).map { String(decoding: $0, as: UTF8.self) }
  }

  /// The core keyboard's effective group (`XkbGetState`).
  private func readGroup() {
    let cookie = xcb_xkb_get_state(connection, xcb_xkb_device_spec_t(XCB_XKB_ID_USE_CORE_KBD.rawValue))
    guard let reply = xcb_xkb_get_state_reply(connection, cookie, nil) else { return }
    defer { free(reply) }
    group = Int(reply.pointee.group)
  }
}
