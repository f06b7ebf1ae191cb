import CKeyboard

/// What one emitted key event does to an application's text, as a text field
/// with the same keymap would take it.
public enum TextEdit: Equatable, Sendable {
  /// Nothing: a key-up, a modifier, a dead key waiting for its base.
  case none
  /// A character typed at the cursor (`\n` for Enter, `\t` for Tab).
  case insert(Unicode.Scalar)
  /// BackSpace: delete the character before the cursor.
  case backspace
  /// Delete: delete the character after the cursor.
  case delete
  /// The cursor moved or may have moved, as the key's keysym says.
  case move(CursorMove)
  /// A key with Control, Alt or Super held: a shortcut, not text.
  case shortcut(keysym: UInt32)
  /// Escape, Insert, or a key whose effect on text is unknown.
  case unknown
}

/// The lock LEDs the decoder follows.
public enum LockIndicator: Sendable {
  case numLock, capsLock
}

/// Cursor keys.
public enum CursorMove: Sendable {
  case left, right, up, down, home, end, pageUp, pageDown
}

/// Turns the key events an application receives into the text edits it
/// makes, through the keymap and its compose table (dead keys compose).
public final class KeystrokeDecoder {
  private(set) var state: XKBState
  /// The keymap's masks and plain keys: another keymap replaces them
  /// (``follow(_:group:down:)``).
  private var shortcutModifiers: UInt32
  private var numLockMask: UInt32
  private var capsLockMask: UInt32
  /// What a press of each plain key does with no modifier in effect, per
  /// group (index group * 256 + code): the keys whose press changes no state
  /// and whose keysym starts no compose sequence. Most typing takes this path
  /// instead of asking libxkbcommon each time.
  private var plainKeys: [PlainKey?]

  struct PlainKey {
    var keysym: xkb_keysym_t
    var character: UInt32
    var edit: TextEdit
  }

  /// Makes a decoder with nothing pressed.
  public init(layout: Layout) {
    state = XKBState(keymap: layout.keymap)
    (shortcutModifiers, numLockMask, capsLockMask) = Self.masks(layout)
    plainKeys = Self.plainKeys(layout)
  }

  /// Switches to `layout`, the desktop's new keymap, with `group` locked,
  /// the locks kept and `down` keys held.
  public func follow(_ layout: Layout, group: Int, down: [Bool]) {
    let locked = state.lockedModifiers
    (shortcutModifiers, numLockMask, capsLockMask) = Self.masks(layout)
    plainKeys = Self.plainKeys(layout)
    state = XKBState(keymap: layout.keymap)
    state.lockGroup(group, lockedModifiers: locked)
    for code in 0..<down.count where down[code] { state.update(UInt16(code), down: true) }
  }

  private static func masks(_ layout: Layout) -> (shortcut: UInt32, numLock: UInt32, capsLock: UInt32) {
    let keymap = layout.keymap
    return (
      keymap.mask(ofModifier: XKB_MOD_NAME_CTRL) | keymap.mask(ofModifier: XKB_MOD_NAME_ALT)
        | keymap.mask(ofModifier: XKB_MOD_NAME_LOGO),
      keymap.mask(ofModifier: XKB_MOD_NAME_NUM), keymap.mask(ofModifier: XKB_MOD_NAME_CAPS)
    )
  }

  private static func plainKeys(_ layout: Layout) -> [PlainKey?] {
    var plainKeys = [PlainKey?](repeating: nil, count: max(layout.groupCount, 1) * 2 * 256)
    // The keypad's keys type other things with Num Lock on: each group is
    // read with it off and on (a keymap without Num Lock never has it on).
    let numLockStates = layout.numLockMask == 0 ? [false] : [false, true]
    for group in 0..<max(layout.groupCount, 1) {
      for numLock in numLockStates {
        func freshProbe() -> XKBState {
          let probe = XKBState(keymap: layout.keymap)
          probe.lockGroup(group, lockedModifiers: numLock ? layout.numLockMask : 0)
          return probe
        }
        var probe = freshProbe()
        for code in UInt16(1)..<256 {
          // A key that changes the state (Caps Lock, pressed and released,
          // stays locked) is not plain, and the keys after it are read on a
          // fresh state: the ISO key comes after Caps Lock.
          guard probe.pressChangesNothing(code) else {
            probe = freshProbe()
            continue
          }
          let keysym = probe.keysym(code)
          guard keysym != 0, !Self.isModifier(keysym), probe.compose(keysym) == .passThrough else {
            probe.resetCompose()
            continue
          }
          let character = probe.character(code)
          plainKeys[Self.plainIndex(group: group, numLock: numLock, code: code)] = PlainKey(
            keysym: keysym, character: character, edit: Self.edit(keysym: keysym, character: character))
        }
      }
    }
    return plainKeys
  }

  private static func plainIndex(group: Int, numLock: Bool, code: UInt16) -> Int {
    (group * 2 + (numLock ? 1 : 0)) * 256 + Int(code)
  }

  /// The plain key `code` is now: no modifier in effect but Num Lock, no
  /// dead key pending.
  private func plainKey(_ code: UInt16) -> PlainKey? {
    let modifiers = state.effectiveModifiers
    guard code < 256, modifiers & ~numLockMask == 0, !state.isComposing else { return nil }
    return plainKeys[Self.plainIndex(group: state.effectiveGroup, numLock: modifiers != 0, code: code)]
  }

  /// Applies one event and returns its edit. A repeat is taken as a second
  /// press. `keysym`, when the caller has it, is what `code` produces now.
  public func feed(code: UInt16, value: KeyValue, keysym: xkb_keysym_t? = nil) -> TextEdit {
    // A plain key changes no state: nothing to tell libxkbcommon.
    if let plain = plainKey(code) { return value == .up ? .none : plain.edit }
    guard value != .up else {
      state.update(code, down: false)
      return .none
    }
    let edit = edit(forPress: code, keysym: keysym)
    if value == .down { state.update(code, down: true) }
    return edit
  }

  /// The edit a press of `code` makes in the current state, without applying it.
  public func edit(forPress code: UInt16, keysym known: xkb_keysym_t? = nil) -> TextEdit {
    let keysym = known ?? state.keysym(code)
    if Self.isModifier(keysym) { return .none }
    if state.effectiveModifiers & shortcutModifiers != 0 {
      state.resetCompose()
      return .shortcut(keysym: keysym)
    }
    switch state.compose(keysym) {
    case .composing, .cancelled: return .none
    case .composed(let character):
      // 0: the sequence typed text of several characters.
      return character == 0 ? .unknown : Unicode.Scalar(character).map(TextEdit.insert) ?? .unknown
    case .passThrough: break
    }
    return Self.edit(keysym: keysym, character: state.character(code))
  }

  /// The edit of a press that is not a modifier, shortcut or compose step.
  private static func edit(keysym: xkb_keysym_t, character: UInt32) -> TextEdit {
    switch Int32(bitPattern: keysym) {
    case XKB_KEY_BackSpace: return .backspace
    case XKB_KEY_Delete, XKB_KEY_KP_Delete: return .delete
    case XKB_KEY_Return, XKB_KEY_KP_Enter, XKB_KEY_ISO_Enter: return .insert("\n")
    case XKB_KEY_Tab, XKB_KEY_ISO_Left_Tab, XKB_KEY_KP_Tab: return .insert("\t")
    case XKB_KEY_Left, XKB_KEY_KP_Left: return .move(.left)
    case XKB_KEY_Right, XKB_KEY_KP_Right: return .move(.right)
    case XKB_KEY_Up, XKB_KEY_KP_Up: return .move(.up)
    case XKB_KEY_Down, XKB_KEY_KP_Down: return .move(.down)
    case XKB_KEY_Home, XKB_KEY_KP_Home: return .move(.home)
    case XKB_KEY_End, XKB_KEY_KP_End: return .move(.end)
    case XKB_KEY_Page_Up, XKB_KEY_KP_Page_Up: return .move(.pageUp)
    case XKB_KEY_Page_Down, XKB_KEY_KP_Page_Down: return .move(.pageDown)
    default: break
    }
    if Layout.isPrintable(character), let scalar = Unicode.Scalar(character) {
      return .insert(scalar)
    }
    return .unknown
  }

  /// The group in effect, as the application's keymap state has it.
  public var group: Int { state.effectiveGroup }

  /// Whether a keysym is a modifier, lock or group key (`xkb_keysym_is_modifier`
  /// is newer than the libxkbcommon of Debian 12, so the range is spelled out).
  static func isModifier(_ keysym: xkb_keysym_t) -> Bool {
    (0xffe1...0xffee).contains(keysym)  // Shift_L … Hyper_R
      || (0xfe01...0xfe0f).contains(keysym)  // ISO_Lock … ISO_Last_Group_Lock
      || keysym == 0xff7e  // Mode_switch
      || keysym == 0xff7f  // Num_Lock
      || keysym == 0xff14  // Scroll_Lock
      || keysym == 0xfe11 || keysym == 0xfe12 || keysym == 0xfe13  // Level5 shift/latch/lock
  }
}

extension KeystrokeDecoder {
  /// Whether `code` is a modifier, lock or group key in the current state.
  public func isModifier(_ code: UInt16) -> Bool { Self.isModifier(state.keysym(code)) }

  /// The keysym `code` produces in the current state.
  func keysym(_ code: UInt16) -> xkb_keysym_t { plainKey(code)?.keysym ?? state.keysym(code) }

  /// Starts over from a fresh state with `down` keys held, for a decoder
  /// that was not fed for a while (the engine skips decoding when nothing
  /// needs the text). The group is `group` and the locked modifiers
  /// `locked`, or they stay.
  func resynchronize(down: [Bool], group: Int? = nil, locked: UInt32? = nil) {
    let locked = locked ?? state.lockedModifiers
    let lockedGroup = group ?? state.effectiveGroup
    state = XKBState(keymap: state.keymap)
    state.lockGroup(lockedGroup, lockedModifiers: locked)
    for code in 0..<down.count where down[code] { state.update(UInt16(code), down: true) }
  }

  /// Turns Num Lock or Caps Lock on or off as the keyboard's LED shows it
  /// (the desktop's state, which may have been set before vkbd saw a key),
  /// with `down` keys held.
  func indicate(_ lock: LockIndicator, on: Bool, down: [Bool]) {
    let mask = lock == .numLock ? numLockMask : capsLockMask
    let locked = state.lockedModifiers
    let wanted = on ? locked | mask : locked & ~mask
    if wanted != locked { resynchronize(down: down, locked: wanted) }
  }

  /// Starts over with nothing held and nothing locked but Num Lock when
  /// `numLock`, in `group`.
  public func reset(group: Int, numLock: Bool) {
    resynchronize(down: [], group: group, locked: numLock ? numLockMask : 0)
  }

  /// Whether Num Lock is on: the keypad types digits.
  var isNumLocked: Bool { state.effectiveModifiers & numLockMask != 0 }

  /// Takes `other`'s group (when its layout has as many) and locks, with
  /// `down` keys held: another engine's keymap state, carried over.
  func takeState(of other: KeystrokeDecoder, down: [Bool]) {
    let group = other.group < plainKeys.count / 512 ? other.group : 0  // plainKeys: 512 a group
    resynchronize(
      down: down, group: group,
      locked: (other.isNumLocked ? numLockMask : 0)
        | (other.state.lockedModifiers & other.capsLockMask != 0 ? capsLockMask : 0))
  }

  /// Whether Control, Alt or Super is in effect: the next key is a shortcut.
  var hasShortcutModifiers: Bool { state.effectiveModifiers & shortcutModifiers != 0 }

  /// Whether any modifier is held or locked (Shift, Caps Lock, AltGr…), so a
  /// key's character is not its plain one.
  var hasModifiers: Bool { state.effectiveModifiers & ~numLockMask != 0 }

  /// Whether Caps Lock is locked and the Caps Lock key toggles it.
  var isCapsLocked: Bool {
    state.lockedModifiers & capsLockMask != 0 && state.keysym(KeyCode.capsLock) == XKB_KEY_Caps_Lock
  }

  /// The character a press of `code` would type now, without applying it;
  /// 0 while a dead key waits for its base (the result is not the key's own).
  func predictedCharacter(_ code: UInt16) -> UInt32 {
    if let plain = plainKey(code) { return plain.character }
    return state.isComposing ? 0 : state.character(code)
  }
}
