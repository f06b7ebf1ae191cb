import CEvdev

/// Up to three modifier keys held, in order, while a key is tapped.
public struct ModifierKeys: Equatable, Hashable, Sendable, Sequence {
  private var codes: (UInt16, UInt16, UInt16) = (0, 0, 0)
  public private(set) var count = 0

  /// No modifier.
  public init() {}

  /// The given keys, at most three.
  public init(_ keys: [UInt16]) {
    precondition(keys.count <= 3, "a stroke holds at most three modifiers")
    for key in keys { append(key) }
  }

  mutating func append(_ key: UInt16) {
    precondition(count < 3, "a stroke holds at most three modifiers")
    switch count {
    case 0: codes.0 = key
    case 1: codes.1 = key
    default: codes.2 = key
    }
    count += 1
  }

  /// The key at `index` (0 first pressed).
  public subscript(index: Int) -> UInt16 {
    precondition(index < count)
    switch index {
    case 0: return codes.0
    case 1: return codes.1
    default: return codes.2
    }
  }

  public static func == (lhs: ModifierKeys, rhs: ModifierKeys) -> Bool {
    lhs.count == rhs.count && (0..<lhs.count).allSatisfy { lhs[$0] == rhs[$0] }
  }

  public func hash(into hasher: inout Hasher) {
    for key in self { hasher.combine(key) }
  }

  public struct Iterator: IteratorProtocol {
    let keys: ModifierKeys
    var index = 0
    public mutating func next() -> UInt16? {
      guard index < keys.count else { return nil }
      defer { index += 1 }
      return keys[index]
    }
  }

  public func makeIterator() -> Iterator { Iterator(keys: self) }
}

/// One chord: hold `modifiers` in order, tap `key`, with group `group` active.
public struct Stroke: Equatable, Hashable, Sendable {
  public var key: UInt16
  public var modifiers: ModifierKeys
  /// The XKB group (0 first) the stroke is meant for.
  public var group: Int

  /// Makes a stroke.
  public init(key: UInt16, modifiers: ModifierKeys = ModifierKeys(), group: Int = 0) {
    self.key = key
    self.modifiers = modifiers
    self.group = group
  }
}

/// How to type one character: a stroke, or a dead key then a stroke.
public struct Typing: Equatable, Sendable {
  /// The dead key, when the character is reached only through one.
  public var deadKey: Stroke?
  public var stroke: Stroke

  /// Strokes in the order they are typed.
  public var strokes: [Stroke] { deadKey.map { [$0, stroke] } ?? [stroke] }
}

/// A keyboard layout compiled once from XKB names: characters from keys through
/// an ``XKBState``, and keys for characters through a table built at load time.
public final class Layout {
  public let names: LayoutNames
  let keymap: XKBKeymap
  /// For each group, the best way to type each character in that group
  /// (while the table is built).
  private var groupTypings: [[UInt32: Typing]] = []
  /// The same in one table, keyed by ``key(_:_:)``: one lookup a key.
  private var typings: [UInt32: Typing] = [:]
  /// With a group-switch chord: the best way over all groups, for the
  /// characters the group in effect lacks.
  private var anyGroupTypings: [UInt32: Typing] = [:]
  /// For each group and lowercase letter with a one-stroke capital in that
  /// group: the capital's stroke, keyed by ``key(_:_:)``.
  private var capitals: [UInt32: Stroke] = [:]
  /// The chord that moves to the next group, for keymaps with several groups
  /// and an XKB option (`grp:…`) that defines one; nil otherwise.
  public private(set) var nextGroupChord: [UInt16]?

  /// Number of XKB groups ("layouts" in `us,ru`).
  public var groupCount: Int { keymap.groupCount }

  /// Compiles the keymap for `names` and builds the character table.
  public init(names: LayoutNames) throws(LayoutError) {
    self.names = names
    self.keymap = try XKBKeymap(names: names)
    nextGroupChord = groupCount > 1 ? probeNextGroupChord() : nil
    groupTypings = Array(repeating: [:], count: max(groupCount, 1))
    let modifierKeys = probeModifierKeys()
    let keysyms = buildStrokeTable(modifierKeys: modifierKeys)
    buildDeadKeySequences(keysyms: keysyms)
    buildTables()
  }

  /// How to type `character` with `group` in effect: in that group, else
  /// through a group switch when the layout has a chord for it; nil if it
  /// cannot be typed.
  public func typing(of character: Unicode.Scalar, from group: Int = 0) -> Typing? {
    typings[Self.key(clamped(group), character.value)] ?? anyGroupTypings[character.value]
  }

  /// The stroke that types the capital of the lowercase letter `letter` in
  /// `group`, nil when the capital needs more than one stroke or is not there.
  public func capitalStroke(of letter: Unicode.Scalar, in group: Int = 0) -> Stroke? {
    capitals[Self.key(clamped(group), letter.value)]
  }

  /// Every character the layout can type with `group` in effect, in code
  /// point order.
  public func typeableCharacters(from group: Int = 0) -> [Unicode.Scalar] {
    let inGroup = typings.keys.filter { $0 >> 24 == clamped(group) }.map { $0 & 0xFF_FFFF }
    return Set(inGroup).union(anyGroupTypings.keys).sorted().compactMap(Unicode.Scalar.init)
  }

  /// `group` within the keymap's groups (a group out of range wraps, as
  /// XKB's default group action does; the callers check reports first).
  private func clamped(_ group: Int) -> Int { group >= 0 && group < max(groupCount, 1) ? group : 0 }

  /// A table key: the group above the code point (below 2^21).
  private static func key(_ group: Int, _ character: UInt32) -> UInt32 { UInt32(group) << 24 | character }

  // MARK: - Building the table

  /// The modifiers a stroke may use: Shift and the level modifiers (Mod3,
  /// Mod5), never Lock, NumLock (Mod2), Control, Alt (Mod1) or Super (Mod4).
  private var allowedModifiers: UInt32 {
    keymap.mask(ofModifier: XKB_MOD_NAME_SHIFT) | keymap.mask(ofModifier: "Mod3")
      | keymap.mask(ofModifier: "Mod5")
  }

  /// The keys that set only allowed modifiers, with the mask each sets when
  /// held, in the order a stroke presses them: the level keys first, Shift
  /// last, as a key may do another thing with Shift held (`mao`'s AltGr is
  /// Compose with Shift).
  private func probeModifierKeys() -> [(key: UInt16, mask: UInt32)] {
    let usual = [
      KeyCode.rightAlt, KeyCode.key102nd, KeyCode.leftAlt, KeyCode.leftMeta, KeyCode.rightMeta, KeyCode.leftCtrl,
      KeyCode.rightCtrl,
    ]
    // Then any other key that shifts a level while held, as Neo's keys
    // where Caps Lock and the key right of it usually are (a lock key
    // locks, and sets no modifier while held); Shift last.
    let others = (UInt16(1)..<256).filter {
      !usual.contains($0) && $0 != KeyCode.leftShift && $0 != KeyCode.rightShift
    }
    let shifts = [KeyCode.leftShift, KeyCode.rightShift]
    // Each modifier mask goes to the first key that sets it, the Shift keys
    // first (a layout may make another key Shift too); strokes press them
    // in the order above.
    var owner: [UInt32: UInt16] = [:]
    for key in shifts + usual + others {
      let state = XKBState(keymap: keymap)
      state.update(key, down: true)
      let mask = state.depressedModifiers
      if mask != 0, mask & ~allowedModifiers == 0, owner[mask] == nil { owner[mask] = key }
    }
    return (usual + others + shifts).compactMap { key in
      owner.first { $0.value == key }.map { (key, $0.key) }
    }
  }

  /// The fewest modifier keys that together set exactly `mask`.
  private func modifierKeys(for mask: UInt32, from keys: [(key: UInt16, mask: UInt32)])
    -> ModifierKeys?
  {
    if mask == 0 { return ModifierKeys() }
    for one in keys where one.mask == mask { return ModifierKeys([one.key]) }
    for (i, a) in keys.enumerated() {
      for b in keys[(i + 1)...] where a.mask | b.mask == mask {
        return ModifierKeys([a.key, b.key])
      }
    }
    for (i, a) in keys.enumerated() {
      for (j, b) in keys.enumerated() where j > i {
        for c in keys[(j + 1)...] where a.mask | b.mask | c.mask == mask {
          return ModifierKeys([a.key, b.key, c.key])
        }
      }
    }
    return nil
  }

  /// Fills the table with every character a single stroke types, keeping the
  /// best stroke for each (see ``offer(_:for:)``). Returns the keysym each
  /// chosen stroke produces.
  private func buildStrokeTable(modifierKeys: [(key: UInt16, mask: UInt32)]) -> [Stroke: xkb_keysym_t] {
    let map = keymap.keymap
    var keysyms: [Stroke: xkb_keysym_t] = [:]
    var masks = [xkb_mod_mask_t](repeating: 0, count: 32)
    let allowed = allowedModifiers
    // X11 sees key codes up to 255 only (evdev 247): keys above never type there.
    let lastCode = min(xkb_keymap_max_keycode(map), 255)
    for xkbCode in xkb_keymap_min_keycode(map)...lastCode where xkbCode >= 8 {
      let code = UInt16(xkbCode - 8)
      let keyGroups = xkb_keymap_num_layouts_for_key(map, xkbCode)
      guard keyGroups > 0 else { continue }
      for group in 0..<xkb_layout_index_t(max(groupCount, 1)) {
        // A key with fewer groups than the keymap wraps the others onto its
        // own (XKB's default); `produces` below checks it on a real state.
        let keyGroup = group % keyGroups
        for level in 0..<xkb_keymap_num_levels_for_key(map, xkbCode, keyGroup) {
          var syms: UnsafePointer<xkb_keysym_t>?
          guard xkb_keymap_key_get_syms_by_level(map, xkbCode, keyGroup, level, &syms) == 1,
            let keysym = syms?.pointee
          else { continue }
          let character = xkb_keysym_to_utf32(keysym)
          let isDeadKey = XKBKeymap.isDeadKey(keysym)
          guard isDeadKey || Self.isPrintable(character) else { continue }
          let maskCount = xkb_keymap_key_get_mods_for_level(
            map, xkbCode, keyGroup, level, &masks, masks.count)
          var best: ModifierKeys?
          for mask in masks.prefix(maskCount) where mask & ~allowed == 0 {
            if let keys = self.modifierKeys(for: mask, from: modifierKeys),
              best == nil || keys.count < best!.count
            {
              best = keys
            }
          }
          guard let best else { continue }
          let stroke = Stroke(key: code, modifiers: best, group: Int(group))
          guard produces(stroke) == keysym else { continue }
          keysyms[stroke] = keysym
          if !isDeadKey { offer(Typing(deadKey: nil, stroke: stroke), for: character) }
        }
      }
    }
    return keysyms
  }

  /// Adds dead key + stroke sequences for characters no single stroke types,
  /// as the compose table defines them (`dead_circumflex`, `e` → `ê`).
  private func buildDeadKeySequences(keysyms: [Stroke: xkb_keysym_t]) {
    guard let table = keymap.composeTable,
      let compose = xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS)
    else { return }
    defer { xkb_compose_state_unref(compose) }
    let deadKeys = keysyms.filter { XKBKeymap.isDeadKey($0.value) }
    let bases = keysyms.filter { !XKBKeymap.isDeadKey($0.value) }
    for (dead, deadSym) in deadKeys {
      for (base, baseSym) in bases where base.group == dead.group {
        xkb_compose_state_reset(compose)
        xkb_compose_state_feed(compose, deadSym)
        xkb_compose_state_feed(compose, baseSym)
        guard xkb_compose_state_get_status(compose) == XKB_COMPOSE_COMPOSED else { continue }
        let character = xkb_keysym_to_utf32(xkb_compose_state_get_one_sym(compose))
        guard Self.isPrintable(character) else { continue }
        offer(Typing(deadKey: dead, stroke: base), for: character)
      }
    }
  }

  /// Moves the tables of the groups into one, and fills the capitals table.
  private func buildTables() {
    for (group, typings) in groupTypings.enumerated() {
      for (value, typing) in typings {
        self.typings[Self.key(group, value)] = typing
        guard typing.deadKey == nil, let letter = Unicode.Scalar(value), letter.properties.isLowercase else { continue }
        let upper = letter.properties.uppercaseMapping.unicodeScalars
        guard upper.count == 1, let capital = upper.first, capital != letter,
          let capitalTyping = typings[capital.value], capitalTyping.deadKey == nil
        else { continue }
        capitals[Self.key(group, value)] = capitalTyping.stroke
      }
    }
    groupTypings = []
  }

  /// Keeps `typing` for `character` if it beats the one in the table: fewer
  /// strokes, then keys every PC keyboard has (not KEY_EURO and other extra
  /// keys), then the first group, then fewer modifiers, then the lower key code.
  private func offer(_ typing: Typing, for character: UInt32) {
    let group = typing.stroke.group
    if let current = groupTypings[group][character] {
      if Self.cost(typing) < Self.cost(current) { groupTypings[group][character] = typing }
    } else {
      groupTypings[group][character] = typing
    }
    // Other groups are reachable only through a group switch.
    guard nextGroupChord != nil else { return }
    if let current = anyGroupTypings[character], Self.cost(current) <= Self.cost(typing) { return }
    anyGroupTypings[character] = typing
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

  /// The keysym a stroke produces on a fresh state with its group locked.
  private func produces(_ stroke: Stroke) -> xkb_keysym_t {
    let state = XKBState(keymap: keymap)
    state.lockGroup(stroke.group)
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
