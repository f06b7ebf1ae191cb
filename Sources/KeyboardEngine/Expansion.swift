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

  init(layout: Layout, configuration: ExpansionConfiguration, group: Int) {
    self.layout = layout
    self.configuration = configuration
    self.group = group
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
    if let typing = layout.typing(of: character, from: group) {
      type(typing)
      return true
    }
    return typeCodePoint(character)
  }

  /// The Ctrl+Shift+U input of GTK and IBus: the chord, the code point in
  /// hex, then Space to commit.
  private mutating func typeCodePoint(_ character: Unicode.Scalar) -> Bool {
    guard configuration.unicodeInput == .ctrlShiftU, let u = layout.typing(of: "u", from: group), u.deadKey == nil
    else {
      return false
    }
    let digits = String(character.value, radix: 16).unicodeScalars
    var typings: [Typing] = []
    for digit in digits {
      guard let typing = layout.typing(of: digit, from: group) else { return false }
      typings.append(typing)
    }
    switchGroup(to: u.stroke.group)
    chord([KeyCode.leftCtrl, KeyCode.leftShift], u.stroke.key)
    for typing in typings { type(typing) }
    tap(KeyCode.space)
    return true
  }

  private mutating func type(_ typing: Typing) {
    if let deadKey = typing.deadKey { type(deadKey) }
    type(typing.stroke)
  }

  private mutating func type(_ stroke: Stroke) {
    switchGroup(to: stroke.group)
    chord(Array(stroke.modifiers), stroke.key)
  }

  /// Modifiers down in order, the key tapped, modifiers up in reverse.
  private mutating func chord(_ modifiers: [UInt16], _ key: UInt16) {
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

  /// Whether planned keys are still to go out.
  var isActive: Bool { position < keys.count }

  mutating func start(_ plan: TypingPlan) {
    keys = plan.keys
    position = 0
    deadline = nil
  }

  /// The keys of the burst due at `now`, scheduling the next one.
  mutating func nextBurst(at now: Instant, configuration: ExpansionConfiguration) -> Range<Int> {
    let burst = position..<min(position + max(configuration.burstKeys, 1), keys.count)
    position = burst.upperBound
    deadline = isActive ? now.adding(milliseconds: configuration.burstGapMilliseconds) : nil
    return burst
  }

  /// Forgets what is left (release-all, shutdown).
  mutating func cancel() {
    position = keys.count
    deadline = nil
  }
}

/// The last expansion, while the user types plain characters after it: a
/// trigger that starts before its end (`my` expanded, then `self` typed
/// completes `myself`) is matched on what the user typed, not on the
/// replacement. espanso fires the first complete trigger, so there `my`
/// shadows `myself`; here the longer one takes the shorter one's place.
struct ExpansionChain {
  /// The trigger as the user typed it.
  var typed: [Unicode.Scalar]
  /// The replacement's characters in the text model.
  var shown: Int
  /// Characters typed since, at the end of the model.
  var suffix = 0
}

/// The text model with the last expansion's replacement seen as the trigger
/// the user typed (see ``ExpansionChain``).
struct TextBeforeExpansion: MatchableText {
  let text: TextModel
  let chain: ExpansionChain

  var count: Int { text.count - chain.shown + chain.typed.count }
  var isTruncated: Bool { text.isTruncated }

  /// Where `offset` falls: in the model (its offset there), or in the trigger.
  private func place(_ offset: Int) -> (model: Int?, typed: Int) {
    if offset < chain.suffix { return (offset, 0) }
    let intoTrigger = offset - chain.suffix
    if intoTrigger < chain.typed.count { return (nil, chain.typed.count - 1 - intoTrigger) }
    return (offset - chain.typed.count + chain.shown, 0)
  }

  subscript(fromEnd offset: Int) -> Unicode.Scalar {
    let place = place(offset)
    return place.model.map { text[fromEnd: $0] } ?? chain.typed[place.typed]
  }

  subscript(typedFromEnd offset: Int) -> Unicode.Scalar {
    let place = place(offset)
    return place.model.map { text[typedFromEnd: $0] } ?? chain.typed[place.typed]
  }

  func isAutoCapitalized(fromEnd offset: Int) -> Bool {
    place(offset).model.map { text.isAutoCapitalized(fromEnd: $0) } ?? false
  }
}

/// What Backspace as the very next key after an expansion undoes.
struct ExpansionUndo {
  /// Characters of the replacement before the cursor, and after it.
  var before: Int
  var after: Int
  /// What the user had typed: the trigger, and the separator of a right-word one.
  var typed: [Unicode.Scalar]
}

/// Something the host should log (without typed text).
public enum EngineNotice: Equatable, Sendable, CustomStringConvertible {
  /// A snippet fired but a character of its replacement has no key on the
  /// layout and `unicode_input` is `none`: the trigger stays as typed.
  case expansionRefused(origin: String, layout: String)

  /// The notice as a log line.
  public var description: String {
    switch self {
    case .expansionRefused(let origin, let layout):
      return "snippet at \(origin) not typed: layout \(layout) has no key for a character "
        + "of its replacement and unicode_input is none"
    }
  }
}

extension Engine {
  /// Starts the expansion of `match`, whose last key `code` is going down.
  /// False, with nothing emitted, when the replacement cannot be typed.
  /// `view` is what the trigger was matched on; the last `modelLength`
  /// characters of the text model are what it covers on the screen.
  func expand(
    _ match: SnippetMatcher.Match, in view: some MatchableText, modelLength: Int, key code: UInt16,
    next: Unicode.Scalar, at time: Instant, into output: inout KeyOutput
  ) -> Bool {
    let snippet = snippets.snippets[match.snippet]
    var typed: [Unicode.Scalar] = []
    for offset in stride(from: match.typedLength - 1, through: 0, by: -1) {
      typed.append(view[typedFromEnd: offset])
    }
    if !match.endsWithSeparator { typed.append(next) }
    var rendered = snippet.render(typed: typed, now: wallClock())
    // The trigger's first letter was capitalized at a sentence start: so is
    // the replacement's.
    if match.typedLength > 0, view.isAutoCapitalized(fromEnd: match.typedLength - 1),
      let first = rendered.text.firstIndex(where: { $0.properties.isAlphabetic }),
      rendered.text[first].properties.isLowercase,
      case let capital = rendered.text[first].properties.uppercaseMapping.unicodeScalars,
      capital.count == 1
    {
      rendered.text[first] = capital[capital.startIndex]
    }
    if match.endsWithSeparator {
      typed.append(next)
      rendered.text.append(next)
      if rendered.charactersAfterCursor > 0 { rendered.charactersAfterCursor += 1 }
    }
    let deleted = Self.graphemeCount(typedLengthOf: modelLength, in: text)
    guard let plan = planTyping(deleting: deleted, forward: 0, typing: rendered) else {
      if refusedSnippets.insert(match.snippet).inserted {
        onNotice?(.expansionRefused(origin: snippet.origin, layout: layout.names.description))
      }
      return false
    }
    swallowRelease[Int(code)] = true
    let shown = rendered.text.count - rendered.charactersAfterCursor
    undo = ExpansionUndo(before: shown, after: rendered.charactersAfterCursor, typed: typed)
    // Typing on may complete a longer trigger that runs through this one.
    if !match.endsWithSeparator && rendered.charactersAfterCursor == 0 && text.count >= shown {
      chain = ExpansionChain(typed: typed, shown: shown)
    }
    startTyping(plan, at: time, into: &output)
    return true
  }

  /// Backspace right after an expansion: the replacement goes, the trigger
  /// comes back as the user typed it.
  func undoExpansion(_ undo: ExpansionUndo, key code: UInt16, at time: Instant, into output: inout KeyOutput) {
    let rendered = RenderedSnippet(text: undo.typed, charactersAfterCursor: 0)
    guard let plan = planTyping(deleting: undo.before, forward: undo.after, typing: rendered) else { return }
    swallowRelease[Int(code)] = true
    startTyping(plan, at: time, into: &output)
  }

  /// Plans the keys that delete `backward` characters before the cursor and
  /// `forward` after it, then type `rendered`, with every key held on the
  /// output released first and the user's modifiers restored after; and
  /// makes the same edits in the text model. Nil, with nothing changed, when
  /// a character cannot be typed.
  private func planTyping(deleting backward: Int, forward: Int, typing rendered: RenderedSnippet) -> TypingPlan? {
    chain = nil
    var plan = TypingPlan(layout: layout, configuration: configuration.expansion, group: decoder.group)
    var restore: [UInt16] = []
    for code in 0..<KeyCode.count where outputDown[code] {
      plan.release(UInt16(code))
      if physicalHolds[code] > 0 && decoder.isModifier(UInt16(code)) { restore.append(UInt16(code)) }
    }
    let capsLocked = decoder.isCapsLocked
    if capsLocked { plan.tap(KeyCode.capsLock) }
    plan.tap(KeyCode.delete, times: forward)
    plan.tap(KeyCode.backspace, times: backward)
    for character in rendered.text {
      guard plan.type(character) else { return nil }
    }
    plan.tap(KeyCode.left, times: rendered.charactersAfterCursor)
    plan.restoreGroup()
    if capsLocked { plan.tap(KeyCode.capsLock) }
    for code in restore { plan.press(code) }

    for _ in 0..<backward { text.deleteBackward() }
    for character in rendered.text.dropLast(rendered.charactersAfterCursor) { apply(.insert(character)) }
    autoPeriod.otherKey()
    autoCapitalization.cancel()
    return plan
  }

  /// The characters (as Backspace deletes them) in the last `length` code
  /// points of the model.
  private static func graphemeCount(typedLengthOf length: Int, in text: TextModel) -> Int {
    var count = 0
    for offset in 0..<length where !TextModel.isCombining(text[fromEnd: offset]) { count += 1 }
    return count
  }

  /// Sends the first burst of `plan` now (touch-down) and schedules the rest.
  private func startTyping(_ plan: TypingPlan, at time: Instant, into output: inout KeyOutput) {
    typing.start(plan)
    typeBurst(at: time, into: &output)
  }

  /// Sends the burst due at `now`; after the last one, the keys the user
  /// typed meanwhile, in order.
  func typeBurst(at now: Instant, into output: inout KeyOutput) {
    let burst = typing.nextBurst(at: now, configuration: configuration.expansion)
    var index = burst.lowerBound
    while index < burst.upperBound {
      let key = typing.keys[index]
      emit(key.code, key.value, into: &output, applying: false)
      index += 1
    }
    if !typing.isActive {
      followPendingLayout()
      replayQueuedEvents(at: now, into: &output)
    }
  }
}
