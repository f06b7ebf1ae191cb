import AgentProtocol
import CSystemd
import Glibc
import LinuxSystem
import Logging
import SystemPackage

/// The focused text field from the accessibility bus (AT-SPI 2), where no
/// input method protocol tells it: X11 sessions, GNOME and KDE. Through
/// sd-bus, the agent registers with the AT-SPI registry for focus, caret and
/// text events, so that applications send them; at every focus change it
/// asks the focused object its role and state, and for a text field that is
/// not a password the text before the caret (at most
/// ``AgentProtocol/maximumFieldText`` characters).
///
/// Applications bridge to the bus on their own: GTK 3 (atk-bridge) does so
/// whenever the bus is there; the others wait for org.a11y.Status
/// IsEnabled, which the agent sets only on X11 when a browser has the
/// focus (``AccessibilitySwitch``): it writes the user's GSettings
/// (toolkit-accessibility), which outlive the agent.
/// Focus.Focus signals never arrive from GTK 3: the agent follows
/// StateChanged("focused") only.
///
/// Every question to an application is asked without waiting: its answer
/// comes through the loop like a signal, and a read that a newer focus or
/// caret change made old is dropped when it comes. An application that
/// answers late (or never) holds nothing: not the agent's loop, not the
/// fields of the next application.
final class AccessibilitySource: FieldSource, Reconnecting {
  let name = "at-spi"

  /// An accessible object on the bus: the unique name of its application's
  /// connection and its object path.
  struct AccessibleObject: Hashable {
    var sender: String
    var path: String
  }

  /// The AT-SPI role numbers (atspi-constants.h) the agent reads.
  enum Role {
    static let passwordText: UInt32 = 40
    static let spinButton: UInt32 = 52
    static let terminal: UInt32 = 60
    static let text: UInt32 = 61
    static let paragraph: UInt32 = 73
    static let editbar: UInt32 = 77
    static let entry: UInt32 = 79
    static let section: UInt32 = 85
    static let documentText: UInt32 = 94
    static let documentWeb: UInt32 = 95
  }

  /// The AT-SPI state bits (atspi-constants.h) the agent reads: bit n is in
  /// word n >> 5 of GetState's reply.
  enum State {
    static let editable = 7
    static let multiLine = 17
    static let singleLine = 26
  }

  /// An application gets this long to answer a question (in
  /// microseconds); a later answer is no answer.
  static let callTimeout: UInt64 = 500_000
  /// The registry and the a11y bus itself may be started on demand.
  static let registryTimeout: UInt64 = 5_000_000

  private var bus: OpaquePointer?
  private var slots: [OpaquePointer?] = []
  private let logger: Logger
  /// Takes the field whenever it changes.
  var onField: (FieldReport) -> Void = { _ in }

  /// The object that has the focus; nil: none that the bus told of (or it
  /// lost the focus).
  private var focused: AccessibleObject?
  /// Its role, once asked (`.some(nil)`: no text field).
  private var focusedRole: FieldRole??
  private(set) var focusChanges: Int? = 0
  /// A signal came that may change the report: read it once the signals
  /// that sd-bus holds are handled.
  private var isStale = false
  /// The reads started: an answer to an older one than the latest is old.
  private var reads = 0
  var readsStarted: Int { reads }
  private(set) var readAnswered: Int?
  /// The object whose read is under way, and whether a signal asked for
  /// another read of it meanwhile.
  private var reading: AccessibleObject?
  private var readAgain = false
  private let callTimeout: UInt64
  private let deadline: BusDeadline
  private var lastReport: FieldReport?
  private var loggedBadOffset = false
  var onDescriptorChange: () -> Void = {}

  /// Connects to the accessibility bus (`AT_SPI_BUS_ADDRESS`, else the
  /// address org.a11y.Bus gives on the session bus) and registers for the
  /// focus, caret and text events; throws when there is no such bus.
  /// An application gets `callTimeout` microseconds to answer.
  init(loop: EventLoop, logger: Logger, callTimeout: UInt64 = AccessibilitySource.callTimeout) throws(AgentExit) {
    self.logger = logger
    self.callTimeout = callTimeout
    deadline = BusDeadline(loop: loop)
    let address = try Self.busAddress()
    var bus: OpaquePointer?
    var status = sd_bus_new(&bus)
    guard status >= 0, let bus else { throw AgentExit.unavailable("sd_bus_new: \(DBus.message(status))") }
    self.bus = bus
    status = sd_bus_set_address(bus, address)
    guard status >= 0 else { throw AgentExit.unavailable("bad accessibility bus address: \(DBus.message(status))") }
    _ = sd_bus_set_bus_client(bus, 1)
    status = sd_bus_start(bus)
    guard status >= 0 else {
      throw AgentExit.unavailable("cannot connect to the accessibility bus: \(DBus.message(status))")
    }
    let context = Unmanaged.passUnretained(self).toOpaque()
    let rules = [
      "member='StateChanged',arg0='focused'", "member='StateChanged',arg0='defunct'", "member='TextCaretMoved'",
      "member='TextChanged'",
    ]
    for rule in rules {
      var slot: OpaquePointer?
      status = sd_bus_add_match(
        bus, &slot, "type='signal',interface='org.a11y.atspi.Event.Object',\(rule)", Self.signal, context)
      guard status >= 0 else {
        throw AgentExit.unavailable("cannot add a match on the accessibility bus: \(DBus.message(status))")
      }
      slots.append(slot)
    }
    // Applications send only the events someone registered for; the
    // registration lasts as long as this connection. Asked once, as the
    // agent starts, before its loop runs.
    for event in ["object:state-changed:focused", "object:text-caret-moved", "object:text-changed"] {
      let registered = DBus.call(
        bus, "org.a11y.atspi.Registry", "/org/a11y/atspi/registry", "org.a11y.atspi.Registry", "RegisterEvent",
        [.string(event)], timeout: Self.registryTimeout, logger: logger, reading: { _ in true })
      guard registered != nil else { throw AgentExit.unavailable("the AT-SPI registry refused the event \(event)") }
    }
  }

  deinit {
    for slot in slots { sd_bus_slot_unref(slot) }
    sd_bus_flush_close_unref(bus)
  }

  var isConnected: Bool { bus != nil }

  var pollFD: FileDescriptor? { bus.map { FileDescriptor(rawValue: sd_bus_get_fd($0)) } }

  /// Handles what sd-bus already read (signals that came while the agent
  /// waited for a reply no longer make the fd readable), then sends what
  /// is pending.
  func beforeWait() {
    drain()
    guard let bus else { return }
    _ = sd_bus_flush(bus)
    deadline.arm(for: bus) { [unowned self] in drain() }
  }

  func readable() throws(AgentExit) { drain() }

  /// Handles every message sd-bus has (signals, and the answers to the
  /// questions a read asked), then starts reading the field if a signal
  /// asked for it. When the bus closes, the source falls silent: the
  /// agent goes on following the focused window.
  private func drain() {
    while let bus {
      let status = sd_bus_process(bus, nil)
      if status > 0 { continue }
      if status < 0 {
        logger.notice("the accessibility bus closed: \(DBus.message(status))")
        close()
        return
      }
      guard isStale else { return }
      isStale = false
      read()
    }
  }

  private func close() {
    for slot in slots { sd_bus_slot_unref(slot) }
    slots = []
    let closing = bus
    bus = nil
    onDescriptorChange()
    sd_bus_flush_close_unref(closing)
    focused = nil
    readAnswered = nil
    report(FieldReport(source: name))
  }

  /// Reads the focused object's field once the signals sd-bus holds are
  /// handled (a focus change among them comes first), and tells it even
  /// if it is the last one told.
  func reread() {
    isStale = true
    lastReport = nil
  }

  /// Passes a report on if it differs from the last; nil keeps the last.
  private func report(_ field: FieldReport?) {
    guard let field, field != lastReport else { return }
    lastReport = field
    onField(field)
  }

  // MARK: - Signals

  /// Reads an Event.Object signal, "siiva{sv}": its kind (the state's name
  /// for StateChanged), two numbers (for StateChanged: 1 set, 0 unset), and
  /// what the agent does not read.
  private static let signal: sd_bus_message_handler_t = { message, context, _ in
    guard let message, let context, let sender = sd_bus_message_get_sender(message),
      let path = sd_bus_message_get_path(message), let member = sd_bus_message_get_member(message)
    else { return 0 }
    guard let kind = DBus.readString(message), let detail = DBus.readInt32(message) else { return 0 }
    let source = Unmanaged<AccessibilitySource>.fromOpaque(context).takeUnretainedValue()
    source.take(
      String(cString: member), kind: kind, detail: detail,
      from: AccessibleObject(sender: String(cString: sender), path: String(cString: path)))
    return 0
  }

  private func take(_ member: String, kind: String, detail: Int32, from object: AccessibleObject) {
    switch (member, kind) {
    case ("StateChanged", "focused") where detail != 0:
      guard object != focused else { return }  // GTK 3 says it twice
      focused = object
      focusChanges? += 1
      focusedRole = nil  // asked once the signals are handled: no calls in a handler
      isStale = true
    case ("StateChanged", "focused"), ("StateChanged", "defunct"):
      guard object == focused else { return }
      focused = nil
      focusChanges? += 1
      focusedRole = nil
      isStale = true
    case ("TextCaretMoved", _), ("TextChanged", _):
      if object == focused { isStale = true }
    default: break
    }
  }

  // MARK: - Reading the field

  /// Reads the field the focused object is, and reports it: its role
  /// (asked once a focus), and for a field whose text may be read, the text
  /// before the caret. An object that does not answer is no field. When the
  /// caret the application gives is outside its text: the role alone for a
  /// field that just gained the focus, else the last report stands. While
  /// a read of the focused object is under way, another waits for it (a
  /// caret that moves on is read once it ends); another object's starts at
  /// once, and the one under way is dropped.
  private func read() {
    if let reading, reading == focused {
      readAgain = true
      return
    }
    reads += 1
    readAgain = false
    reading = focused
    let number = reads
    guard let object = focused else { return finish(number, FieldReport(source: name)) }
    guard let known = focusedRole else {
      return classify(object, read: number) { [unowned self] role in
        guard number == reads else { return }
        focusedRole = .some(role)
        readText(of: object, role: role, isNewFocus: true, read: number)
      }
    }
    readText(of: object, role: known, isNewFocus: false, read: number)
  }

  /// Ends the read `number` unless a newer one started: reports `field`
  /// (nil: the last report stands), and reads again if asked meanwhile.
  private func finish(_ number: Int, _ field: FieldReport?) {
    guard number == reads else { return }
    reading = nil
    if let field {
      readAnswered = number
      report(field)
    }
    if readAgain { read() }
  }

  private func readText(of object: AccessibleObject, role: FieldRole?, isNewFocus: Bool, read number: Int) {
    guard let role else { return finish(number, FieldReport(source: name)) }
    let field = FieldReport(source: name, role: role)
    guard role == .entry || role == .text || role == .number else { return finish(number, field) }
    let textInterface = "org.a11y.atspi.Text"
    ask(
      object, "org.freedesktop.DBus.Properties", "Get", [.string(textInterface), .string("CaretOffset")],
      reading: DBus.readVariant("i", DBus.readInt32)
    ) { [unowned self] caret in
      // No answer, or no caret: the role alone.
      guard number == reads, let caret, let range = Self.textRange(caret: caret) else { return finish(number, field) }
      ask(object, textInterface, "GetText", [.int32(range.start), .int32(caret)], reading: DBus.readString) {
        [unowned self] text in
        guard let text else { return finish(number, field) }
        guard let before = Self.before(text, from: range.start, to: caret) else {
          if !loggedBadOffset {
            loggedBadOffset = true
            logger.notice("an application gave a caret offset outside its text: its text is not read")
          }
          return finish(number, isNewFocus ? field : nil)
        }
        finish(number, FieldReport(source: name, role: role, before: before, isFieldStart: range.isFieldStart))
      }
    }
  }

  /// Gives `done` the role of the object that gained the focus, from its
  /// AT-SPI role and state; nil when it is no text field, or does not
  /// answer.
  private func classify(_ object: AccessibleObject, read number: Int, done: @escaping (FieldRole?) -> Void) {
    let accessible = "org.a11y.atspi.Accessible"
    ask(object, accessible, "GetRole", reading: DBus.readUInt32) { [unowned self] role in
      guard let role, number == reads else { return done(nil) }
      ask(object, accessible, "GetState", reading: DBus.readUInt32Array) { [unowned self] states in
        guard let states else { return done(nil) }
        let field = Self.fieldRole(role: role, states: states)
        logger.debug("focus", metadata: ["atspi-role": "\(role)", "role": "\(field?.rawValue ?? "none")"])
        done(field)
      }
    }
  }

  /// What an object with this AT-SPI role and these state words is for, or
  /// nil when it is no text field: the text roles must be editable (a
  /// label's text is not the user's), single-line ones are entries, others
  /// text; terminals are fields whatever their state. A web page's editable
  /// element (`contenteditable`, a document in design mode) is a section
  /// or a document to Chromium and Firefox: editable, it is text.
  static func fieldRole(role: UInt32, states: [UInt32]) -> FieldRole? {
    func has(_ bit: Int) -> Bool {
      let word = bit >> 5
      return word < states.count && states[word] & (1 << UInt32(bit & 31)) != 0
    }
    if role == Role.terminal { return .terminal }
    guard has(State.editable) else { return nil }
    switch role {
    case Role.passwordText: return .password
    case Role.spinButton: return .number
    case Role.text, Role.entry, Role.paragraph, Role.documentText, Role.editbar, Role.section, Role.documentWeb:
      return has(State.singleLine) ? .entry : .text
    default: return nil
    }
  }

  /// Which characters to read for a caret at `caret`: the last
  /// ``AgentProtocol/maximumFieldText`` before it, and whether they start
  /// the field; nil for a negative caret (the object has none).
  static func textRange(caret: Int32) -> (start: Int32, isFieldStart: Bool)? {
    guard caret >= 0 else { return nil }
    let limit = Int32(AgentProtocol.maximumFieldText)
    return (max(0, caret - limit), caret <= limit)
  }

  /// The text GetText gave for the characters `start..<end`, or nil when it
  /// has another count of characters: the offsets were outside the text.
  static func before(_ text: String, from start: Int32, to end: Int32) -> String? {
    text.unicodeScalars.count == Int(end - start) ? text : nil
  }

  // MARK: - D-Bus

  /// The accessibility bus's address: `AT_SPI_BUS_ADDRESS`, else what
  /// org.a11y.Bus on the session bus gives (it starts the bus if need be).
  private static func busAddress() throws(AgentExit) -> String {
    if let address = getenv("AT_SPI_BUS_ADDRESS"), address.pointee != 0 { return String(cString: address) }
    let session = try DBus.openSessionBus()
    defer { sd_bus_flush_close_unref(session) }
    let address = DBus.call(
      session, "org.a11y.Bus", "/org/a11y/bus", "org.a11y.Bus", "GetAddress", timeout: registryTimeout,
      reading: { DBus.readString($0) ?? "" })
    switch address {
    case .success(let address) where !address.isEmpty: return address
    case .success: throw AgentExit.unavailable("org.a11y.Bus gave no address")
    case .failure(let error): throw AgentExit.unavailable("no accessibility bus: \(error)")
    }
  }

  /// Asks `object` without waiting: `answer` gets the reply read, or nil
  /// on an error (logged at debug) or after ``callTimeout``, from the
  /// bus's processing in ``drain()``; never when the bus closed first.
  private func ask<Value>(
    _ object: AccessibleObject, _ interface: String, _ member: String, _ arguments: [DBus.Argument] = [],
    reading read: @escaping (OpaquePointer) -> Value?, answer: @escaping (Value?) -> Void
  ) {
    guard let bus else { return }
    DBus.ask(
      bus, object.sender, object.path, interface, member, arguments, timeout: callTimeout, logger: logger,
      reading: read, answer: answer)
  }

}
