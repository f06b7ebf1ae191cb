/// The expander's answers and timers: the session's answer to a variable,
/// a dialog that took the keyboard, a wait given up, Backspace's undo, and
/// the typing of an expansion burst by burst.
extension Expander {
  /// The session's answer to request `id`: the variable's value, or why
  /// there is none. Types the expansion (or asks for the next variable);
  /// without a value, the trigger stays as typed.
  func answered(
    _ id: UInt32, value: Result<VariableValue, SessionFailure>, at now: Instant, host: some KeyboardHost,
    into output: inout KeyOutput
  ) {
    guard var expansion = waiting, expansion.request == id else { return }  // late: it timed out
    waiting = nil
    switch (value, expansion.paste != nil) {
    case (.failure, true):
      // Pasted once the clipboard holds the text; typed when it cannot
      // (the clipboard put back, should the session have changed it).
      expansion.paste = nil
      expansion.typesInstead = true
      _ = host.ask(SessionRequest(id: nextRequest(), call: .restoreClipboard, environment: [:]))
    case (.success, true): break
    case (.failure(let reason), false):
      host.notice(.sessionVariableFailed(origin: snippets.snippets[expansion.match.snippet].origin, reason: reason))
      giveUp(expansion, at: now, host, &output)
      return
    case (.success(let value), false):
      expansion.inputs.answers[expansion.variable] = value
    }
    finish(expansion, at: now, host, &output)
  }

  /// The dialog of request `id` has the keyboard: the keys that waited go
  /// to it, and the keys typed from now on too, for as long as it may stay
  /// open.
  func dialogShown(_ id: UInt32, at now: Instant, host: some KeyboardHost, into output: inout KeyOutput) {
    guard var expansion = waiting, expansion.request == id, expansion.isDialog, !expansion.passesKeys else { return }
    expansion.passesKeys = true
    expansion.deadline = now.adding(milliseconds: WaitingExpansion.dialogTimeoutMilliseconds)
    waiting = expansion
    host.keysMayGo(at: now, into: &output)
  }

  /// Gives up the expansion waiting past its deadline; one waiting for the
  /// clipboard is typed instead.
  func advanceWaiting(to now: Instant, host: some KeyboardHost, into output: inout KeyOutput) {
    guard let due = waitingDeadline, due <= now, let waiting else { return }
    if waiting.paste != nil {
      return answered(waiting.request, value: .failure(.timedOut), at: now, host: host, into: &output)
    }
    host.notice(.sessionVariableFailed(origin: snippets.snippets[waiting.match.snippet].origin, reason: .timedOut))
    giveUp(waiting, at: now, host, &output)
  }

  /// Leaves the trigger as typed, every key of it: its swallowed last key
  /// goes out now, then the keys that waited. After a dialog had the
  /// keyboard, the key is tapped (or pressed, when the user still holds
  /// it): what the user typed meanwhile went to the dialog.
  func giveUp(
    _ expansion: WaitingExpansion, at now: Instant, _ host: some KeyboardHost, _ output: inout KeyOutput
  ) {
    waiting = nil
    // A shared trigger's menu closed: its last character is typed as it
    // was (the modifiers it was typed with went up when the picker opened).
    if expansion.inMenu {
      let last = RenderedSnippet(text: [expansion.next], charactersAfterCursor: 0)
      if let plan = host.editPlanner().typing(deleting: 0, forward: 0, last) {
        host.planned(deleting: 0, inserting: last.text[...])
        return startTyping(plan, at: now, host, &output)
      }
    }
    if !expansion.fromPicker {
      host.swallowRelease(of: expansion.key, false)
      host.emit(expansion.key, .down, applying: true, into: &output)
      if (expansion.passesKeys || expansion.inMenu) && !host.isPhysicallyHeld(expansion.key) {
        host.emit(expansion.key, .up, applying: true, into: &output)
      }
    }
    host.keysMayGo(at: now, into: &output)
  }

  /// Backspace right after an expansion: the replacement goes, the trigger
  /// comes back as the user typed it.
  func undo(
    _ undo: ExpansionUndo, key code: UInt16, at time: Instant, host: some KeyboardHost, into output: inout KeyOutput
  ) {
    let rendered = RenderedSnippet(text: undo.typed, charactersAfterCursor: 0)
    chain = nil
    guard let plan = host.editPlanner().typing(deleting: undo.before, forward: undo.after, rendered) else { return }
    host.planned(deleting: undo.before, inserting: undo.typed[...])
    host.swallowRelease(of: code, true)
    startTyping(plan, at: time, host, &output)
  }

  /// Replaces the last `length` characters of the text and the character
  /// of `code`, going down, as an expansion would (autocorrect, smart
  /// punctuation): `typed` is what was typed, `replacement` what replaces
  /// it; the next Backspace undoes it (teaching `learns`, if any). False,
  /// with nothing emitted, when the layout cannot type it.
  func replace(
    deleting length: Int, typed: [Unicode.Scalar], with replacement: [Unicode.Scalar], learns: [Unicode.Scalar]?,
    key code: UInt16, at time: Instant, host: some KeyboardHost, into output: inout KeyOutput
  ) -> Bool {
    let text = host.text
    let rendered = RenderedSnippet(text: replacement, charactersAfterCursor: 0)
    let kept = EditPlanner.sharedStart(of: rendered, withLast: length, of: text)
    let deleted = EditPlanner.graphemeCount(typedLengthOf: length - kept, in: text)
    let remaining = RenderedSnippet(text: Array(replacement[kept...]), charactersAfterCursor: 0)
    guard let plan = host.editPlanner().typing(deleting: deleted, forward: 0, remaining) else { return false }
    chain = nil
    host.planned(deleting: deleted, inserting: remaining.text[...])
    undo = ExpansionUndo(before: replacement.count, after: 0, typed: typed, learns: learns)
    host.swallowRelease(of: code, true)
    startTyping(plan, at: time, host, &output)
    return true
  }

  /// Sends the first burst of `plan` now (touch-down), or a gap after the
  /// last burst of the expansion before, and schedules the rest.
  func startTyping(
    _ plan: TypingPlan, at time: Instant, _ host: some KeyboardHost, _ output: inout KeyOutput
  ) {
    typing.start(plan, at: time, configuration: host.configuration.expansion)
    advanceTyping(to: time, host: host, into: &output)
  }

  /// Sends the burst due at `now`, if any.
  func advanceTyping(to now: Instant, host: some KeyboardHost, into output: inout KeyOutput) {
    if let due = typing.deadline, due <= now { typeBurst(at: now, host, &output) }
  }

  /// Sends the burst due at `now`; after the last one, the keys the user
  /// typed meanwhile, in order.
  func typeBurst(at now: Instant, _ host: some KeyboardHost, _ output: inout KeyOutput) {
    let burst = typing.nextBurst(at: now, configuration: host.configuration.expansion)
    var index = burst.lowerBound
    while index < burst.upperBound {
      let key = typing.keys[index]
      host.emit(key.code, key.value, applying: false, into: &output)
      index += 1
    }
    if !typing.isActive { host.keysMayGo(at: now, into: &output) }
  }
}
