/// What the engine's parts (``Expander``, ``TypingAids``) need of the
/// engine that owns them: the keyboard and the text as the application has
/// them, and the one way out for keys. ``Engine`` is the one host.
protocol KeyboardHost: AnyObject {
  var text: TextModel { get }
  var layout: Layout { get }
  var configuration: EngineConfiguration { get }
  var world: EngineWorld { get }
  /// The keymap's group and locks as the application has them.
  var keymapGroup: Int { get }
  var isNumLocked: Bool { get }
  /// Whether the application sees a modifier held (Shift, AltGr…).
  var hasModifiers: Bool { get }
  /// Whether the user holds `code` down.
  func isPhysicallyHeld(_ code: UInt16) -> Bool

  /// Emits one key event (`applying`: its edit goes to the text model;
  /// false for planned typing, whose edits were made when it was planned).
  func emit(_ code: UInt16, _ value: KeyValue, applying: Bool, into output: inout KeyOutput)
  /// The modifiers down on the output, at most three: what an aid lifts
  /// while it types.
  func modifiersDownOnOutput() -> ModifierKeys
  /// Whether the release of the physical key `code` is dropped.
  func swallowRelease(of code: UInt16, _ swallow: Bool)
  /// The engine typed the capital of `typed` for the key `key` with the key
  /// `standIn`, which goes up when `key` does.
  func capitalized(typed: Unicode.Scalar, key: UInt16, standIn: UInt16)

  /// How an edit of the engine's own is planned on the keyboard as it is now.
  func editPlanner() -> EditPlanner
  /// Makes in the text model the edits a planned typing makes in the
  /// application's: `deleting` characters, then `inserting`.
  func planned(deleting: Int, inserting: ArraySlice<Unicode.Scalar>)
  /// Asks the user's session for a value; false when nobody can answer
  /// (the request is then never made).
  func ask(_ request: @autoclosure () -> SessionRequest) -> Bool
  func notice(_ notice: EngineNotice)
  /// Opens the picker on the snippets that share `trigger`, just typed;
  /// false when it cannot be shown.
  func openMenu(_ snippets: [Int], trigger: String, into output: inout KeyOutput) -> Bool
  /// Opens the picker on every snippet, as the chord does; false when it
  /// cannot be shown.
  func openSearch(into output: inout KeyOutput) -> Bool
  /// The expansion is done with the keys: those that waited go now, in
  /// order (and a layout reported meanwhile is followed).
  func keysMayGo(at now: Instant, into output: inout KeyOutput)
}

extension KeyboardHost {
  /// Presses and releases one key.
  func tap(_ code: UInt16, into output: inout KeyOutput) {
    emit(code, .down, applying: true, into: &output)
    emit(code, .up, applying: true, into: &output)
  }

  /// Types one stroke: its modifiers down, its key tapped, its modifiers up.
  func type(_ stroke: Stroke, into output: inout KeyOutput) {
    var index = 0
    while index < stroke.modifiers.count {
      emit(stroke.modifiers[index], .down, applying: true, into: &output)
      index += 1
    }
    tap(stroke.key, into: &output)
    while index > 0 {
      index -= 1
      emit(stroke.modifiers[index], .up, applying: true, into: &output)
    }
  }
}

/// The events that arrive while the engine types or waits: handled after,
/// in order, as of the time they reach the application.
struct EventQueue {
  private var events: [KeyEvent] = []
  private var head = 0

  init() { events.reserveCapacity(256) }

  var isEmpty: Bool { head == events.count }

  mutating func append(_ event: KeyEvent) { events.append(event) }

  /// The next event, stamped no earlier than `now`; nil when none waits.
  mutating func next(at now: Instant) -> KeyEvent? {
    guard head < events.count else {
      removeAll()
      return nil
    }
    var event = events[head]
    head += 1
    if event.time < now { event.time = now }
    return event
  }

  mutating func removeAll() {
    events.removeAll(keepingCapacity: true)
    head = 0
  }
}

/// The keys held: on the physical keyboards (counted, a key may be down on
/// two), and on the virtual keyboard; which physical releases are dropped,
/// and which output key stands in for a physical one.
struct KeyHolds {
  /// How many devices hold each key down.
  private var physical = [UInt8](repeating: 0, count: KeyCode.count)
  /// Which keys are down on the virtual keyboard.
  private(set) var outputDown = [Bool](repeating: false, count: KeyCode.count)
  /// Physical keys whose press the engine replaced: their release is dropped.
  var swallowRelease = [Bool](repeating: false, count: KeyCode.count)
  /// For a physical key held as another output key (an auto-capital on
  /// another key), that key; 0 when the key stands for itself.
  var standIn = [UInt16](repeating: 0, count: KeyCode.count)
  /// A physical press; false when another device holds the key already.
  mutating func press(_ code: UInt16) -> Bool {
    guard Int(code) < KeyCode.count else { return false }
    physical[Int(code)] &+= 1
    return physical[Int(code)] == 1
  }

  /// A physical release; false while another device still holds the key.
  mutating func release(_ code: UInt16) -> Bool {
    guard Int(code) < KeyCode.count, physical[Int(code)] > 0 else { return false }
    physical[Int(code)] -= 1
    return physical[Int(code)] == 0
  }

  func isHeld(_ code: UInt16) -> Bool { physical[Int(code)] > 0 }

  /// Records an output event; false when it changes nothing (a key already
  /// down pressed again, one already up released).
  mutating func setOutput(_ code: UInt16, down: Bool) -> Bool {
    guard outputDown[Int(code)] != down else { return false }
    outputDown[Int(code)] = down
    return true
  }

  /// The keys down on the virtual keyboard.
  var downOnOutput: [UInt16] { (0..<KeyCode.count).filter { outputDown[$0] }.map(UInt16.init) }

  /// The modifier keys lifted while the engine types text of its own.
  private static let modifierKeys: [UInt16] = [
    KeyCode.leftShift, KeyCode.rightShift, KeyCode.leftCtrl, KeyCode.rightCtrl,
    KeyCode.leftAlt, KeyCode.rightAlt, KeyCode.leftMeta, KeyCode.rightMeta,
  ]

  /// The modifiers down on the output, at most three: what the engine
  /// lifts while it types.
  func modifiersDown() -> ModifierKeys {
    var down = ModifierKeys()
    var index = 0
    while index < Self.modifierKeys.count {
      let key = Self.modifierKeys[index]
      if outputDown[Int(key)] && down.count < 3 { down.append(key) }
      index += 1
    }
    return down
  }

  /// Whether every key of `chord` is held.
  func holds(_ chord: [UInt16]) -> Bool {
    var index = 0
    while index < chord.count {
      if !isHeld(chord[index]) { return false }
      index += 1
    }
    return true
  }

  /// Forgets the physical holds; returns the keys down on the output, to
  /// release.
  mutating func releaseAll() -> [UInt16] {
    let down = downOnOutput
    physical = [UInt8](repeating: 0, count: KeyCode.count)
    swallowRelease = [Bool](repeating: false, count: KeyCode.count)
    standIn = [UInt16](repeating: 0, count: KeyCode.count)
    return down
  }
}

/// The engine is its parts' host.
extension Engine: KeyboardHost {
  var keymapGroup: Int { decoder.group }
  var isNumLocked: Bool { decoder.isNumLocked }
  var hasModifiers: Bool { decoder.hasModifiers }
  func isPhysicallyHeld(_ code: UInt16) -> Bool { keys.isHeld(code) }

  func emit(_ code: UInt16, _ value: KeyValue, applying: Bool, into output: inout KeyOutput) {
    emit(code, value, into: &output, applying: applying)
  }

  func modifiersDownOnOutput() -> ModifierKeys { keys.modifiersDown() }

  func swallowRelease(of code: UInt16, _ swallow: Bool) { keys.swallowRelease[Int(code)] = swallow }

  func capitalized(typed: Unicode.Scalar, key: UInt16, standIn: UInt16) {
    text.noteAutoCapitalized(typed: typed)
    keys.standIn[Int(key)] = standIn == key ? 0 : standIn
  }

  func editPlanner() -> EditPlanner {
    EditPlanner(layout: layout, configuration: configuration.expansion, decoder: decoder, keys: keys)
  }

  func planned(deleting: Int, inserting: ArraySlice<Unicode.Scalar>) {
    for _ in 0..<deleting { text.deleteBackward() }
    for character in inserting { apply(.insert(character)) }
    aids.engineTyped()
  }

  func ask(_ request: @autoclosure () -> SessionRequest) -> Bool { onSessionCall?(request()) == true }

  func openMenu(_ snippets: [Int], trigger: String, into output: inout KeyOutput) -> Bool {
    openPicker(scope: snippets, trigger: trigger, into: &output)
  }

  func openSearch(into output: inout KeyOutput) -> Bool { openPicker(scope: nil, trigger: nil, into: &output) }

  func notice(_ notice: EngineNotice) { onNotice?(notice) }

  func keysMayGo(at now: Instant, into output: inout KeyOutput) {
    if let pending = pendingLayout, !expander.isTyping { follow(pending, group: pendingGroup) }
    replayQueuedEvents(at: now, into: &output)
  }
}
