import CKeyboard

#if canImport(Glibc)
  import Glibc
#endif

/// The keyboard engine: physical key events in, virtual keyboard events out.
///
/// The one place that decides what is emitted. It does no I/O and reads no
/// clock: events carry their time, and the caller calls
/// ``advance(to:into:)`` when ``nextDeadline`` is due. Every event it does
/// not change is emitted on the same call, in order (touch-down emission).
/// Its parts: ``TypingAids`` at the keys, the ``Expander`` for snippets.
public final class Engine {
  /// The keymap the application decodes our events with: the config's, or
  /// the desktop's as a session agent reports it (``follow(_:group:)``).
  public internal(set) var layout: Layout
  /// What the engine does; changing it cancels every pending aid.
  public var configuration: EngineConfiguration {
    willSet { settle() }
    didSet {
      if configuration.snippetFilesOff != oldValue.snippetFilesOff { expander.leaveOut(configuration.snippetFilesOff) }
      pickerKey = configuration.pickerShortcut?.key ?? UInt16.max
      capsDue = nil
      cancelAids()
      let decoded = decodes
      decodes = configuration.needsDecoding(hasSnippets: !snippets.snippets.isEmpty)
      if decodes && !decoded {
        decoder.resynchronize(down: keys.outputDown)
        text.reset()
      }
    }
  }
  /// Whether anything needs the text and the keymap state (an aid, a
  /// snippet); without, keys pass through undecoded.
  private(set) var decodes: Bool
  /// The text typed since the last reset, as the application has it
  /// (once ``settle()`` has applied the last key handed out).
  public internal(set) var text = TextModel() {
    didSet { capsDue = nil }
  }
  /// Whether a capital is due at the end of `text` (DESIGN 3.2), worked out
  /// by ``settle()`` after a key's output is written, for the next press.
  var capsDue: Bool?
  /// The key last handed out whose effects are left to ``settle()``.
  private var unsettled: (code: UInt16, value: KeyValue, keysym: xkb_keysym_t?)?
  /// The snippets, their matching and typing.
  let expander: Expander
  public var snippets: SnippetMatcher { expander.snippets }
  /// The wall clock and randomness, as the host gives them.
  public let world: EngineWorld
  /// Paused: a pure pass-through, with no typing aid and no snippet.
  public var isPaused = false {
    willSet { settle() }
    didSet { cancelAids() }
  }
  /// Where the engine reports what the host should log.
  public var onNotice: ((EngineNotice) -> Void)?
  /// Where the engine asks the user's session for a variable's value (a
  /// program's output, the clipboard, a dialog); false: nobody can answer
  /// (the trigger stays). The answer: ``sessionAnswered(_:value:at:into:)``.
  public var onSessionCall: ((SessionRequest) -> Bool)?
  /// Where the engine shows the snippet picker (DESIGN 8) and, with nil,
  /// hides it; false: nobody can show it, and it does not open (or closes).
  public var onPicker: ((PickerView?) -> Bool)?
  /// The picker while it is open: every key goes to it.
  var picker: Picker?
  /// The key that opened the picker, until it is released.
  var pickerOpener: UInt16?
  /// The key of the picker's chord (``UInt16/max``: none), read on every press.
  var pickerKey: UInt16
  /// The picker's search over every snippet, built on first use
  /// (``prepareSearch()`` builds it ahead).
  lazy var search = SnippetSearch(snippets.snippets)

  /// What the application makes of our output: its keymap state.
  let decoder: KeystrokeDecoder
  /// The keys held, physically and on the output.
  var keys = KeyHolds()
  let aids = TypingAids()
  /// Autocorrect and smart punctuation.
  let words = WordAids()
  /// Events that arrived while the engine typed or waited, to handle after.
  private var queue = EventQueue()
  /// A desktop layout reported while the engine typed: followed when done.
  var pendingLayout: Layout?
  var pendingGroup = 0

  /// Makes an engine with nothing held.
  public init(
    layout: Layout, configuration: EngineConfiguration = EngineConfiguration(),
    snippets: SnippetMatcher = SnippetMatcher([]), world: EngineWorld
  ) {
    self.world = world
    self.layout = layout
    self.configuration = configuration
    expander = Expander(snippets: snippets, filesOff: configuration.snippetFilesOff)
    decodes = configuration.needsDecoding(hasSnippets: !snippets.snippets.isEmpty)
    decoder = KeystrokeDecoder(layout: layout)
    pickerKey = configuration.pickerShortcut?.key ?? UInt16.max
    words.ownWords = snippets.snippets.ownWords()
  }

  /// Whether the engine types an expansion, waits for the session, or has
  /// keys waiting their turn: work a caller must not cut short.
  public var isBusy: Bool { expander.isTyping || expander.isWaiting || !queue.isEmpty }

  /// The earliest time at which ``advance(to:into:)`` has work to do.
  public var nextDeadline: Instant? {
    Instant.earlier(expander.waitingDeadline, Instant.earlier(expander.typingDeadline, aids.repeatDeadline))
  }

  /// Handles one physical key event, appending what to emit to `output`;
  /// while the engine types or waits, the event waits its turn.
  public func handle(_ event: KeyEvent, into output: inout KeyOutput) {
    handleBeforeSettling(event, into: &output)
    settle()
  }

  /// ``handle(_:into:)`` for a caller that writes the output at once and
  /// calls ``settle()`` after the write (touch-down emission, DESIGN 1.1):
  /// an event that goes out unchanged updates the keymap state and the text
  /// after the write. Every other call settles first.
  public func handleBeforeSettling(_ event: KeyEvent, into output: inout KeyOutput) {
    settle()
    if expander.isTyping || expander.keysWait || !queue.isEmpty {
      queue.append(event)
      return
    }
    process(event, into: &output)
  }

  /// Applies the key last handed out, and works out whether caps is due.
  public func settle() {
    applyUnsettled()
    if capsDue == nil && configuration.autocapitalize && decodes {
      capsDue = AutoCapitalization.isDue(
        in: text, capitalizeAfterReset: configuration.capitalizeAfterReset,
        capitalizeFieldStart: configuration.capitalizeFieldStart)
    }
  }

  /// Applies the key handed out last to the keymap state and the text.
  private func applyUnsettled() {
    if let (code, value, keysym) = unsettled.take() { apply(decoder.feed(code: code, value: value, keysym: keysym)) }
  }

  private func process(_ event: KeyEvent, into output: inout KeyOutput) {
    applyUnsettled()  // the previous event's, when events are replayed in a row
    let code = event.code
    guard Int(code) < KeyCode.count else { return }
    switch event.value {
    case .down:
      guard keys.press(code) else { return }  // held on another device already
      if completesToggleChord(code) {
        isPaused.toggle()
        keys.swallowRelease[Int(code)] = true
        return
      }
      if picker != nil { return pickerPress(code, repeated: false, at: event.time, into: &output) }
      if code == pickerKey && !isPaused && configuration.enabled && completesPickerChord(code)
        && openPicker(scope: nil, trigger: nil, into: &output)
      {
        keys.swallowRelease[Int(code)] = true
        pickerOpener = code
        return
      }
      keyDown(code, at: event.time, into: &output)
      if picker != nil { pickerOpener = code }  // a shared trigger's last key, a search trigger's
    case .up:
      guard keys.release(code) else { return }
      if picker != nil || pickerOpener != nil { pickerRelease(code) }
      keyUp(code, into: &output)
    case .repeat:
      // The repeats of the key that opened the picker are neither the
      // picker's query nor the application's.
      if picker != nil {
        return code == pickerOpener ? () : pickerPress(code, repeated: true, at: event.time, into: &output)
      }
      // The engine repeats the keys it took over; the desktop repeats the
      // others at its own rate, so how many characters it typed is unknown.
      if decodes && !keys.swallowRelease[Int(code)] && !decoder.isModifier(code) { resetText() }
    }
  }

  /// Runs the timers due at `now`: a wait given up, the Backspace repeat,
  /// an expansion's next burst.
  public func advance(to now: Instant, into output: inout KeyOutput) {
    settle()
    expander.advanceWaiting(to: now, host: self, into: &output)
    aids.advance(to: now, host: self, into: &output)
    expander.advanceTyping(to: now, host: self, into: &output)
  }

  /// Handles the events that waited, in order, until one starts typing again.
  func replayQueuedEvents(at now: Instant, into output: inout KeyOutput) {
    while !expander.isTyping && !expander.keysWait, let event = queue.next(at: now) { process(event, into: &output) }
  }

  /// Forgets the text before the cursor (a click, a device change) and
  /// cancels every aid.
  public func resetText() {
    settle()
    text.reset()
    cancelAids()
    words.doubtsWord = false  // what comes now is typed, or reported
  }

  /// Releases every key held on the output and forgets the physical holds
  /// (stuck-key recovery, shutdown, panic).
  public func releaseAll(into output: inout KeyOutput) {
    settle()
    if picker.take() != nil { _ = onPicker?(nil) }
    cancelAids()
    if expander.isTyping { text.reset() }  // the application has only part of it
    expander.cancelAll()
    queue.removeAll()
    for code in keys.releaseAll() { emit(code, .up, into: &output) }
  }

  /// The keys down on the virtual keyboard.
  public var heldOutputKeys: [UInt16] { keys.downOnOutput }

  // MARK: - Keys

  private func keyDown(_ code: UInt16, at time: Instant, into output: inout KeyOutput) {
    if isPaused || !decodes {
      emit(code, .down, into: &output, settlingLater: true)
      return
    }
    aids.keyDown()
    let undoable = expander.takeUndo()
    if decoder.hasShortcutModifiers {
      aids.otherKey()
      emit(code, .down, into: &output, settlingLater: true)
      return
    }
    let keysym = decoder.keysym(code)
    if keysym == UInt32(XKB_KEY_BackSpace) {
      if let undoable, configuration.expansion.undoBackspace, !decoder.hasModifiers {
        expander.undo(undoable, key: code, at: time, host: self, into: &output)
        if let word = undoable.learns { words.learn(word) }
      } else {
        aids.backspaceDown(code, at: time, host: self, into: &output)
      }
      return
    }
    var character = decoder.predictedCharacter(code)
    if character == 0x0D { character = 0x0A }  // Return types a newline
    if configuration.expandsSnippets, !expander.isWaiting, let next = Unicode.Scalar(character), next.value > 0,
      expander.expand(code, next: next, at: time, host: self, into: &output)
    {
      return
    }
    if let next = Unicode.Scalar(character), words.keyDown(code, character: next, at: time, engine: self, into: &output)
    {
      if character == 0x20 { aids.spaceTyped(at: time) }  // the double-space period may follow
      return
    }
    if character == 0x20 && configuration.doubleSpacePeriod {
      aids.spaceDown(code, at: time, host: self, into: &output)
      return
    }
    if !KeystrokeDecoder.isModifier(keysym) { aids.otherKey() }  // 3.3 rule 2
    if configuration.autocapitalize {
      let isDue =
        capsDue
        ?? AutoCapitalization.isDue(
          in: text, capitalizeAfterReset: configuration.capitalizeAfterReset,
          capitalizeFieldStart: configuration.capitalizeFieldStart)
      if aids.capitalize(code, character: character, isDue: isDue, host: self, into: &output) { return }
    }
    emit(code, .down, into: &output, keysym: keysym, settlingLater: true)
  }

  private func keyUp(_ code: UInt16, into output: inout KeyOutput) {
    let index = Int(code)
    if keys.swallowRelease[index] {
      keys.swallowRelease[index] = false
      aids.released(code)
      return
    }
    let outputCode = keys.standIn[index] == 0 ? code : keys.standIn[index]
    keys.standIn[index] = 0
    emit(outputCode, .up, into: &output, settlingLater: true)
  }

  /// Whether `code` going down completes the configured pause/resume chord:
  /// every other key of it is held. That key never reaches the application.
  private func completesToggleChord(_ code: UInt16) -> Bool {
    let chord = configuration.toggleChord
    return !chord.isEmpty && chord.contains(code) && keys.holds(chord)
  }

  func cancelAids() {
    expander.cancelAids()
    aids.cancel()
  }

  // MARK: - Emitting

  /// The single place events leave the engine: skips redundant presses and
  /// releases, and keeps the text model in step with the application
  /// (`applying` false: planned typing, whose edits the plan made;
  /// `settlingLater`: left to ``settle()``, for a key's last event).
  func emit(
    _ code: UInt16, _ value: KeyValue, into output: inout KeyOutput, applying: Bool = true,
    keysym: xkb_keysym_t? = nil, settlingLater: Bool = false
  ) {
    guard keys.setOutput(code, down: value != .up) else { return }
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
    aids.observe(edit)
    expander.noteEdit(edit)
    switch edit {
    case .none, .delete:
      break
    case .insert("\t"), .move, .shortcut, .unknown:
      resetText()
    case .insert(let character):
      text.append(character)
    case .backspace:
      text.deleteBackward()
    }
  }
}
