import CEvdev

#if canImport(Glibc)
  import Glibc
#endif

/// The keyboard engine: physical key events in, virtual keyboard events out.
///
/// The engine is the one place that decides what is emitted. It does no I/O
/// and reads no clock: events carry their time, and the caller calls
/// ``advance(to:into:)`` when ``nextDeadline`` is due. Every event it does not
/// change is emitted on the same call, in order (touch-down emission).
public final class Engine {
  /// The keymap the application decodes our events with: the config's, or
  /// the desktop's as a session agent reports it (``follow(_:group:)``).
  public private(set) var layout: Layout
  /// What the engine does; changing it cancels every pending aid.
  public var configuration: EngineConfiguration {
    willSet { settle() }
    didSet {
      if configuration.snippetFilesOff != oldValue.snippetFilesOff {
        snippetOff = Self.snippetsOff(configuration, snippets)
      }
      capsDue = nil
      cancelAids()
      let decoded = decodes
      decodes = Self.needsDecoding(configuration, snippets)
      if decodes && !decoded {
        decoder.resynchronize(down: outputDown)
        text.reset()
      }
    }
  }
  /// Whether anything needs the text and the keymap state: an aid or a
  /// snippet. Without, keys pass through untouched and undecoded.
  private var decodes: Bool
  /// The text typed since the last reset, as the application has it
  /// (once ``settle()`` has applied the last key handed out).
  public internal(set) var text = TextModel() {
    didSet { capsDue = nil }
  }
  /// Whether auto-capitalization is due at the end of `text` (DESIGN 3.2),
  /// once worked out: ``settle()`` does it after a key's output is written,
  /// so that the next key's press finds it known.
  private var capsDue: Bool?
  /// The press or release last handed out whose effect on the keymap state
  /// and the text is left to ``settle()``.
  private var unsettled: (code: UInt16, value: KeyValue, keysym: xkb_keysym_t?)?
  /// The snippets and their trigger trie.
  public let snippets: SnippetMatcher
  /// The wall clock for date variables, in seconds since the epoch. The
  /// engine reads no other time: key events bring theirs.
  public var wallClock: () -> Int64 = { Int64(time(nil)) }
  /// Paused: a pure pass-through, with no typing aid and no snippet.
  public var isPaused = false {
    willSet { settle() }
    didSet { cancelAids() }
  }
  /// Where the engine reports what the host should log.
  public var onNotice: ((EngineNotice) -> Void)?
  /// Where the engine asks the user's session for a variable's value (a
  /// program's output, the clipboard). The host answers later with
  /// ``sessionAnswered(_:value:at:into:)``; it returns false when nobody can
  /// answer (no session agent), and the snippet's trigger stays as typed.
  public var onSessionCall: ((SessionRequest) -> Bool)?
  /// The expansion waiting for the session's answer; the keys typed
  /// meanwhile wait in the queue.
  var waiting: WaitingExpansion? {
    didSet {
      waitingDeadline = waiting?.deadline
      keysWait = waiting.map { !$0.passesKeys } ?? false
    }
  }
  /// Of ``waiting``, read on every key: kept apart, as reading the optional
  /// struct itself copies it (its arrays retained and released).
  private var waitingDeadline: Instant?
  /// Whether keys wait for the session's answer (a dialog takes them).
  private var keysWait = false
  /// The id of the last question to the session.
  private var lastRequest: UInt32 = 0

  /// The id of a new question to the session.
  func nextRequest() -> UInt32 {
    lastRequest &+= 1
    return lastRequest
  }
  /// The working memory of regex trigger searches.
  let regexScratch = RegexScratch()
  /// Whether a snippet has a regex trigger: without, a key does not look.
  private let hasRegexes: Bool
  /// The snippets of ``EngineConfiguration/snippetFilesOff``, by index;
  /// empty when none is off. A match of one is no match.
  var snippetOff: [Bool]

  private static func snippetsOff(_ configuration: EngineConfiguration, _ snippets: SnippetMatcher) -> [Bool] {
    guard !configuration.snippetFilesOff.isEmpty else { return [] }
    let files = snippets.originFiles.map { configuration.snippetFilesOff.contains($0) }
    return snippets.originFile.map { files[Int($0)] }
  }

  /// What the application makes of our output: its keymap state.
  let decoder: KeystrokeDecoder
  /// How many devices hold each key down.
  var physicalHolds: [UInt8]
  /// Which keys are down on the virtual keyboard.
  var outputDown: [Bool]
  /// Physical keys whose press the engine replaced: their release is dropped.
  var swallowRelease: [Bool]
  /// For a physical key held as another output key (an auto-capital on
  /// another key), that key; 0 when the key stands for itself.
  private var standIn: [UInt16]
  /// Modifiers the user holds that the engine lifted while it types.
  private var liftedModifiers = ModifierKeys()

  var autoCapitalization = AutoCapitalization()
  var autoPeriod = AutoPeriod()
  private var backspaceRepeat = BackspaceRepeat()
  /// The physical key whose press started the Backspace repeat.
  private var backspaceKey: UInt16 = 0
  /// Text the engine is typing itself, burst by burst.
  var typing = TypingQueue()
  /// Events that arrived while the engine was typing, to handle after it.
  private var queuedEvents: [KeyEvent] = []
  private var queuedHead = 0
  /// What Backspace undoes when it is the very next key after an expansion.
  var undo: ExpansionUndo?
  /// The last expansion, while plain characters follow it.
  var chain: ExpansionChain?
  /// Snippets whose refusal was already reported.
  var refusedSnippets: Set<Int> = []
  /// A desktop layout reported while the engine typed: followed when it is done.
  private var pendingLayout: Layout?
  /// How many characters were typed in a row at the end of the text, with
  /// no other edit between: how far behind a field report may be.
  private var appendRun = 0

  /// Makes an engine with nothing held.
  public init(
    layout: Layout, configuration: EngineConfiguration = EngineConfiguration(),
    snippets: SnippetMatcher = SnippetMatcher([])
  ) {
    self.layout = layout
    self.configuration = configuration
    self.snippets = snippets
    hasRegexes = snippets.hasRegexes
    snippetOff = Self.snippetsOff(configuration, snippets)
    decodes = Self.needsDecoding(configuration, snippets)
    decoder = KeystrokeDecoder(layout: layout)
    physicalHolds = [UInt8](repeating: 0, count: KeyCode.count)
    outputDown = [Bool](repeating: false, count: KeyCode.count)
    swallowRelease = [Bool](repeating: false, count: KeyCode.count)
    standIn = [UInt16](repeating: 0, count: KeyCode.count)
    queuedEvents.reserveCapacity(256)
  }

  /// The earliest time at which ``advance(to:into:)`` has work to do.
  public var nextDeadline: Instant? {
    func earlier(_ first: Instant?, _ second: Instant?) -> Instant? {
      guard let first else { return second }
      guard let second else { return first }
      return min(first, second)
    }
    return earlier(waitingDeadline, earlier(typing.deadline, backspaceRepeat.deadline))
  }

  /// Handles one physical key event, appending what to emit to `output`.
  /// While the engine types text of its own, the event waits its turn.
  public func handle(_ event: KeyEvent, into output: inout KeyOutput) {
    handleBeforeSettling(event, into: &output)
    settle()
  }

  /// ``handle(_:into:)`` for a caller that writes the output at once and
  /// calls ``settle()`` after the write (touch-down emission, DESIGN 1.1):
  /// when the event goes out unchanged, what it does to the keymap state and
  /// the text is worked out after the write instead of before it. Until
  /// ``settle()``, ``text`` may lack that event; every other call settles
  /// first.
  public func handleBeforeSettling(_ event: KeyEvent, into output: inout KeyOutput) {
    settle()
    if typing.isActive || keysWait || queuedHead < queuedEvents.count {
      queuedEvents.append(event)
      return
    }
    process(event, into: &output)
  }

  /// Applies the key last handed out to the keymap state and the text, and
  /// works out what the next key's press will ask (whether caps is due).
  public func settle() {
    applyUnsettled()
    if capsDue == nil && configuration.autocapitalize && decodes {
      capsDue = AutoCapitalization.isDue(
        in: text, capitalizeAfterReset: configuration.capitalizeAfterReset,
        capitalizeFieldStart: configuration.capitalizeFieldStart)
    }
  }

  /// Applies the key handed out last, so that what follows reads the keymap
  /// state and the text as the application has them.
  private func applyUnsettled() {
    guard let (code, value, keysym) = unsettled else { return }
    unsettled = nil
    apply(decoder.feed(code: code, value: value, keysym: keysym))
  }

  private func process(_ event: KeyEvent, into output: inout KeyOutput) {
    applyUnsettled()  // the previous event's, when events are replayed in a row
    let code = event.code
    let index = Int(code)
    guard index < KeyCode.count else { return }
    switch event.value {
    case .down:
      physicalHolds[index] &+= 1
      guard physicalHolds[index] == 1 else { return }  // already held on another device
      if completesToggleChord(code) {
        isPaused.toggle()
        swallowRelease[index] = true
        return
      }
      keyDown(code, at: event.time, into: &output)
    case .up:
      guard physicalHolds[index] > 0 else { return }
      physicalHolds[index] -= 1
      guard physicalHolds[index] == 0 else { return }
      keyUp(code, into: &output)
    case .repeat:
      // The engine repeats the keys it took over; the desktop repeats the
      // others at its own rate, so how many characters it typed is unknown.
      if decodes && !swallowRelease[index] && !decoder.isModifier(code) { resetText() }
    }
  }

  /// Runs the timers due at `now`: the Backspace repeat, the next burst of
  /// an expansion.
  public func advance(to now: Instant, into output: inout KeyOutput) {
    settle()
    if let due = waitingDeadline, due <= now, let waiting {
      onNotice?(.sessionVariableFailed(origin: snippets.snippets[waiting.match.snippet].origin, reason: .timedOut))
      giveUp(waiting, at: now, into: &output)
    }
    while let due = backspaceRepeat.deadline, due <= now {
      var taps = backspaceRepeat.tick(text: text, configuration: configuration.backspace)
      while taps > 0 {
        tap(backspaceKey, into: &output)
        taps -= 1
      }
    }
    if let due = typing.deadline, due <= now { typeBurst(at: now, into: &output) }
  }

  /// Handles the events that waited for the engine's own typing, in order,
  /// until they are done or one starts typing again.
  func replayQueuedEvents(at now: Instant, into output: inout KeyOutput) {
    while queuedHead < queuedEvents.count && !typing.isActive && !keysWait {
      var event = queuedEvents[queuedHead]
      queuedHead += 1
      if event.time < now { event.time = now }  // it reaches the application now
      process(event, into: &output)
    }
    if queuedHead == queuedEvents.count {
      queuedEvents.removeAll(keepingCapacity: true)
      queuedHead = 0
    }
  }

  /// Forgets the text before the cursor (a click, a device change) and
  /// cancels every pending aid.
  public func resetText() {
    settle()
    text.reset()
    appendRun = 0
    cancelAids()
  }

  /// A key pressed on a device vkbd reads but does not grab (a keypad, a
  /// macro pad, a keyboard set not to be grabbed): the application had it
  /// from the desktop, so what it did to the text is not known. Any key but
  /// a modifier or lock forgets the text, as a click does.
  public func keyPressedElsewhere(_ code: UInt16) {
    settle()
    if !decoder.isModifier(code) { resetText() }
  }

  /// Takes a session agent's report of the field's text before the cursor
  /// (at most ``TextModel/capacity`` characters; `isFieldStart` when that is
  /// all of it). A report that agrees with the text the engine typed, or
  /// with it before its last few characters (the report was on its way
  /// while they were typed), completes it; one that disagrees replaces it:
  /// the report wins. Reports that come while the engine types text of its
  /// own describe a state on the way and are left alone.
  public func fieldReported(before reported: [Unicode.Scalar], isFieldStart: Bool) {
    settle()
    guard decodes, !typing.isActive, waiting == nil, queuedHead == queuedEvents.count else { return }
    for behind in 0...min(appendRun, Self.longestReportLag, text.count) {
      let known = text.count - behind
      guard Self.tailsAgree(text, droppingLast: behind, reported) else { continue }
      // A report that starts the field with less than the model holds, or a
      // model that starts the field with less than the report, disagrees.
      if isFieldStart && reported.count < known { continue }
      if text.isFieldStart && known < reported.count { continue }
      if reported.count > known || (isFieldStart && !text.isFieldStart) {
        let typed = (0..<behind).reversed().map { text[fromEnd: $0] }
        text.replace(with: reported + typed, isFieldStart: isFieldStart)
        appendRun = behind
      }
      return
    }
    text.replace(with: reported, isFieldStart: isFieldStart)
    appendRun = 0
    cancelAids()
  }

  /// Follows Num Lock or Caps Lock as the keyboard's LED reports the
  /// desktop's state: the keypad types by Num Lock, capitals and expansions
  /// read Caps Lock. An LED that changes while the engine types is the echo
  /// of its own Caps Lock taps and is left alone.
  public func indicatorChanged(_ lock: LockIndicator, on: Bool) {
    settle()
    guard !typing.isActive else { return }
    decoder.indicate(lock, on: on, down: outputDown)
  }

  /// Follows the desktop's keymap and group, as a session agent reports
  /// them: decoding, capitals, the double-space period and expansions use
  /// them from here on. A group alone reported while the engine types is
  /// the echo of its own group switches and is left alone; another keymap
  /// waits until the typing is done.
  public func follow(_ desktop: Layout, group: Int) {
    settle()
    guard group >= 0, group < max(desktop.groupCount, 1) else { return }
    if typing.isActive {
      if desktop !== layout { pendingLayout = desktop }
      pendingGroup = group
      return
    }
    pendingLayout = nil
    if desktop !== layout {
      decoder.follow(desktop, group: group, down: outputDown)
      layout = desktop
      cancelAids()
    } else if group != decoder.group {
      decoder.resynchronize(down: outputDown, group: group)
      cancelAids()
    }
    capsDue = nil
  }

  /// The group of the keymap that waits in ``pendingLayout``.
  private var pendingGroup = 0

  /// Follows the keymap reported while the engine typed, now that it is done.
  func followPendingLayout() {
    guard let pending = pendingLayout, !typing.isActive else { return }
    follow(pending, group: pendingGroup)
  }

  /// The most characters a field report may lag behind the keys.
  static let longestReportLag = 32

  /// Whether `text` without its last `behind` characters and `reported` end
  /// alike, over the length both have.
  private static func tailsAgree(_ text: TextModel, droppingLast behind: Int, _ reported: [Unicode.Scalar]) -> Bool {
    let overlap = min(text.count - behind, reported.count)
    for offset in 0..<overlap where text[fromEnd: behind + offset] != reported[reported.count - 1 - offset] {
      return false
    }
    return true
  }

  /// Releases every key held on the virtual keyboard and forgets the
  /// physical holds (stuck-key recovery, shutdown, panic).
  public func releaseAll(into output: inout KeyOutput) {
    settle()
    cancelAids()
    if typing.isActive { text.reset() }  // the application has only part of it
    typing.cancel()
    waiting = nil
    queuedEvents.removeAll(keepingCapacity: true)
    queuedHead = 0
    liftedModifiers = ModifierKeys()
    for code in 0..<KeyCode.count {
      physicalHolds[code] = 0
      swallowRelease[code] = false
      standIn[code] = 0
      if outputDown[code] { emit(UInt16(code), .up, into: &output) }
    }
  }

  /// Whether `code` is down on the virtual keyboard.
  public func isHeldOnOutput(_ code: UInt16) -> Bool { outputDown[Int(code)] }

  /// The keys down on the virtual keyboard.
  public var heldOutputKeys: [UInt16] {
    (0..<KeyCode.count).filter { outputDown[$0] }.map(UInt16.init)
  }

  // MARK: - Keys

  private static func needsDecoding(_ configuration: EngineConfiguration, _ snippets: SnippetMatcher) -> Bool {
    configuration.enabled
      && (configuration.autocapitalize || configuration.doubleSpacePeriod || configuration.backspace.accelerate
        || (configuration.expandsSnippets && !snippets.snippets.isEmpty))
  }

  private func keyDown(_ code: UInt16, at time: Instant, into output: inout KeyOutput) {
    if isPaused || !decodes {
      emit(code, .down, into: &output, settlingLater: true)
      return
    }
    if backspaceRepeat.deadline != nil { backspaceRepeat.stop() }  // 3.4 rule 4
    let undoable = undo
    undo = nil
    if decoder.hasShortcutModifiers {
      autoPeriod.otherKey()
      emit(code, .down, into: &output, settlingLater: true)
      return
    }
    let keysym = decoder.keysym(code)
    if keysym == UInt32(XKB_KEY_BackSpace) {
      if let undoable, configuration.expansion.undoBackspace, !decoder.hasModifiers {
        undoExpansion(undoable, key: code, at: time, into: &output)
        return
      }
      backspaceDown(code, at: time, into: &output)
      return
    }
    var character = decoder.predictedCharacter(code)
    if character == 0x0D { character = 0x0A }  // Return types a newline
    if configuration.expandsSnippets, waitingDeadline == nil, let next = Unicode.Scalar(character), next.value > 0,
      expandSnippet(code, next: next, at: time, into: &output)
    {
      return
    }
    if character == 0x20 && configuration.doubleSpacePeriod {
      spaceDown(code, at: time, into: &output)
      return
    }
    if !KeystrokeDecoder.isModifier(keysym) { autoPeriod.otherKey() }  // 3.3 rule 2
    if configuration.autocapitalize, capitalize(code, character: character, into: &output) { return }
    emit(code, .down, into: &output, keysym: keysym, settlingLater: true)
  }

  private func keyUp(_ code: UInt16, into output: inout KeyOutput) {
    let index = Int(code)
    if swallowRelease[index] {
      swallowRelease[index] = false
      if code == backspaceKey { backspaceRepeat.stop() }
      return
    }
    let outputCode = standIn[index] == 0 ? code : standIn[index]
    standIn[index] = 0
    emit(outputCode, .up, into: &output, settlingLater: true)
  }

  /// Whether `code` going down completes the configured pause/resume chord:
  /// every other key of it is held. That key never reaches the application.
  private func completesToggleChord(_ code: UInt16) -> Bool {
    let chord = configuration.toggleChord
    guard !chord.isEmpty, chord.contains(code) else { return false }
    var index = 0
    while index < chord.count {
      if physicalHolds[Int(chord[index])] == 0 { return false }
      index += 1
    }
    return true
  }

  /// Expands the longest trigger that `next` completes, on the text model or
  /// through the last expansion (``ExpansionChain``). False when none fires.
  private func expandSnippet(
    _ code: UInt16, next: Unicode.Scalar, at time: Instant, into output: inout KeyOutput
  ) -> Bool {
    let plain = snippets.match(next: next, after: text)
    if let chain, text.count >= chain.suffix + chain.shown {
      let view = TextBeforeExpansion(text: text, chain: chain)
      if let longer = snippets.match(next: next, after: view),
        longer.typedLength >= chain.suffix + chain.typed.count,
        longer.typedLength > plain?.typedLength ?? -1
      {
        let modelLength = longer.typedLength - chain.typed.count + chain.shown
        return expand(longer, in: view, modelLength: modelLength, key: code, next: next, at: time, into: &output)
      }
    }
    if let plain {
      return expand(plain, in: text, modelLength: plain.typedLength, key: code, next: next, at: time, into: &output)
    }
    guard hasRegexes, snippets.mayMatchRegex(endingWith: next) else { return false }
    // The prefilters read the text in place; a search takes a copy of it.
    var present = text.typedCharacterBits(last: SnippetMatcher.regexWindow - 1)
    present.insert(next)
    guard snippets.mayMatchRegex(endingWith: next, present: present),
      let found = snippets.matchRegex(next: next, after: text, present: present, scratch: regexScratch)
    else {
      return false
    }
    return expand(found, in: text, modelLength: found.typedLength, key: code, next: next, at: time, into: &output)
  }

  /// Backspace: the undo of a double-space period, and the daemon's own repeat.
  private func backspaceDown(_ code: UInt16, at time: Instant, into output: inout KeyOutput) {
    let accelerate = configuration.backspace.accelerate
    if autoPeriod.justConverted && configuration.doubleSpacePeriod {
      // 3.3 rule 5: ". " becomes " ".
      liftUserModifiers(into: &output)
      tap(code, into: &output)
      tap(code, into: &output)
      tap(KeyCode.space, into: &output)
      restoreUserModifiers(into: &output)
      autoPeriod.undone()
    } else {
      autoPeriod.otherKey()
      guard accelerate else {
        emit(code, .down, into: &output)
        return
      }
      tap(code, into: &output)  // touch-down: one tap at once (3.4)
    }
    swallowRelease[Int(code)] = true
    if accelerate {
      backspaceKey = code
      backspaceRepeat.start(at: time, configuration: configuration.backspace)
    }
  }

  /// Space: a second Space in the window types ". " instead (3.3 rule 3).
  private func spaceDown(_ code: UInt16, at time: Instant, into output: inout KeyOutput) {
    guard
      autoPeriod.shouldConvert(
        at: time, text: text, timeoutMilliseconds: configuration.doubleSpaceTimeoutMilliseconds),
      let period = layout.typing(of: ".", from: decoder.group, numLock: decoder.isNumLocked),
      period.stroke.group == decoder.group
    else {
      emit(code, .down, into: &output)
      autoPeriod.spaceTyped(at: time)
      return
    }
    liftUserModifiers(into: &output)
    tap(KeyCode.backspace, into: &output)
    type(period, into: &output)
    tap(code, into: &output)
    restoreUserModifiers(into: &output)
    swallowRelease[Int(code)] = true
    autoPeriod.converted()
  }

  /// Types the capital of a lowercase letter when caps is due (3.2).
  private func capitalize(_ code: UInt16, character: UInt32, into output: inout KeyOutput) -> Bool {
    guard let letter = Unicode.Scalar(character), !decoder.hasModifiers,
      capsDue
        ?? AutoCapitalization.isDue(
          in: text, capitalizeAfterReset: configuration.capitalizeAfterReset,
          capitalizeFieldStart: configuration.capitalizeFieldStart),
      let capital = layout.capitalStroke(of: letter, in: decoder.group, numLock: decoder.isNumLocked)
    else { return false }
    if autoCapitalization.isUndone(letter) { return false }
    var index = 0
    while index < capital.modifiers.count {
      emit(capital.modifiers[index], .down, into: &output)
      index += 1
    }
    emit(capital.key, .down, into: &output)
    // Up again at once: the application took the capital at the press, and a
    // held key repeats in lowercase ("Kkkk"), as after a tap of Shift.
    while index > 0 {
      index -= 1
      emit(capital.modifiers[index], .up, into: &output)
    }
    text.noteAutoCapitalized(typed: letter)
    standIn[Int(code)] = capital.key == code ? 0 : capital.key
    autoCapitalization.didCapitalize(letter)
    return true
  }

  private func cancelAids() {
    undo = nil
    chain = nil
    autoCapitalization.cancel()
    autoPeriod.cancel()
    backspaceRepeat.stop()
  }

  // MARK: - Typing

  /// The modifier keys lifted while the engine types text of its own.
  private static let modifierKeys: [UInt16] = [
    KeyCode.leftShift, KeyCode.rightShift, KeyCode.leftCtrl, KeyCode.rightCtrl,
    KeyCode.leftAlt, KeyCode.rightAlt, KeyCode.leftMeta, KeyCode.rightMeta,
  ]

  /// Releases the modifiers held on the output, to press them again after.
  private func liftUserModifiers(into output: inout KeyOutput) {
    var lifted = ModifierKeys()
    var index = 0
    while index < Self.modifierKeys.count {
      let key = Self.modifierKeys[index]
      if outputDown[Int(key)] && lifted.count < 3 {
        emit(key, .up, into: &output)
        lifted.append(key)
      }
      index += 1
    }
    liftedModifiers = lifted
  }

  private func restoreUserModifiers(into output: inout KeyOutput) {
    var index = 0
    while index < liftedModifiers.count {
      // Only a modifier the user still holds goes down again.
      let key = liftedModifiers[index]
      if physicalHolds[Int(key)] > 0 { emit(key, .down, into: &output) }
      index += 1
    }
    liftedModifiers = ModifierKeys()
  }

  /// Types one character's strokes (modifiers down, key tapped, modifiers up).
  private func type(_ typing: Typing, into output: inout KeyOutput) {
    for stroke in typing.prefix { type(stroke, into: &output) }
    type(typing.stroke, into: &output)
  }

  private func type(_ stroke: Stroke, into output: inout KeyOutput) {
    var index = 0
    while index < stroke.modifiers.count {
      emit(stroke.modifiers[index], .down, into: &output)
      index += 1
    }
    tap(stroke.key, into: &output)
    while index > 0 {
      index -= 1
      emit(stroke.modifiers[index], .up, into: &output)
    }
  }

  /// Presses and releases one key.
  private func tap(_ code: UInt16, into output: inout KeyOutput) {
    emit(code, .down, into: &output)
    emit(code, .up, into: &output)
  }

  // MARK: - Emitting

  /// The single place events leave the engine: skips presses of keys already
  /// down and releases of keys already up, and keeps the text model in step
  /// with what the application receives (`applying` is false for planned
  /// typing, whose edits the plan made). `settlingLater` leaves that to
  /// ``settle()``: only for the last event a key hands out.
  func emit(
    _ code: UInt16, _ value: KeyValue, into output: inout KeyOutput, applying: Bool = true,
    keysym: xkb_keysym_t? = nil, settlingLater: Bool = false
  ) {
    let down = value != .up
    guard outputDown[Int(code)] != down else { return }
    outputDown[Int(code)] = down
    output.append(OutputKey(code: code, value: value))
    guard decodes else { return }
    if settlingLater {
      unsettled = (code, value, keysym)
      return
    }
    let edit = decoder.feed(code: code, value: value, keysym: keysym)
    if applying { apply(edit) }
  }

  /// Updates the text model with one edit the application made (DESIGN 3.1).
  func apply(_ edit: TextEdit) {
    autoCapitalization.observe(edit)
    if chain != nil {
      if case .insert = edit { chain!.suffix += 1 } else if edit != .none { chain = nil }
    }
    switch edit {
    case .none:
      break
    case .delete:
      appendRun = 0
    case .insert("\t"), .move, .shortcut, .unknown:
      resetText()
    case .insert(let character):
      text.append(character)
      appendRun &+= 1
    case .backspace:
      text.deleteBackward()
      appendRun = 0
    }
  }
}
