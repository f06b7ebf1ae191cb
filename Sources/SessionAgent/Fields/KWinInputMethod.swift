import AgentProtocol
import CAgent
import CSystemd
import Glibc
import Logging
import SystemPackage

/// `vkbd-agent --kwin-input-method`: the agent's part that KWin runs as its
/// input method (kwinrc's `[Wayland] InputMethod`, set by
/// `vkbd-agent --setup-kwin`). KWin tells its input method, and no other
/// client, of the focused text field of every text-input v2 and v3 client
/// (input-method-unstable-v1): the field's purpose, hints and the text
/// around the cursor. This process never grabs the keyboard and never
/// commits or deletes text: keys go to the application as before. It
/// passes each change on to the session's agent, which calls it
///
///     io.github.vkbd.Agent1.FieldChanged(s kind, u purpose, u hints,
///                                        b has_text, s before, b start)
///
/// as the GNOME extension does (kind `input-method`: KWin sends
/// text-input-v1's values, which are Clutter's). A secret field's text
/// never leaves this process. The call expects no reply: a missing or slow
/// agent never holds KWin's input method up; when the agent's name
/// appears, the field is sent again.
final class KWinInputMethod: Pollable {
  private var registry: OpaquePointer?
  private var inputMethod: OpaquePointer?
  private var context: OpaquePointer?
  private var bus: OpaquePointer?
  private var ownerSlot: OpaquePointer?
  private let logger: Logger
  private var state = InputMethodSource.State()
  /// Whether KWin has told what has the focus: no field (deactivate), or
  /// a field with its content type, which comes with the text as the field
  /// is entered. A restarted input method is told only of the context, not
  /// of its field, until the field changes: it tells nothing until then.
  private var known = false
  /// What was sent last; nil: nothing yet, or the agent must have it again.
  private var sent: ShellBridge.ShellField?
  private var loggedBadText = false

  /// Binds the input method of KWin, which `wayland` connects to through
  /// the socket KWin passed (WAYLAND_SOCKET), and connects to the session
  /// bus; throws when the compositor offers no input method: KWin offers it
  /// only to the client it starts.
  init(on wayland: WaylandConnection, logger: Logger) throws(AgentExit) {
    self.logger = logger
    registry = wl_display_get_registry(wayland.display)
    WaylandEvents.dispatch(registry, to: Self.registryEvent, owner: self)
    guard wayland.roundtrip(), inputMethod != nil else {
      throw AgentExit.unavailable(
        "the compositor offers no zwp_input_method_v1: KWin offers it only to the input method it starts "
          + "(vkbd-agent --setup-kwin)")
    }
    bus = try DBus.openSessionBus()
    let match =
      "type='signal',sender='org.freedesktop.DBus',path='/org/freedesktop/DBus',"
      + "interface='org.freedesktop.DBus',member='NameOwnerChanged',arg0='\(ShellBridge.busName)'"
    _ = sd_bus_add_match(bus, &ownerSlot, match, Self.ownerChanged, Unmanaged.passUnretained(self).toOpaque())
  }

  deinit {
    sd_bus_slot_unref(ownerSlot)
    sd_bus_flush_close_unref(bus)
  }

  /// The session bus. KWin's connection is the loop's (``WaylandConnection``),
  /// which it watches before this: the events of a turn are dispatched
  /// when ``beforeWait()`` sends what they changed.
  var pollFD: FileDescriptor? { FileDescriptor(rawValue: sd_bus_get_fd(bus)) }

  func beforeWait() {
    if known { send(Self.field(for: state, logBadText: logBadText)) }
    while sd_bus_process(bus, nil) > 0 {}
    _ = sd_bus_flush(bus)
  }

  func readable() throws(AgentExit) { try DBus.processSessionBus(bus) }

  /// The call for a state: no field while no context is active; else the
  /// purpose and hints, and the text before the cursor (its last
  /// ``AgentProtocol/maximumFieldText`` characters) unless the field is
  /// secret, the purpose unknown, or the text not UTF-8 or the cursor
  /// outside it (`logBadText` is told then).
  static func field(for state: InputMethodSource.State, logBadText: () -> Void = {}) -> ShellBridge.ShellField {
    guard state.active else { return ShellBridge.ShellField(kind: "", purpose: 0, hints: 0, isFieldStart: false) }
    var field = ShellBridge.ShellField(
      kind: "input-method", purpose: state.purpose, hints: state.hint, isFieldStart: false)
    let role = ContentType.clutter(purpose: state.purpose, hints: state.hint)
    guard let role, role != .password, role != .pin, let text = state.surrounding else { return field }
    guard let before = FieldText.before(text, cursor: state.cursor) else {
      logBadText()
      return field
    }
    let (kept, isWhole) = AgentProtocol.lastCharacters(Substring(before))
    field.before = kept
    field.isFieldStart = isWhole && text.count < InputMethodSource.clippedText
    return field
  }

  private func logBadText() {
    guard !loggedBadText else { return }
    loggedBadText = true
    logger.notice("a text field sent text that is not UTF-8 or a cursor outside it: its text is not passed on")
  }

  /// Sends `field` to the agent when it changed, expecting no reply.
  private func send(_ field: ShellBridge.ShellField) {
    guard field != sent else { return }
    var message: OpaquePointer?
    guard
      sd_bus_message_new_method_call(
        bus, &message, ShellBridge.busName, ShellBridge.objectPath, ShellBridge.interface, "FieldChanged") >= 0,
      let message
    else { return }
    defer { sd_bus_message_unref(message) }
    var purpose = field.purpose
    var hints = field.hints
    var hasText: Int32 = field.before == nil ? 0 : 1
    var start: Int32 = field.isFieldStart ? 1 : 0
    let appended =
      field.kind.withCString { sd_bus_message_append_basic(message, DBus.type("s"), $0) } >= 0
      && sd_bus_message_append_basic(message, DBus.type("u"), &purpose) >= 0
      && sd_bus_message_append_basic(message, DBus.type("u"), &hints) >= 0
      && sd_bus_message_append_basic(message, DBus.type("b"), &hasText) >= 0
      && (field.before ?? "").withCString { sd_bus_message_append_basic(message, DBus.type("s"), $0) } >= 0
      && sd_bus_message_append_basic(message, DBus.type("b"), &start) >= 0
    guard appended, sd_bus_message_set_expect_reply(message, 0) >= 0, sd_bus_send(bus, message, nil) >= 0 else {
      return
    }
    sent = field
  }

  /// The agent's name has a new owner: it must hear the field again.
  private static let ownerChanged: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let context, let names = DBus.readStrings(message, count: 3), !names[2].isEmpty else {
      return 0
    }
    Unmanaged<KWinInputMethod>.fromOpaque(context).takeUnretainedValue().sent = nil
    return 0
  }

  // MARK: - Events

  /// wl_registry: `global` binds zwp_input_method_v1.
  private static let registryEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard opcode == 0, let arguments, let interface = arguments[1].s else { return 0 }
    let method: KWinInputMethod = WaylandEvents.owner(of: proxy)
    if String(cString: interface) == "zwp_input_method_v1", method.inputMethod == nil {
      method.inputMethod = OpaquePointer(wl_registry_bind(method.registry, arguments[0].u, CAgent_inputMethodV1(), 1))
      WaylandEvents.dispatch(method.inputMethod, to: KWinInputMethod.inputMethodEvent, owner: method)
    }
    return 0
  }

  /// activate(context): a text field has the focus, its state comes on the
  /// new context; deactivate(context): it has gone.
  private static let inputMethodEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard let arguments, let object = arguments[0].o else { return 0 }
    let method: KWinInputMethod = WaylandEvents.owner(of: proxy)
    let context = object
    switch Int(opcode) {
    case Int(CAgent_inputMethodV1EventActivate):
      if let old = method.context { CAgent_request(old, UInt32(CAgent_contextRequestDestroy), 1) }
      method.context = context
      WaylandEvents.dispatch(context, to: KWinInputMethod.contextEvent, owner: method)
      method.state = InputMethodSource.State(active: true)
      method.known = false
    case Int(CAgent_inputMethodV1EventDeactivate):
      guard context == method.context else { return 0 }
      CAgent_request(context, UInt32(CAgent_contextRequestDestroy), 1)
      method.context = nil
      method.state = InputMethodSource.State()
      method.known = true
    default:
      break
    }
    return 0
  }

  /// The context's events: surrounding_text and content_type change the
  /// state; reset, invoke_action, commit_state and preferred_language
  /// concern text this input method would commit, which it never does.
  private static let contextEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard let arguments else { return 0 }
    let method: KWinInputMethod = WaylandEvents.owner(of: proxy)
    switch Int(opcode) {
    case Int(CAgent_contextEventSurroundingText):
      method.state.surrounding = arguments[0].s.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
      method.state.cursor = Int(arguments[1].u)
    case Int(CAgent_contextEventContentType):
      method.state.hint = arguments[0].u
      method.state.purpose = arguments[1].u
      method.known = true
    default:
      break
    }
    return 0
  }
}

/// The text before a cursor, as the Wayland protocols send it: UTF-8 with
/// the cursor's byte offset.
enum FieldText {
  /// Nil when the cursor is past the text or the text before it is not UTF-8.
  static func before(_ text: [UInt8], cursor: Int) -> String? {
    guard cursor <= text.count else { return nil }
    return String(validating: text[..<cursor], as: UTF8.self)
  }
}
