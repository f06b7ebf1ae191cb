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
  /// A snippet's session variable got no value: the trigger stays as typed.
  case sessionVariableFailed(origin: String, reason: SessionFailure)

  /// The notice as a log line.
  public var description: String {
    switch self {
    case .expansionRefused(let origin, let layout):
      return "snippet at \(origin) not typed: layout \(layout) has no key for a character "
        + "of its replacement and unicode_input is none"
    case .sessionVariableFailed(let origin, let reason):
      return "snippet at \(origin) not typed: \(reason)"
    }
  }
}

/// Why a session variable got no value.
public enum SessionFailure: Error, Equatable, Sendable, CustomStringConvertible {
  /// No session agent of the active user is connected.
  case noAgent
  /// No answer within the timeout.
  case timedOut
  /// The agent could not work it out (a program failed, a dialog was
  /// cancelled): its reason, which carries no typed text.
  case failed(String)

  public var description: String {
    switch self {
    case .noAgent: "its variables need the user's session agent, and none is connected"
    case .timedOut: "the session agent did not answer in time"
    case .failed(let reason): "the session agent could not work out a variable: \(reason)"
    }
  }
}

/// What the engine asks the user's session for: one variable's value.
public struct SessionRequest: Equatable, Sendable {
  /// Matches the answer to the question.
  public var id: UInt32
  public var call: SessionCall
  /// The values worked out before it, by name (espanso gives them to
  /// programs as `ESPANSO_NAME`, a form's fields as `ESPANSO_NAME_FIELD`).
  public var environment: [String: String]
}

/// An expansion whose snippet waits for a session variable's value.
struct WaitingExpansion {
  var request: UInt32 = 0
  /// The variable asked for.
  var variable = 0
  var match: SnippetMatcher.Match
  var inputs: VariableInputs
  /// The trigger as typed, the key being pressed included.
  var typed: [Unicode.Scalar]
  /// Characters of the model the trigger covers.
  var modelLength: Int
  /// Whether the trigger's first letter was capitalized at a sentence start.
  var capitalized: Bool
  /// The trigger's last key, swallowed until the expansion is typed.
  var key: UInt16
  var next: Unicode.Scalar
  var deadline: Instant
  /// A dialog asks the user: keys go to it meanwhile instead of waiting,
  /// and the trigger is deleted by its length then, the text model having
  /// moved on.
  var passesKeys = false
  /// Characters on the screen the trigger covers, as Backspace deletes them.
  var screenLength = 0
  /// The expansion waits for the clipboard to hold its text: it is pasted
  /// (the characters to delete first, and what is pasted) once it does.
  var paste: (deleted: Int, text: RenderedSnippet)?
  /// The clipboard could not take the text: it is typed.
  var typesInstead = false

  /// How long a dialog may stay open before the expansion is given up.
  static let dialogTimeoutMilliseconds: Int64 = 10 * 60_000
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
    // A snippet of a match file left out here does not fire (a shorter
    // trigger it stands over does not either: a rare case, left as it is).
    if !snippetOff.isEmpty && snippetOff[match.snippet] { return false }
    var typed: [Unicode.Scalar] = []
    for offset in stride(from: match.typedLength - 1, through: 0, by: -1) {
      typed.append(view[typedFromEnd: offset])
    }
    if !match.endsWithSeparator { typed.append(next) }
    var inputs = VariableInputs(now: wallClock(), seed: UInt64.random(in: 0...UInt64.max))
    inputs.captures = snippets.captures(of: match, scratch: regexScratch)
    let waiting = WaitingExpansion(
      match: match, inputs: inputs, typed: typed, modelLength: modelLength,
      capitalized: match.typedLength > 0 && view.isAutoCapitalized(fromEnd: match.typedLength - 1),
      key: code, next: next, deadline: time.adding(milliseconds: configuration.expansion.sessionTimeoutMilliseconds))
    switch continueExpansion(waiting, at: time, into: &output) {
    case .typed, .waiting:
      swallowRelease[Int(code)] = true
      return true
    case .failed:
      return false
    }
  }

  enum ExpansionStep { case typed, waiting, failed }

  /// Works out the snippet's variables: asks the session for the next one
  /// it needs, or types the expansion when all are known.
  private func continueExpansion(
    _ expansion: WaitingExpansion, at time: Instant, into output: inout KeyOutput
  ) -> ExpansionStep {
    let snippet = snippets.snippets[expansion.match.snippet]
    let (values, needed) = snippet.evaluate(expansion.inputs, nested: { self.snippets.snippet(forTrigger: $0) })
    if let needed, let call = snippet.sessionCall(needed, values: values) {
      var asking = expansion
      asking.request = nextRequest()
      asking.variable = needed
      if case .choice = call { asking.passesKeys = true }
      if case .form = call { asking.passesKeys = true }
      if asking.passesKeys && !expansion.passesKeys {
        asking.screenLength = Self.graphemeCount(typedLengthOf: expansion.modelLength, in: text)
        asking.deadline = time.adding(milliseconds: WaitingExpansion.dialogTimeoutMilliseconds)
      }
      waiting = asking
      var environment: [String: String] = [:]
      for (index, variable) in snippet.variables.enumerated() {
        guard let value = values[index] else { continue }
        let name = "ESPANSO_" + variable.name.uppercased()
        environment[name] = value.text
        for (field, text) in value.fields { environment[name + "_" + field.uppercased()] = text }
      }
      guard onSessionCall?(SessionRequest(id: asking.request, call: call, environment: environment)) == true else {
        waiting = nil
        onNotice?(.sessionVariableFailed(origin: snippet.origin, reason: .noAgent))
        return .failed
      }
      return .waiting
    }
    var rendered = snippet.render(typed: expansion.typed, values: values)
    // The trigger's first letter was capitalized at a sentence start: so is
    // the replacement's.
    if expansion.capitalized,
      let first = rendered.text.firstIndex(where: { $0.properties.isAlphabetic }),
      rendered.text[first].properties.isLowercase,
      case let capital = rendered.text[first].properties.uppercaseMapping.unicodeScalars,
      capital.count == 1
    {
      rendered.text[first] = capital[capital.startIndex]
    }
    var typed = expansion.typed
    if expansion.match.endsWithSeparator {
      typed.append(expansion.next)
      rendered.text.append(expansion.next)
      if rendered.charactersAfterCursor > 0 { rendered.charactersAfterCursor += 1 }
    }
    // What is on the screen already and starts the replacement stays.
    let kept = expansion.passesKeys ? 0 : Self.sharedStart(of: rendered, withLast: expansion.modelLength, of: text)
    let deleted =
      expansion.passesKeys
      ? expansion.screenLength : Self.graphemeCount(typedLengthOf: expansion.modelLength - kept, in: text)
    let remaining = RenderedSnippet(
      text: Array(rendered.text[kept...]), charactersAfterCursor: rendered.charactersAfterCursor)
    let chainable = !expansion.match.endsWithSeparator && rendered.charactersAfterCursor == 0
    let undoLength = rendered.text.count - rendered.charactersAfterCursor
    // A long text goes through the clipboard, when the session can put it
    // there: the keys wait until it does.
    let threshold = configuration.expansion.clipboardThreshold
    if threshold > 0, remaining.text.count > threshold, !expansion.typesInstead, expansion.paste == nil {
      var pasting = expansion
      pasting.request = nextRequest()
      pasting.paste = (deleted, remaining)
      pasting.passesKeys = false
      pasting.deadline = time.adding(milliseconds: configuration.expansion.sessionTimeoutMilliseconds)
      waiting = pasting
      if onSessionCall?(
        SessionRequest(
          id: pasting.request, call: .paste(String(String.UnicodeScalarView(remaining.text))), environment: [:]))
        == true
      {
        return .waiting
      }
      waiting = nil  // no agent: typed
    }
    let plan: TypingPlan?
    if let paste = expansion.paste {
      plan = planPasting(deleting: paste.deleted, pasted: paste.text)
    } else {
      plan = planTyping(deleting: deleted, forward: 0, typing: remaining)
    }
    guard let plan else {
      if refusedSnippets.insert(expansion.match.snippet).inserted {
        onNotice?(.expansionRefused(origin: snippet.origin, layout: layout.names.description))
      }
      return .failed
    }
    undo = ExpansionUndo(before: undoLength, after: rendered.charactersAfterCursor, typed: typed)
    // Typing on may complete a longer trigger that runs through this one.
    if chainable && text.count >= undoLength {
      chain = ExpansionChain(typed: typed, shown: undoLength)
    }
    startTyping(plan, at: time, into: &output)
    if expansion.paste != nil {
      _ = onSessionCall?(SessionRequest(id: nextRequest(), call: .restoreClipboard, environment: [:]))
    }
    return .typed
  }

  /// How many characters the replacement shares with the start of the last
  /// `length` characters of the model (what the trigger shows), so that they
  /// stay: `recieve` becomes `receive` by deleting from its fourth letter.
  /// Stops before a combining character on either side (Backspace deletes
  /// whole characters), and at the cursor hint.
  private static func sharedStart(of rendered: RenderedSnippet, withLast length: Int, of text: TextModel) -> Int {
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

  /// The session agent's answer to request `id`: the variable's value, or
  /// why there is none. Types the expansion (or asks for the next
  /// variable); without a value, the trigger stays as typed.
  public func sessionAnswered(
    _ id: UInt32, value: Result<VariableValue, SessionFailure>, at now: Instant, into output: inout KeyOutput
  ) {
    settle()
    guard var expansion = waiting, expansion.request == id else { return }  // late: it timed out
    waiting = nil
    switch (value, expansion.paste != nil) {
    case (.failure, true):
      // Pasted once the clipboard holds the text; typed when it cannot.
      expansion.paste = nil
      expansion.typesInstead = true
    case (.success, true): break
    case (.failure(let reason), false):
      onNotice?(.sessionVariableFailed(origin: snippets.snippets[expansion.match.snippet].origin, reason: reason))
      giveUp(expansion, at: now, into: &output)
      return
    case (.success(let value), false):
      expansion.inputs.answers[expansion.variable] = value
    }
    switch continueExpansion(expansion, at: now, into: &output) {
    case .waiting: return
    case .typed: if !typing.isActive { replayQueuedEvents(at: now, into: &output) }
    case .failed: giveUp(expansion, at: now, into: &output)
    }
  }

  /// Leaves the trigger as typed: its swallowed last key goes out now (its
  /// release, still queued or to come, with it), then the keys that waited.
  func giveUp(_ expansion: WaitingExpansion, at now: Instant, into output: inout KeyOutput) {
    waiting = nil
    // Its release is still to come (or queued): the key was held when the
    // keys started to wait. After a dialog, the moment has passed.
    guard !expansion.passesKeys else { return }
    swallowRelease[Int(expansion.key)] = false
    emit(expansion.key, .down, into: &output)
    replayQueuedEvents(at: now, into: &output)
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
    planEdit(deleting: backward, forward: forward, inserting: rendered) { plan in
      for character in rendered.text {
        guard plan.type(character) else { return false }
      }
      return true
    }
  }

  /// The plan of an edit: the held keys released, Caps Lock off, the
  /// deletions, what `insert` puts in (false: it cannot), the cursor moved
  /// back over the characters after the hint, and all restored; with the
  /// same edits made in the text model.
  private func planEdit(
    deleting backward: Int, forward: Int, inserting rendered: RenderedSnippet, _ insert: (inout TypingPlan) -> Bool
  ) -> TypingPlan? {
    chain = nil
    var plan = TypingPlan(
      layout: layout, configuration: configuration.expansion, group: decoder.group, numLock: decoder.isNumLocked)
    var restore: [UInt16] = []
    for code in 0..<KeyCode.count where outputDown[code] {
      plan.release(UInt16(code))
      if physicalHolds[code] > 0 && decoder.isModifier(UInt16(code)) { restore.append(UInt16(code)) }
    }
    let capsLocked = decoder.isCapsLocked
    if capsLocked { plan.tap(KeyCode.capsLock) }
    plan.tap(KeyCode.delete, times: forward)
    plan.tap(KeyCode.backspace, times: backward)
    guard insert(&plan) else { return nil }
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

  /// Plans the keys that delete `backward` characters and paste `pasted`
  /// (the paste chord, then Left for the characters after the cursor hint),
  /// as ``planTyping(deleting:forward:typing:)`` does for typing it.
  private func planPasting(deleting backward: Int, pasted: RenderedSnippet) -> TypingPlan? {
    let shortcut = configuration.expansion.pasteShortcut
    let key: UInt16
    if shortcut == .shiftInsert {
      key = KeyCode.insert
    } else {
      guard let v = layout.typing(of: "v", from: decoder.group), v.prefix.isEmpty, v.stroke.modifiers.count == 0
      else { return nil }
      key = v.stroke.key
    }
    let modifiers: [UInt16] =
      switch shortcut {
      case .ctrlV: [KeyCode.leftCtrl]
      case .ctrlShiftV: [KeyCode.leftCtrl, KeyCode.leftShift]
      case .shiftInsert: [KeyCode.leftShift]
      }
    return planEdit(deleting: backward, forward: 0, inserting: pasted) { plan in
      plan.chord(modifiers, key)
      return true
    }
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
