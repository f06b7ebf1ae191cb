/// The typing aids at the keys (DESIGN 3.2 to 3.4), owned by the engine:
/// the capital typed for a lowercase letter when one is due, the
/// double-space period and its undo, and the daemon's own Backspace repeat.
/// Their state is their own; they emit through the engine (``KeyboardHost``).
final class TypingAids {
  private var autoCapitalization = AutoCapitalization()
  private var autoPeriod = AutoPeriod()
  private var backspaceRepeat = BackspaceRepeat()
  /// The physical key whose press started the Backspace repeat.
  private var backspaceKey: UInt16 = 0
  /// The modifiers held on the output that an aid lifted while it types.
  private var lifted = ModifierKeys()

  /// When the Backspace repeat taps next.
  var repeatDeadline: Instant? { backspaceRepeat.deadline }

  /// Forgets every pending aid.
  func cancel() {
    autoCapitalization.cancel()
    autoPeriod.cancel()
    backspaceRepeat.stop()
  }

  /// Follows an edit of the text (the undo of a capital watches for the
  /// same letter at the same place).
  func observe(_ edit: TextEdit) { autoCapitalization.observe(edit) }

  /// Another key than Space: the double-space window closes (3.3 rule 2).
  func otherKey() { autoPeriod.otherKey() }

  /// The engine typed text of its own: neither aid carries over it.
  func engineTyped() {
    autoPeriod.otherKey()
    autoCapitalization.cancel()
  }

  /// The engine typed a Space of the user's (after a correction): the
  /// double-space window opens as for one typed as is.
  func spaceTyped(at time: Instant) { autoPeriod.spaceTyped(at: time) }

  /// A key goes down: the Backspace repeat stops (3.4 rule 4).
  func keyDown() { if backspaceRepeat.deadline != nil { backspaceRepeat.stop() } }

  /// A physical key whose release was swallowed is up.
  func released(_ code: UInt16) { if code == backspaceKey { backspaceRepeat.stop() } }

  /// Backspace: the undo of a double-space period, and the daemon's own repeat.
  func backspaceDown(_ code: UInt16, at time: Instant, host: some KeyboardHost, into output: inout KeyOutput) {
    let configuration = host.configuration
    let accelerate = configuration.backspace.accelerate
    if autoPeriod.justConverted && configuration.doubleSpacePeriod {
      // 3.3 rule 5: ". " becomes " ".
      liftModifiers(host, &output)
      host.tap(code, into: &output)
      host.tap(code, into: &output)
      host.tap(KeyCode.space, into: &output)
      restoreModifiers(host, &output)
      autoPeriod.undone()
    } else {
      autoPeriod.otherKey()
      guard accelerate else {
        host.emit(code, .down, applying: true, into: &output)
        return
      }
      host.tap(code, into: &output)  // touch-down: one tap at once (3.4)
    }
    host.swallowRelease(of: code, true)
    if accelerate {
      backspaceKey = code
      backspaceRepeat.start(at: time, configuration: configuration.backspace)
    }
  }

  /// The repeat's taps due at `now`.
  func advance(to now: Instant, host: some KeyboardHost, into output: inout KeyOutput) {
    while let due = backspaceRepeat.deadline, due <= now {
      var taps = backspaceRepeat.tick(text: host.text, configuration: host.configuration.backspace)
      while taps > 0 {
        host.tap(backspaceKey, into: &output)
        taps -= 1
      }
    }
  }

  /// Space: a second Space in the window types ". " instead (3.3 rule 3).
  func spaceDown(_ code: UInt16, at time: Instant, host: some KeyboardHost, into output: inout KeyOutput) {
    guard
      autoPeriod.shouldConvert(
        at: time, text: host.text, timeoutMilliseconds: host.configuration.doubleSpaceTimeoutMilliseconds),
      let period = host.layout.typing(of: ".", from: host.keymapGroup, numLock: host.isNumLocked),
      period.stroke.group == host.keymapGroup
    else {
      host.emit(code, .down, applying: true, into: &output)
      autoPeriod.spaceTyped(at: time)
      return
    }
    liftModifiers(host, &output)
    host.tap(KeyCode.backspace, into: &output)
    for stroke in period.prefix { host.type(stroke, into: &output) }
    host.type(period.stroke, into: &output)
    host.tap(code, into: &output)
    restoreModifiers(host, &output)
    host.swallowRelease(of: code, true)
    autoPeriod.converted()
  }

  /// Lifts the modifiers held on the output (at most three) while it types.
  private func liftModifiers(_ host: some KeyboardHost, _ output: inout KeyOutput) {
    lifted = host.modifiersDownOnOutput()
    for key in lifted { host.emit(key, .up, applying: true, into: &output) }
  }

  /// Presses again the lifted modifiers the user still holds.
  private func restoreModifiers(_ host: some KeyboardHost, _ output: inout KeyOutput) {
    for key in lifted where host.isPhysicallyHeld(key) { host.emit(key, .down, applying: true, into: &output) }
    lifted = ModifierKeys()
  }

  /// Types the capital of a lowercase letter when caps is due (3.2), the
  /// capital's key standing in for the letter's until it is released.
  func capitalize(
    _ code: UInt16, character: UInt32, isDue: Bool, host: some KeyboardHost, into output: inout KeyOutput
  ) -> Bool {
    guard isDue, let letter = Unicode.Scalar(character), !host.hasModifiers,
      let capital = host.layout.capitalStroke(of: letter, in: host.keymapGroup, numLock: host.isNumLocked),
      !autoCapitalization.isUndone(letter)
    else { return false }
    var index = 0
    while index < capital.modifiers.count {
      host.emit(capital.modifiers[index], .down, applying: true, into: &output)
      index += 1
    }
    host.emit(capital.key, .down, applying: true, into: &output)
    // Up again at once: the application took the capital at the press, and a
    // held key repeats in lowercase ("Kkkk"), as after a tap of Shift.
    while index > 0 {
      index -= 1
      host.emit(capital.modifiers[index], .up, applying: true, into: &output)
    }
    host.capitalized(typed: letter, key: code, standIn: capital.key)
    autoCapitalization.didCapitalize(letter)
    return true
  }
}
