import CKeyboard

/// A keyboard layout compiled once from XKB names: characters from keys through
/// an ``XKBState``, and keys for characters through a table built at load time.
public final class Layout {
  public let names: LayoutNames
  let keymap: XKBKeymap
  /// For each group and Num Lock state (index ``slot(_:_:)``), the best way
  /// to type each character there (while the table is built).
  private var slotTypings: [[UInt32: Typing]] = []
  /// The same in one table, keyed by ``key(_:_:)``: one lookup a character.
  private var typings: [UInt32: Typing] = [:]
  /// With a group-switch chord, for each Num Lock state: the best way over
  /// all groups, for the characters the group in effect lacks.
  private var anyGroupTypings: [[UInt32: Typing]] = [[:], [:]]
  /// For each group, Num Lock state and lowercase letter with a one-stroke
  /// capital there: the capital's stroke, keyed by ``key(_:_:)``.
  private var capitals: [UInt32: Stroke] = [:]
  /// The chord that moves to the next group, for keymaps with several groups
  /// and an XKB option (`grp:…`) that defines one; nil otherwise.
  public private(set) var nextGroupChord: [UInt16]?
  /// The Num Lock modifier's mask, 0 in a keymap without one.
  let numLockMask: UInt32

  /// Number of XKB groups ("layouts" in `us,ru`).
  public var groupCount: Int { keymap.groupCount }

  /// Builds the character table of `keymap`, compiled for `names`
  /// (XKBFiles' `Layout(names:)` compiles it).
  package init(names: LayoutNames, keymap: XKBKeymap) {
    self.names = names
    self.keymap = keymap
    numLockMask = keymap.mask(ofModifier: XKB_MOD_NAME_NUM)
    nextGroupChord = groupCount > 1 ? probeNextGroupChord() : nil
    slotTypings = Array(repeating: [:], count: 2 * max(groupCount, 1))
    let modifierKeys = probeModifierKeys()
    let keysyms = buildStrokeTable(modifierKeys: modifierKeys)
    buildComposeSequences(keysyms: keysyms)
    buildTables()
  }

  /// How to type `character` with `group` in effect and Num Lock on or off
  /// (the keypad's keys type digits with it on, and may type other things
  /// with it off): in that group, else through a group switch when the
  /// layout has a chord for it; nil if it cannot be typed.
  public func typing(of character: Unicode.Scalar, from group: Int = 0, numLock: Bool = false) -> Typing? {
    typings[Self.key(slot(group, numLock), character.value)] ?? anyGroupTypings[numLock ? 1 : 0][character.value]
  }

  /// The stroke that types the capital of the lowercase letter `letter` in
  /// `group` with Num Lock on or off, nil when the capital needs more than
  /// one stroke or is not there.
  public func capitalStroke(of letter: Unicode.Scalar, in group: Int = 0, numLock: Bool = false) -> Stroke? {
    capitals[Self.key(slot(group, numLock), letter.value)]
  }

  /// Every character the layout can type with `group` in effect and Num
  /// Lock on or off, in code point order.
  public func typeableCharacters(from group: Int = 0, numLock: Bool = false) -> [Unicode.Scalar] {
    let slot = slot(group, numLock)
    let inGroup = typings.keys.filter { $0 >> 21 == slot }.map { $0 & 0x1F_FFFF }
    return Set(inGroup).union(anyGroupTypings[numLock ? 1 : 0].keys).sorted().compactMap(Unicode.Scalar.init)
  }

  /// The characters a key types alone in `group` (no modifier, no dead
  /// key), with that key: where each letter is on the keyboard.
  func baseCharacters(in group: Int) -> [(Unicode.Scalar, UInt16)] {
    let slot = slot(group, false)
    return typings.compactMap { key, typing in
      guard key >> 21 == slot, typing.prefix.isEmpty, typing.stroke.modifiers.count == 0,
        typing.stroke.group == group, let character = Unicode.Scalar(key & 0x1F_FFFF)
      else { return nil }
      return (character, typing.stroke.key)
    }
  }

  /// The table index of `group` and a Num Lock state; a group out of range
  /// wraps to the first, as XKB's default group action does (the callers
  /// check reports first).
  private func slot(_ group: Int, _ numLock: Bool) -> Int {
    let group = group >= 0 && group < max(groupCount, 1) ? group : 0
    return group * 2 + (numLock ? 1 : 0)
  }

  /// A table key: the slot above the code point (below 2^21).
  private static func key(_ slot: Int, _ character: UInt32) -> UInt32 { UInt32(slot) << 21 | character }

  // MARK: - Building the table

  /// The modifiers a stroke may use: Shift and the level modifiers (Mod3,
  /// Mod5), never Lock, NumLock (Mod2), Control, Alt (Mod1) or Super (Mod4).
  private var allowedModifiers: UInt32 {
    keymap.mask(ofModifier: XKB_MOD_NAME_SHIFT) | keymap.mask(ofModifier: "Mod3")
      | keymap.mask(ofModifier: "Mod5")
  }

  /// The keys that set only allowed modifiers, with the mask each sets when
  /// held, the best first: the Shift keys (a layout may make another key
  /// Shift too), the usual modifier keys, then any other key that shifts a
  /// level while held, as Neo's keys where Caps Lock and the key right of
  /// it usually are (a lock key locks, and sets no modifier while held).
  private func probeModifierKeys() -> [(key: UInt16, mask: UInt32)] {
    let shifts = [KeyCode.leftShift, KeyCode.rightShift]
    let usual = [
      KeyCode.rightAlt, KeyCode.key102nd, KeyCode.leftAlt, KeyCode.leftMeta, KeyCode.rightMeta, KeyCode.leftCtrl,
      KeyCode.rightCtrl,
    ]
    let others = (UInt16(1)..<256).filter { !usual.contains($0) && !shifts.contains($0) }
    return (shifts + usual + others).compactMap { key in
      let state = XKBState(keymap: keymap)
      state.update(key, down: true)
      let mask = state.depressedModifiers
      return mask != 0 && mask & ~allowedModifiers == 0 ? (key, mask) : nil
    }
  }

  /// The fewest modifier keys other than `key` (a key cannot be held to
  /// shift its own level) that together set exactly `mask`, the best ones
  /// of ``probeModifierKeys()``, in the order a stroke presses them: the
  /// level keys first, Shift last, as a key may do another thing with
  /// Shift held (`mao`'s AltGr is Compose with Shift).
  private func modifierKeys(for mask: UInt32, from all: [(key: UInt16, mask: UInt32)], key: UInt16)
    -> ModifierKeys?
  {
    if mask == 0 { return ModifierKeys() }
    let keys = all.filter { $0.key != key && $0.mask & ~mask == 0 }
    var chosen = keys.first { $0.mask == mask }.map { [$0] }
    if chosen == nil {
      search: for (i, a) in keys.enumerated() {
        for b in keys[(i + 1)...] where a.mask | b.mask == mask {
          chosen = [a, b]
          break search
        }
      }
    }
    if chosen == nil {
      search: for (i, a) in keys.enumerated() {
        for (j, b) in keys.enumerated() where j > i {
          for c in keys[(j + 1)...] where a.mask | b.mask | c.mask == mask {
            chosen = [a, b, c]
            break search
          }
        }
      }
    }
    guard let chosen else { return nil }
    let shift = keymap.mask(ofModifier: XKB_MOD_NAME_SHIFT)
    return ModifierKeys(chosen.filter { $0.mask != shift }.map(\.key) + chosen.filter { $0.mask == shift }.map(\.key))
  }

  /// Fills the table with every character a single stroke types, keeping the
  /// best stroke for each (see ``offer(_:for:numLock:)``). Returns, with Num
  /// Lock off and on, the keysym each chosen stroke produces: the keys
  /// compose sequences are typed with.
  private func buildStrokeTable(modifierKeys: [(key: UInt16, mask: UInt32)]) -> [[Stroke: xkb_keysym_t]] {
    let map = keymap.keymap
    var keysyms: [[Stroke: xkb_keysym_t]] = [[:], [:]]
    var masks = [xkb_mod_mask_t](repeating: 0, count: 32)
    let allowed = allowedModifiers
    // X11 sees key codes up to 255 only (evdev 247): keys above never type there.
    let lastCode = min(xkb_keymap_max_keycode(map), 255)
    let compose = keymap.composeTable.flatMap { table in
      XKBReferences.withLock { xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS) }
    }
    defer { if let compose { XKBReferences.withLock { xkb_compose_state_unref(compose) } } }
    for xkbCode in xkb_keymap_min_keycode(map)...lastCode where xkbCode >= 8 {
      let code = UInt16(xkbCode - 8)
      let keyGroups = xkb_keymap_num_layouts_for_key(map, xkbCode)
      guard keyGroups > 0 else { continue }
      for group in 0..<xkb_layout_index_t(max(groupCount, 1)) {
        // A key with fewer groups than the keymap wraps the others onto its
        // own (XKB's default); `produces` below checks it on a real state.
        let keyGroup = group % keyGroups
        let levels = xkb_keymap_num_levels_for_key(map, xkbCode, keyGroup)
        let levelMasks = (0..<levels).map { level in
          let count = xkb_keymap_key_get_mods_for_level(map, xkbCode, keyGroup, level, &masks, masks.count)
          return Array(masks.prefix(count))
        }
        // Num Lock chooses the level of the keypad's keys (and of Neo's
        // main keys): their strokes are found for each state, with the
        // level's masks that hold it when it is on. Other keys type the
        // same either way.
        let numLockChooses = numLockMask != 0 && levelMasks.joined().contains { $0 & numLockMask != 0 }
        for level in 0..<levels {
          var syms: UnsafePointer<xkb_keysym_t>?
          guard xkb_keymap_key_get_syms_by_level(map, xkbCode, keyGroup, level, &syms) == 1,
            let keysym = syms?.pointee
          else { continue }
          // What an application types for the keysym: its character, or
          // what the compose table makes of it alone (the Arabic lam-alef
          // ligatures are two letters); one that starts a sequence types
          // nothing until the next key, as a dead key.
          var character = xkb_keysym_to_utf32(keysym)
          var isDeadKey = XKBKeymap.isDeadKey(keysym)
          if let compose, !isDeadKey {
            xkb_compose_state_reset(compose)
            xkb_compose_state_feed(compose, keysym)
            switch xkb_compose_state_get_status(compose) {
            case XKB_COMPOSE_COMPOSING: isDeadKey = true
            case XKB_COMPOSE_COMPOSED: character = XKBState.composedCharacter(compose)
            default: break
            }
          }
          guard isDeadKey || Self.isPrintable(character) else { continue }
          for numLock in numLockChooses ? [false, true] : [false] {
            var best: ModifierKeys?
            for mask in levelMasks[Int(level)]
            where (mask & numLockMask != 0) == numLock && mask & ~(allowed | numLockMask) == 0 {
              if let keys = self.modifierKeys(for: mask & ~numLockMask, from: modifierKeys, key: code),
                best == nil || keys.count < best!.count
              {
                best = keys
              }
            }
            guard let best else { continue }
            let stroke = Stroke(key: code, modifiers: best, group: Int(group))
            guard produces(stroke, numLock: numLock) == keysym else { continue }
            for state in numLockChooses ? [numLock] : [false, true] {
              keysyms[state ? 1 : 0][stroke] = keysym
              if !isDeadKey { offer(Typing(stroke: stroke), for: character, numLock: state) }
            }
          }
        }
      }
    }
    return keysyms
  }

  /// The most keysyms a compose sequence is searched for: the Compose key
  /// and three keys (`Multi_key`, `(`, `1`, `)` → `①`).
  static let longestSequence = 4

  /// Adds compose sequences for characters no single stroke types, as the
  /// compose table defines them: a dead key and a key (`dead_circumflex`,
  /// `e` → `ê`), two dead keys and a key, or the Compose key and the keys
  /// after it (`Multi_key`, `'`, `e` → `é`). Every sequence the keys of a
  /// group can type is walked, the table telling which ones go on.
  private func buildComposeSequences(keysyms: [[Stroke: xkb_keysym_t]]) {
    guard let table = keymap.composeTable,
      let compose = XKBReferences.withLock({ xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS) })
    else { return }
    defer { XKBReferences.withLock { xkb_compose_state_unref(compose) } }
    for numLock in [false, true] {
      for group in 0..<max(groupCount, 1) {
        buildComposeSequences(keysyms: keysyms[numLock ? 1 : 0], group: group, numLock: numLock, compose: compose)
      }
    }
  }

  /// The compose sequences of one group with Num Lock off or on.
  private func buildComposeSequences(
    keysyms: [Stroke: xkb_keysym_t], group: Int, numLock: Bool, compose: OpaquePointer
  ) {
    // The cheapest stroke for each keysym of the group.
    var strokes: [xkb_keysym_t: Stroke] = [:]
    for (stroke, keysym) in keysyms where stroke.group == group {
      if let other = strokes[keysym], Self.cost(Typing(stroke: other)) <= Self.cost(Typing(stroke: stroke)) {
        continue
      }
      strokes[keysym] = stroke
    }
    let keys = strokes.sorted { $0.key < $1.key }
    var sequences: [[(key: xkb_keysym_t, value: Stroke)]] = keys.filter { keysym, _ in
      xkb_compose_state_reset(compose)
      xkb_compose_state_feed(compose, keysym)
      return xkb_compose_state_get_status(compose) == XKB_COMPOSE_COMPOSING
    }.map { [$0] }
    while let sequence = sequences.popLast() {
      for next in keys {
        xkb_compose_state_reset(compose)
        for (keysym, _) in sequence { xkb_compose_state_feed(compose, keysym) }
        xkb_compose_state_feed(compose, next.key)
        switch xkb_compose_state_get_status(compose) {
        case XKB_COMPOSE_COMPOSED:
          let character = XKBState.composedCharacter(compose)
          guard Self.isPrintable(character) else { continue }
          offer(Typing(prefix: sequence.map(\.value), stroke: next.value), for: character, numLock: numLock)
        case XKB_COMPOSE_COMPOSING where sequence.count + 1 < Self.longestSequence:
          sequences.append(sequence + [next])
        default:
          break
        }
      }
    }
  }

  /// Moves the tables of the groups into one, and fills the capitals table.
  private func buildTables() {
    for (slot, typings) in slotTypings.enumerated() {
      for (value, typing) in typings {
        self.typings[Self.key(slot, value)] = typing
        guard typing.prefix.isEmpty, let letter = Unicode.Scalar(value), letter.properties.isLowercase else {
          continue
        }
        let upper = letter.properties.uppercaseMapping.unicodeScalars
        guard upper.count == 1, let capital = upper.first, capital != letter,
          let capitalTyping = typings[capital.value], capitalTyping.prefix.isEmpty
        else { continue }
        capitals[Self.key(slot, value)] = capitalTyping.stroke
      }
    }
    slotTypings = []
  }

  /// Keeps `typing` for `character` with Num Lock on or off if it beats the
  /// one in the table: fewer strokes, then keys every PC keyboard has (not
  /// KEY_EURO and other extra keys), then the first group, then fewer
  /// modifiers, then the lower key code.
  private func offer(_ typing: Typing, for character: UInt32, numLock: Bool) {
    let slot = slot(typing.stroke.group, numLock)
    if let current = slotTypings[slot][character] {
      if Self.cost(typing) < Self.cost(current) { slotTypings[slot][character] = typing }
    } else {
      slotTypings[slot][character] = typing
    }
    // Other groups are reachable only through a group switch.
    guard nextGroupChord != nil else { return }
    let state = numLock ? 1 : 0
    if let current = anyGroupTypings[state][character], Self.cost(current) <= Self.cost(typing) { return }
    anyGroupTypings[state][character] = typing
  }

  private static func cost(_ t: Typing) -> (Int, Int, Int, Int, UInt16) {
    let strokes = t.strokes
    return (
      strokes.count, strokes.contains { $0.key > Self.lastPCKey } ? 1 : 0, t.stroke.group,
      strokes.reduce(0) { $0 + $1.modifiers.count }, t.stroke.key
    )
  }

  /// The highest key code of a standard PC keyboard (KEY_COMPOSE).
  static let lastPCKey = UInt16(KEY_COMPOSE)

  /// The keysym a stroke produces on a fresh state with its group locked,
  /// and Num Lock when `numLock`.
  private func produces(_ stroke: Stroke, numLock: Bool) -> xkb_keysym_t {
    let state = XKBState(keymap: keymap)
    state.lockGroup(stroke.group, lockedModifiers: numLock ? numLockMask : 0)
    for modifier in stroke.modifiers { state.update(modifier, down: true) }
    let keysym = state.keysym(stroke.key)
    // A key that locks something at this level (Num Lock, Caps Lock, a
    // group) is no stroke: typing never toggles a lock. The keymap's
    // actions say so, whatever the key's code.
    let (locked, group) = (state.lockedModifiers, state.effectiveGroup)
    state.update(stroke.key, down: true)
    state.update(stroke.key, down: false)
    return state.lockedModifiers == locked && state.effectiveGroup == group ? keysym : 0
  }

  /// Finds a chord (up to one modifier and a key) that, pressed and released,
  /// locks the next group, as `grp:alt_shift_toggle` or `grp:caps_toggle` define.
  private func probeNextGroupChord() -> [UInt16]? {
    let prefixes: [[UInt16]] = [
      [], [KeyCode.leftShift], [KeyCode.leftAlt], [KeyCode.leftCtrl], [KeyCode.leftMeta],
      [KeyCode.rightShift], [KeyCode.rightAlt], [KeyCode.rightCtrl],
    ]
    let count = groupCount
    for prefix in prefixes {
      for code in UInt16(1)..<256 where !prefix.contains(code) {
        let chord = prefix + [code]
        let state = XKBState(keymap: keymap)
        var advancesByOne = true
        for step in 1...count where advancesByOne {
          Self.tap(chord, on: state)
          advancesByOne = state.effectiveGroup == step % count && state.depressedModifiers == 0
        }
        if advancesByOne { return chord }
      }
    }
    return nil
  }

  /// Presses `chord` in order and releases it in reverse.
  static func tap(_ chord: [UInt16], on state: XKBState) {
    for key in chord { state.update(key, down: true) }
    for key in chord.reversed() { state.update(key, down: false) }
  }

  static func isPrintable(_ character: UInt32) -> Bool {
    character >= 0x20 && character != 0x7f && !(0x80..<0xa0).contains(character)
  }
}
