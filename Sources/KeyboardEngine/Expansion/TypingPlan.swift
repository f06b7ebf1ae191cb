#if canImport(Glibc)
  import Glibc
#endif

/// The key events that type a text of the engine's own (an expansion, its
/// undo), planned in full before the first one goes out, so that a character
/// the layout cannot type stops the expansion before anything is deleted.
struct TypingPlan {
  private let layout: Layout
  private let configuration: ExpansionConfiguration
  private(set) var keys: [OutputKey] = []
  /// The group the keymap will be in when the planned keys have gone out.
  private var group: Int
  private let startGroup: Int
  /// Whether Num Lock is on, as the keyboard's LED says: the keypad's keys
  /// type by it, and typing never toggles it.
  private let numLock: Bool

  init(layout: Layout, configuration: ExpansionConfiguration, group: Int, numLock: Bool) {
    self.layout = layout
    self.configuration = configuration
    self.group = group
    self.numLock = numLock
    startGroup = group
    keys.reserveCapacity(64)
  }

  mutating func press(_ code: UInt16) { keys.append(OutputKey(code: code, value: .down)) }
  mutating func release(_ code: UInt16) { keys.append(OutputKey(code: code, value: .up)) }

  mutating func tap(_ code: UInt16, times: Int = 1) {
    for _ in 0..<max(times, 0) {
      press(code)
      release(code)
    }
  }

  /// Types one character; false when the layout has no key for it and the
  /// configuration no fallback.
  mutating func type(_ character: Unicode.Scalar) -> Bool {
    switch character {
    case "\n":
      chord(configuration.newline == .shiftEnter ? [KeyCode.leftShift] : [], KeyCode.enter)
      return true
    case "\t":
      tap(KeyCode.tab)
      return true
    default:
      break
    }
    if let typing = layout.typing(of: character, from: group, numLock: numLock) {
      type(typing)
      return true
    }
    return typeCodePoint(character)
  }

  /// The Ctrl+Shift+U input of GTK and IBus: the chord, the code point in
  /// hex, then Space to commit.
  private mutating func typeCodePoint(_ character: Unicode.Scalar) -> Bool {
    guard configuration.unicodeInput == .ctrlShiftU, let u = layout.typing(of: "u", from: group, numLock: numLock),
      u.prefix.isEmpty
    else {
      return false
    }
    let digits = String(character.value, radix: 16).unicodeScalars
    var typings: [Typing] = []
    for digit in digits {
      guard let typing = layout.typing(of: digit, from: group, numLock: numLock) else { return false }
      typings.append(typing)
    }
    switchGroup(to: u.stroke.group)
    chord([KeyCode.leftCtrl, KeyCode.leftShift], u.stroke.key)
    for typing in typings { type(typing) }
    tap(KeyCode.space)
    return true
  }

  private mutating func type(_ typing: Typing) {
    for stroke in typing.prefix { type(stroke) }
    type(typing.stroke)
  }

  private mutating func type(_ stroke: Stroke) {
    switchGroup(to: stroke.group)
    chord(Array(stroke.modifiers), stroke.key)
  }

  /// Modifiers down in order, the key tapped, modifiers up in reverse.
  mutating func chord(_ modifiers: [UInt16], _ key: UInt16) {
    for modifier in modifiers { press(modifier) }
    tap(key)
    for modifier in modifiers.reversed() { release(modifier) }
  }

  /// Taps the layout's group-switch chord until `target` is in effect.
  private mutating func switchGroup(to target: Int) {
    guard target != group, let chord = layout.nextGroupChord else { return }
    while group != target {
      for key in chord { press(key) }
      for key in chord.reversed() { release(key) }
      group = (group + 1) % layout.groupCount
    }
  }

  /// Switches back to the group the plan started in.
  mutating func restoreGroup() { switchGroup(to: startGroup) }
}

/// Text the engine types itself, going out in bursts with timer deadlines
/// between them (DESIGN 3.5), never with a blocking sleep.
struct TypingQueue {
  private(set) var keys: [OutputKey] = []
  private var position = 0
  /// When the next burst is due; nil when nothing waits.
  private(set) var deadline: Instant?
  /// When the last burst went out, of this plan or one before.
  private var lastBurst: Instant?

  /// Whether planned keys are still to go out.
  var isActive: Bool { position < keys.count }

  /// Starts `plan`: its first burst is due at once, or a gap after the
  /// last burst of the plan before (an expansion whose trigger waited for
  /// another to end: both would go out in one turn, more than a reader's
  /// buffer holds).
  mutating func start(_ plan: TypingPlan, at now: Instant, configuration: ExpansionConfiguration) {
    keys = plan.keys
    position = 0
    deadline = max(lastBurst?.adding(milliseconds: configuration.burstGapMilliseconds) ?? now, now)
  }

  /// The keys of the burst due at `now`, scheduling the next one.
  mutating func nextBurst(at now: Instant, configuration: ExpansionConfiguration) -> Range<Int> {
    let burst = position..<min(position + max(configuration.burstKeys, 1), keys.count)
    position = burst.upperBound
    lastBurst = now
    deadline = isActive ? now.adding(milliseconds: configuration.burstGapMilliseconds) : nil
    return burst
  }

  /// Forgets what is left (release-all, shutdown).
  mutating func cancel() {
    position = keys.count
    deadline = nil
  }
}

/// Plans the keys of an edit of the engine's own (an expansion, its undo):
/// the keys held on the output released first, Caps Lock off, the
/// deletions, the text typed or pasted, the cursor moved back over the
/// characters after the hint, and all restored. What the keyboard is now
/// comes from the engine; planning changes nothing.
struct EditPlanner {
  var layout: Layout
  var configuration: ExpansionConfiguration
  /// The keymap's group and locks as the application has them.
  var group: Int
  var numLock: Bool
  var capsLocked: Bool
  /// The keys down on the output, and of them the modifiers the user holds,
  /// pressed again after.
  var keysDown: [UInt16]
  var heldModifiers: [UInt16]

  /// The plans of `layout`, on the keyboard `decoder` and `keys` say.
  init(layout: Layout, configuration: ExpansionConfiguration, decoder: KeystrokeDecoder, keys: KeyHolds) {
    self.layout = layout
    self.configuration = configuration
    group = decoder.group
    numLock = decoder.isNumLocked
    capsLocked = decoder.isCapsLocked
    keysDown = keys.downOnOutput
    heldModifiers = keysDown.filter { keys.isHeld($0) && decoder.isModifier($0) }
  }

  /// The keys that delete `backward` characters before the cursor and
  /// `forward` after it, then type `rendered`; nil when a character cannot
  /// be typed.
  func typing(deleting backward: Int, forward: Int, _ rendered: RenderedSnippet) -> TypingPlan? {
    edit(deleting: backward, forward: forward, cursorBack: rendered.charactersAfterCursor) { plan in
      rendered.text.allSatisfy { plan.type($0) }
    }
  }

  /// The keys that delete `backward` characters and paste (the paste
  /// chord, then Left for the characters after the cursor hint); nil when
  /// the layout has no plain key for the chord's letter.
  func pasting(deleting backward: Int, _ pasted: RenderedSnippet) -> TypingPlan? {
    let shortcut = configuration.pasteShortcut
    let key: UInt16
    if shortcut == .shiftInsert {
      key = KeyCode.insert
    } else {
      guard let v = layout.typing(of: "v", from: group), v.prefix.isEmpty, v.stroke.modifiers.count == 0
      else { return nil }
      key = v.stroke.key
    }
    let modifiers: [UInt16] =
      switch shortcut {
      case .ctrlV: [KeyCode.leftCtrl]
      case .ctrlShiftV: [KeyCode.leftCtrl, KeyCode.leftShift]
      case .shiftInsert: [KeyCode.leftShift]
      }
    return edit(deleting: backward, forward: 0, cursorBack: pasted.charactersAfterCursor) { plan in
      plan.chord(modifiers, key)
      return true
    }
  }

  private func edit(
    deleting backward: Int, forward: Int, cursorBack: Int, _ insert: (inout TypingPlan) -> Bool
  ) -> TypingPlan? {
    var plan = TypingPlan(layout: layout, configuration: configuration, group: group, numLock: numLock)
    for code in keysDown { plan.release(code) }
    if capsLocked { plan.tap(KeyCode.capsLock) }
    plan.tap(KeyCode.delete, times: forward)
    plan.tap(KeyCode.backspace, times: backward)
    guard insert(&plan) else { return nil }
    plan.tap(KeyCode.left, times: cursorBack)
    plan.restoreGroup()
    if capsLocked { plan.tap(KeyCode.capsLock) }
    for code in heldModifiers { plan.press(code) }
    return plan
  }

  /// How many characters the replacement shares with the start of the last
  /// `length` characters of the model (what the trigger shows), so that they
  /// stay: `recieve` becomes `receive` by deleting from its fourth letter.
  /// Stops before a combining character on either side (Backspace deletes
  /// whole characters), and at the cursor hint.
  static func sharedStart(of rendered: RenderedSnippet, withLast length: Int, of text: TextModel) -> Int {
    let limit = min(length, rendered.text.count - rendered.charactersAfterCursor)
    var shared = 0
    while shared < limit, text[fromEnd: length - 1 - shared] == rendered.text[shared] { shared += 1 }
    while shared > 0,
      shared < length && TextModel.isCombining(text[fromEnd: length - 1 - shared])
        || shared < rendered.text.count && TextModel.isCombining(rendered.text[shared])
    {
      shared -= 1
    }
    return shared
  }

  /// The characters (as Backspace deletes them) in the last `length` code
  /// points of the model.
  static func graphemeCount(typedLengthOf length: Int, in text: TextModel) -> Int {
    var count = 0
    for offset in 0..<length where !TextModel.isCombining(text[fromEnd: offset]) { count += 1 }
    return count
  }
}
