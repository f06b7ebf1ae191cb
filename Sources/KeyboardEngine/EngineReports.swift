/// What the engine is told from outside its keys: keys on devices it does
/// not grab, the field's text, the lock LEDs, the desktop's layout, the
/// session's answers, and the engine it takes over from after a reload.
extension Engine {
  /// A key pressed on a device vkbd reads but does not grab (a keypad): what
  /// it did to the text is not known. Any key but a modifier or lock
  /// forgets the text, as a click does.
  public func keyPressedElsewhere(_ code: UInt16) {
    settle()
    if !decoder.isModifier(code) { resetText() }
  }

  /// Takes a session agent's report of the field's text before the cursor
  /// (`isFieldStart` when that is all of it), which completes the model or
  /// replaces it (``TextModel/reconcile(with:isFieldStart:)``); a word
  /// such a report replaced is not corrected. A report that comes while
  /// the engine types or waits is left alone.
  public func fieldReported(before reported: [Unicode.Scalar], isFieldStart: Bool) {
    settle()
    guard decodes, !isBusy else { return }
    if !text.reconcile(with: reported, isFieldStart: isFieldStart) {
      cancelAids()
      words.doubtsWord = true
    }
    capsDue = nil
  }

  /// Follows Num Lock or Caps Lock as the keyboard's LED reports the
  /// desktop's state; an LED that changes while the engine types is the
  /// echo of its own Caps Lock taps and is left alone.
  public func indicatorChanged(_ lock: LockIndicator, on: Bool) {
    settle()
    guard !expander.isTyping else { return }
    decoder.indicate(lock, on: on, down: keys.outputDown)
  }

  /// The layout's group in force, from 0.
  public var group: Int { decoder.group }

  /// Follows the desktop's keymap and group, as a session agent reports
  /// them. While the engine types, a group alone is the echo of its own
  /// switches and is left alone; another keymap waits until it is done.
  public func follow(_ desktop: Layout, group: Int) {
    settle()
    guard group >= 0, group < max(desktop.groupCount, 1) else { return }
    if expander.isTyping {
      if desktop !== layout { pendingLayout = desktop }
      pendingGroup = group
      return
    }
    pendingLayout = nil
    if desktop !== layout {
      decoder.follow(desktop, group: group, down: keys.outputDown)
      layout = desktop
      cancelAids()
    } else if group != decoder.group {
      decoder.resynchronize(down: keys.outputDown, group: group)
      cancelAids()
    }
    capsDue = nil
  }

  /// The session's answer to request `id`: the value, or why there is none.
  public func sessionAnswered(
    _ id: UInt32, value: Result<VariableValue, SessionFailure>, at now: Instant, into output: inout KeyOutput
  ) {
    settle()
    expander.answered(id, value: value, at: now, host: self, into: &output)
  }

  /// The dialog the session opened for request `id` has the keyboard.
  public func sessionDialogShown(_ id: UInt32, at now: Instant, into output: inout KeyOutput) {
    settle()
    expander.dialogShown(id, at: now, host: self, into: &output)
  }

  /// Takes over from `old`, the engine of the configuration before (a
  /// reload): the keys held, physically and on the virtual keyboard, pass
  /// over as they are, so that nothing is lifted or pressed again (a key
  /// held through a reload types nothing); the locks, the layout's group
  /// (where this layout has it), the text before the cursor and the pause
  /// come along. `old` must have nothing under way (``isBusy``).
  public func takeOver(from old: Engine) {
    old.settle()
    settle()
    keys = old.keys
    decoder.takeState(of: old.decoder, down: keys.outputDown)
    text = old.text
    isPaused = old.isPaused
  }
}
