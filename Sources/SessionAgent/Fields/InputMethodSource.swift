import AgentProtocol
import CAgent
import Glibc
import Logging
import SystemPackage

/// The focused text field on wlroots compositors (sway, Hyprland, river,
/// labwc…): the agent is the seat's input method (input-method-unstable-v2),
/// so the compositor tells it, for the text input that has the focus, the
/// field's content purpose and hints and the text around the cursor. It
/// never grabs the keyboard and never commits text: keys go to the
/// application as before. When another input method holds the seat (fcitx,
/// IBus), the compositor says the agent's is unavailable, and the agent
/// gives it up.
final class InputMethodSource: FieldSource {
  let name = "input-method"

  /// A text field sends at most 4000 bytes around the cursor: a text before
  /// the cursor that starts below this many bytes is taken as starting the
  /// field (or its paragraph, which GTK's text views send).
  static let clippedText = 3800

  private var registry: OpaquePointer?
  private var seat: OpaquePointer?
  private var manager: OpaquePointer?
  private var inputMethod: OpaquePointer?
  private let logger: Logger
  /// Takes the field whenever it changes, and at once the field the
  /// compositor told of while the agent connected.
  var onField: (FieldReport) -> Void = { _ in } {
    didSet { lastReport.map(onField) }
  }

  /// The state the last `done` applied, and what came since.
  private var state = State()
  private var pending = State()
  private var lastReport: FieldReport?
  private var loggedBadText = false

  struct State: Equatable {
    var active = false
    /// The text around the cursor and the cursor's byte offset; nil: the
    /// field sends none.
    var surrounding: [UInt8]?
    var cursor = 0
    var purpose: UInt32 = 0
    var hint: UInt32 = 0
  }

  /// Becomes the input method of the first seat of the compositor
  /// `wayland` connects to; throws when it offers no input method protocol
  /// or another input method holds the seat.
  init(on wayland: WaylandConnection, logger: Logger) throws(AgentExit) {
    self.logger = logger
    registry = wl_display_get_registry(wayland.display)
    WaylandEvents.dispatch(registry, to: Self.registryEvent, owner: self)
    guard wayland.roundtrip(), let manager, let seat else {
      throw AgentExit.unavailable("the compositor offers no zwp_input_method_manager_v2")
    }
    guard let method = CAgent_getInputMethod(manager, seat) else {
      throw AgentExit.unavailable("get_input_method failed")
    }
    inputMethod = method
    WaylandEvents.dispatch(method, to: Self.inputMethodEvent, owner: self)
    // A seat that has an input method answers with `unavailable` at once.
    guard wayland.roundtrip(), inputMethod != nil else {
      throw AgentExit.unavailable("another input method holds the seat")
    }
  }

  /// Its objects go with it (the seat's input method given up); the
  /// shared connection stays.
  deinit {
    if let inputMethod { CAgent_request(inputMethod, UInt32(CAgent_inputMethodRequestDestroy), 1) }
    WaylandConnection.release([manager, seat, registry])
  }

  /// The connection is the loop's (``WaylandConnection``).
  var pollFD: FileDescriptor? { nil }

  func readable() throws(AgentExit) {}

  /// The report for a state: no field while inactive; the role, and the
  /// text before the cursor unless the field is secret. Nil when the
  /// purpose is unknown, the text is not UTF-8 or the cursor is outside
  /// it: the last report stays.
  static func report(for state: State, source: String) -> FieldReport?? {
    guard state.active else { return FieldReport(source: source) }
    guard let role = ContentType.textInputV3(purpose: state.purpose, hints: state.hint) else { return .some(nil) }
    var report = FieldReport(source: source, role: role)
    guard !report.isSecret else { return report }
    report.takeTextInputHints(state.hint)
    guard let text = state.surrounding else { return report }
    guard let before = FieldText.before(text, cursor: state.cursor) else { return .some(nil) }
    report.before = before
    report.isFieldStart = text.count < clippedText
    return report
  }

  /// `done`: applies what came since the last one and reports a change.
  private func applyPending() {
    state = pending
    pending.surrounding = state.surrounding
    guard let report = Self.report(for: state, source: name) else { return }
    guard let report else {
      if !loggedBadText {
        loggedBadText = true
        logger.notice(
          "a text field sent a purpose this agent does not know, text that is not UTF-8 or a cursor outside it; its report is ignored"
        )
      }
      return
    }
    guard report != lastReport else { return }
    if report.role != lastReport?.role || report.capitals != lastReport?.capitals
      || report.correction != lastReport?.correction
    {
      logger.debug(
        "text field", metadata: ["role": "\(report.role?.rawValue ?? "none")", "hints": "\(state.hint)"])
    }
    lastReport = report
    onField(report)
  }

  // MARK: - Events

  /// wl_registry: `global` (name, interface, version) binds the first seat
  /// and the input method manager.
  private static let registryEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard opcode == 0, let arguments, let interface = arguments[1].s else { return 0 }
    let source: InputMethodSource = WaylandEvents.owner(of: proxy)
    switch String(cString: interface) {
    case "wl_seat" where source.seat == nil:
      source.seat = OpaquePointer(wl_registry_bind(source.registry, arguments[0].u, CAgent_seat(), 1))
    case "zwp_input_method_manager_v2" where source.manager == nil:
      source.manager = OpaquePointer(wl_registry_bind(source.registry, arguments[0].u, CAgent_inputMethodManager(), 1))
    default:
      break
    }
    return 0
  }

  /// The input method: the focused text input's state, applied at `done`.
  private static let inputMethodEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    let source: InputMethodSource = WaylandEvents.owner(of: proxy)
    switch Int(opcode) {
    case Int(CAgent_inputMethodEventActivate):
      // A new text input: everything from before is reset; content_type too.
      source.pending = State(active: true)
    case Int(CAgent_inputMethodEventDeactivate):
      source.pending.active = false
    case Int(CAgent_inputMethodEventSurroundingText):
      guard let arguments else { return 0 }
      source.pending.surrounding = arguments[0].s.map { Array(UnsafeRawBufferPointer(start: $0, count: strlen($0))) }
      source.pending.cursor = Int(arguments[1].u)
    case Int(CAgent_inputMethodEventContentType):
      guard let arguments else { return 0 }
      source.pending.hint = arguments[0].u
      source.pending.purpose = arguments[1].u
    case Int(CAgent_inputMethodEventDone):
      source.applyPending()
    case Int(CAgent_inputMethodEventUnavailable):
      source.logger.notice("another input method holds the seat: the field's role and text come from the app only")
      CAgent_request(OpaquePointer(proxy), UInt32(CAgent_inputMethodRequestDestroy), 1)
      source.inputMethod = nil
      if source.state.active {
        source.state = State()
        source.onField(FieldReport(source: source.name))
      }
    default:
      break  // text_change_cause: the agent keeps no preedit
    }
    return 0
  }
}
