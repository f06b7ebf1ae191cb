import CKeyboard

/// The engine's side of the snippet picker (DESIGN 8): its chord, opening
/// it, the keys it takes while open, closing it with or without a choice,
/// and the search behind it.
extension Engine {
  /// Builds the picker's search now, off the key path (the daemon, at
  /// load), or takes `index`, built of these snippets elsewhere.
  public func prepareSearch(_ index: SnippetSearch? = nil) {
    if let index { search = index } else { _ = search }
  }

  /// The picker's search index (built if it was not): a value, which a
  /// search may use on another thread.
  public var searchIndex: SnippetSearch { search }

  /// The bytes the picker's search index holds (built if it was not).
  public var searchIndexBytes: Int { search.storageBytes }

  /// The snippets that match `query`, ranked as the picker ranks them.
  public func searchSnippets(_ query: String, limit: Int) -> SnippetSearch.Result {
    search.search(query, limit: limit)
  }

  /// Whether the picker is open (the keys are its own).
  public var isPickerOpen: Bool { picker != nil }

  /// Whether `code` going down, with the modifiers held, is the picker's chord.
  @inline(never)
  func completesPickerChord(_ code: UInt16) -> Bool {
    guard let shortcut = configuration.pickerShortcut, code == shortcut.key else { return false }
    var held: Shortcut.Modifiers = []
    if keys.isHeld(KeyCode.leftCtrl) || keys.isHeld(KeyCode.rightCtrl) { held.insert(.control) }
    if keys.isHeld(KeyCode.leftShift) || keys.isHeld(KeyCode.rightShift) { held.insert(.shift) }
    if keys.isHeld(KeyCode.leftMeta) || keys.isHeld(KeyCode.rightMeta) { held.insert(.meta) }
    if keys.isHeld(KeyCode.leftAlt)
      || (keys.isHeld(KeyCode.rightAlt) && decoder.keysym(KeyCode.rightAlt) != UInt32(XKB_KEY_ISO_Level3_Shift))
    {
      held.insert(.alt)
    }
    return held == shortcut.modifiers
  }

  /// Opens the picker on `scope` (nil: every snippet), when it can be shown.
  /// The modifiers the application holds go up: the picker's keys are not
  /// the application's. When Alt or Super is among them, a Control tap goes
  /// first, so that the application does not take their release alone for
  /// a tap (which opens a menu bar or the desktop's overview).
  @inline(never)
  func openPicker(scope: [Int]?, trigger: String?, into output: inout KeyOutput) -> Bool {
    guard let onPicker, !snippets.snippets.isEmpty else { return false }
    let opening = Picker(
      layout: layout, group: decoder.group, numLock: decoder.isNumLocked, scope: scope, trigger: trigger)
    opening.search(search)
    guard onPicker(opening.view(of: snippets.snippets)) else { return false }
    picker = opening
    cancelAids()
    let held = keys.modifiersDown()
    if held.contains(where: { [KeyCode.leftAlt, KeyCode.rightAlt, KeyCode.leftMeta, KeyCode.rightMeta].contains($0) })
      && !held.contains(KeyCode.leftCtrl) && !held.contains(KeyCode.rightCtrl)
    {
      emit(KeyCode.leftCtrl, .down, into: &output)
      emit(KeyCode.leftCtrl, .up, into: &output)
    }
    for code in held {
      emit(code, .up, into: &output)
      if keys.isHeld(code) { keys.swallowRelease[Int(code)] = true }
    }
    return true
  }

  /// Opens the picker on every snippet, as its shortcut does (for the
  /// status icon's menu); false when it cannot now: paused, off, open
  /// already, typing, or nobody can show it.
  public func openPicker(into output: inout KeyOutput) -> Bool {
    settle()
    guard picker == nil, !isPaused, configuration.enabled, !isBusy else { return false }
    return openPicker(scope: nil, trigger: nil, into: &output)
  }

  /// A press or repeat while the picker is open: it is the picker's, and so
  /// is its release.
  @inline(never)
  func pickerPress(_ code: UInt16, repeated: Bool, at time: Instant, into output: inout KeyOutput) {
    guard let picker else { return }
    keys.swallowRelease[Int(code)] = true
    if !repeated && code == pickerKey && completesPickerChord(code) {
      return closePicker(choosing: nil, key: code, at: time, into: &output)
    }
    switch picker.press(code, repeated: repeated) {
    case .none: return
    case .queryChanged: picker.search(search)
    case .moved: break
    case .close: return closePicker(choosing: nil, key: code, at: time, into: &output)
    case .choose(let snippet): return closePicker(choosing: snippet, key: code, at: time, into: &output)
    }
    if onPicker?(picker.view(of: snippets.snippets)) != true {
      closePicker(choosing: nil, key: code, at: time, into: &output)
    }
  }

  /// A release while the picker is open, or of the key that opened it.
  @inline(never)
  func pickerRelease(_ code: UInt16) {
    if code == pickerOpener { pickerOpener = nil }
    picker?.release(code)
  }

  /// Closes the picker: `chosen` is inserted, or for a shared trigger fires
  /// in its place; with none, a shared trigger stays as typed.
  private func closePicker(choosing chosen: Int?, key: UInt16, at time: Instant, into output: inout KeyOutput) {
    guard let closing = picker.take() else { return }
    _ = onPicker?(nil)
    if closing.trigger != nil {
      expander.closeMenu(choosing: chosen, at: time, host: self, into: &output)
    } else if let chosen {
      expander.insert(chosen, key: key, at: time, host: self, into: &output)
    }
  }

  /// Closes the picker as Escape does: the focus moved, the agent that
  /// showed it went away, the config is reloaded. The keys are the
  /// application's again.
  public func closePicker(at time: Instant, into output: inout KeyOutput) {
    settle()
    closePicker(choosing: nil, key: 0, at: time, into: &output)
  }
}
