import CEvdev
import CKeyboard
import Foundation
import TestSupport
import Testing

@testable import KeyboardEngine
@testable import VKBDDaemon
import XKBFiles

/// Every layout and variant xkeyboard-config ships on this machine, and
/// keymaps its options change (several groups, Compose, the keypad): every
/// character a key reaches on a level without a lock is typed by the
/// engine's strokes and read back by its decoding and by `vkbd simulate`.
@Suite struct EveryLayoutTests {
  /// What the keys of one keymap reach, read from the keymap alone (levels,
  /// their modifier masks, and what each key does when held), never from
  /// the engine's tables.
  struct Reach {
    /// For each group, the characters a level reaches with keys held and no
    /// lock on.
    var withoutLock: [Set<Unicode.Scalar>]
    /// For each group, the characters a level reaches only with Num Lock on
    /// (the keypad's).
    var withNumLock: [Set<Unicode.Scalar>]
    /// The characters no level reaches without a lock, with why.
    var unreachable: [Unicode.Scalar: Why]

    /// Why no stroke reaches a character, the nearest to typeable first.
    enum Why: Int, Comparable, CustomStringConvertible {
      case keyAbove255, numLockOff, capsLock, shortcut, noKeyHolds, composedAway, startsSequence

      var description: String {
        switch self {
        case .keyAbove255:
          "only on a key beyond X11's 255 key codes (KEY_DOLLAR, KEY_EURO), which X11 and XWayland never receive"
        case .numLockOff: "only with Num Lock on"
        case .capsLock: "only with Caps Lock on"
        case .shortcut: "only with Control, Alt or Super held, which applications take as a shortcut"
        case .noKeyHolds: "only with a modifier no key of the keymap holds"
        case .composedAway: "its keysym is a compose sequence of its own, which types other text"
        case .startsSequence: "its keysym starts a compose sequence, so the next key decides"
        }
      }

      static func < (a: Why, b: Why) -> Bool { a.rawValue < b.rawValue }
    }

    /// The compose table applications read in `locale` (en_US.UTF-8's
    /// when empty), loaded here on its own.
    static func composeTable(_ locale: String) -> OpaquePointer? {
      let context = xkb_context_new(XKB_CONTEXT_NO_ENVIRONMENT_NAMES)
      return xkb_compose_table_new_from_locale(
        context, locale.isEmpty ? "en_US.UTF-8" : locale, XKB_COMPOSE_COMPILE_NO_FLAGS)
    }
    nonisolated(unsafe) static let usTable = composeTable("")

    init(_ layout: Layout) {
      let map = layout.keymap.keymap
      let keymap = layout.keymap
      let groups = max(layout.groupCount, 1)
      let lock = keymap.mask(ofModifier: XKB_MOD_NAME_CAPS)
      let numLock = keymap.mask(ofModifier: XKB_MOD_NAME_NUM)
      let shortcut =
        keymap.mask(ofModifier: XKB_MOD_NAME_CTRL) | keymap.mask(ofModifier: XKB_MOD_NAME_ALT)
        | keymap.mask(ofModifier: XKB_MOD_NAME_LOGO)
      // The modifiers some key sets while held and leaves nothing locked
      // when released.
      var held: UInt32 = 0
      for code in UInt16(1)..<256 {
        let state = XKBState(keymap: keymap)
        state.update(code, down: true)
        let mask = state.depressedModifiers
        state.update(code, down: false)
        if state.lockedModifiers == 0 && state.effectiveGroup == 0 { held |= mask }
      }
      withoutLock = Array(repeating: [], count: groups)
      withNumLock = Array(repeating: [], count: groups)
      var why: [Unicode.Scalar: Why] = [:]
      let table = layout.names.locale.isEmpty ? Self.usTable : Self.composeTable(layout.names.locale)
      let compose = table.flatMap { xkb_compose_state_new($0, XKB_COMPOSE_STATE_NO_FLAGS) }
      defer { xkb_compose_state_unref(compose) }
      var masks = [xkb_mod_mask_t](repeating: 0, count: 32)
      let probe = xkb_state_new(map)
      defer { xkb_state_unref(probe) }
      for xkbCode in xkb_keymap_min_keycode(map)...xkb_keymap_max_keycode(map) where xkbCode >= 8 {
        let keyGroups = xkb_keymap_num_layouts_for_key(map, xkbCode)
        guard keyGroups > 0 else { continue }
        for group in 0..<groups {
          let keyGroup = xkb_layout_index_t(group) % keyGroups
          for level in 0..<xkb_keymap_num_levels_for_key(map, xkbCode, keyGroup) {
            var syms: UnsafePointer<xkb_keysym_t>?
            guard xkb_keymap_key_get_syms_by_level(map, xkbCode, keyGroup, level, &syms) == 1,
              let character = Unicode.Scalar(xkb_keysym_to_utf32(syms!.pointee)), Layout.isPrintable(character.value)
            else { continue }
            // Applications run every keysym through the locale's compose table.
            xkb_compose_state_reset(compose)
            xkb_compose_state_feed(compose, syms!.pointee)
            switch xkb_compose_state_get_status(compose) {
            case XKB_COMPOSE_COMPOSED
            where xkb_keysym_to_utf32(xkb_compose_state_get_one_sym(compose)) != character.value:
              why[character] = why[character] ?? .composedAway
              continue
            case XKB_COMPOSE_COMPOSING:
              why[character] = why[character] ?? .startsSequence
              continue
            default: break
            }
            let count = xkb_keymap_key_get_mods_for_level(map, xkbCode, keyGroup, level, &masks, masks.count)
            var reasons: [Why] = [.noKeyHolds]
            for mask in masks.prefix(count) {
              // The mask must choose this level: a virtual modifier no key
              // sets (LevelFive without a Level 5 key) leaves a mask that
              // chooses a lower one.
              xkb_state_update_mask(probe, mask, 0, 0, 0, 0, xkb_layout_index_t(group))
              guard xkb_state_key_get_level(probe, xkbCode, keyGroup) == level else { continue }
              if xkbCode > 255 {
                reasons.append(.keyAbove255)
              } else if mask & lock != 0 {
                reasons.append(.capsLock)
              } else if mask & shortcut != 0 {
                reasons.append(.shortcut)
              } else if mask & ~numLock & ~held != 0 {
                reasons.append(.noKeyHolds)
              } else if mask & numLock != 0 {
                reasons.append(.numLockOff)
              } else {
                withoutLock[group].insert(character)
                reasons = []
                break
              }
            }
            if reasons.contains(.numLockOff) { withNumLock[group].insert(character) }
            if let reason = reasons.min(), why[character].map({ reason < $0 }) ?? true { why[character] = reason }
          }
        }
      }
      let reached = withoutLock.reduce(into: Set()) { $0.formUnion($1) }
      let withNumLock = self.withNumLock.reduce(into: Set()) { $0.formUnion($1) }
      unreachable = why.filter { !reached.contains($0.key) && !withNumLock.contains($0.key) }
    }
  }

  /// `evdev.lst`'s layouts and variants, in its order.
  static let shipped: [LayoutNames] = {
    guard let list = try? String(contentsOfFile: "/usr/share/X11/xkb/rules/evdev.lst", encoding: .utf8) else {
      return []
    }
    var section = ""
    var names: [LayoutNames] = []
    for line in list.split(separator: "\n") {
      if line.hasPrefix("! ") {
        section = String(line.dropFirst(2))
        continue
      }
      let words = line.split(separator: " ")
      guard words.count >= 2 else { continue }
      switch section {
      case "layout": names.append(LayoutNames(layout: String(words[0])))
      case "variant": names.append(LayoutNames(layout: String(words[1].dropLast()), variant: String(words[0])))
      default: break
      }
    }
    return names
  }()

  /// Keymaps that options change: several groups, each with the group
  /// switch an option defines; a Compose key; the keypad's layers; level
  /// keys moved to other keys; locales with Compose files of their own.
  static let withOptions: [LayoutNames] = [
    LayoutNames(layout: "us,ru", options: "grp:alt_shift_toggle"),
    LayoutNames(layout: "us,de", options: "grp:win_space_toggle"),
    LayoutNames(layout: "fr,ara", options: "grp:caps_toggle"),
    LayoutNames(layout: "us,ua,ru", variant: ",,phonetic", options: "grp:ctrl_shift_toggle"),
    LayoutNames(layout: "de,gr,il,th", options: "grp:menu_toggle"),
    LayoutNames(layout: "us", options: "compose:ralt"),
    LayoutNames(layout: "de", options: "compose:menu,keypad:oss"),
    LayoutNames(layout: "us", options: "keypad:future,kpdl:comma"),
    LayoutNames(layout: "fr", options: "numpad:mac"),
    LayoutNames(layout: "us", variant: "intl", options: "lv3:caps_switch"),
    LayoutNames(layout: "de", options: "lv3:menu_switch,lv5:ralt_switch"),
    LayoutNames(layout: "us", variant: "intl", locale: "pt_BR.UTF-8"),
    LayoutNames(layout: "gr", variant: "polytonic", locale: "el_GR.UTF-8"),
  ]

  /// The characters some key reaches on a level, but no stroke without a
  /// lock, by why (README, "Every layout"):
  /// - `$` and `€` where a layout has them only on KEY_DOLLAR or KEY_EURO
  ///   (ru(phonetic) and its kin put them on a third level no key reaches);
  /// - the Arabic lam-alef ligatures and Khmer's five vowel digraphs, whose
  ///   keysyms the locale's Compose file turns into two letters each;
  /// - capital sharp s where only Caps Lock reaches it (de(tr), de(ro)…);
  /// - the braille layouts' keypad digits, behind Shift and Num Lock that
  ///   they have no key for, and the oss_latin9 narrow no-break space on a
  ///   fifth level no key reaches.
  static let unreachable: [Reach.Why: Set<Unicode.Scalar>] = [
    .keyAbove255: ["$", "€"],
    .composedAway: [
      "\u{FEF5}", "\u{FEF7}", "\u{FEF9}", "\u{FEFB}", "\u{17FB}", "\u{17FC}", "\u{17FD}", "\u{17FE}", "\u{17FF}",
    ],
    .capsLock: ["\u{1E9E}"],
    .noKeyHolds: ["\u{202F}", "0", "1", "2", "3", "4", "5", "6", "7", "8", "9"],
  ]

  /// The one layout `evdev.lst` lists that has no symbols: the name a user's
  /// own layout file takes.
  static let withoutSymbols = ["custom"]

  /// One keymap walked: what does not round-trip, as `character: what came back`.
  static func walk(_ names: LayoutNames) throws -> (failures: [String], unreachable: [Unicode.Scalar: Reach.Why]) {
    let layout = try Layout(names: names)
    let reach = Reach(layout)
    let decoder = KeystrokeDecoder(layout: layout)
    var failures: [String] = []
    for group in 0..<max(layout.groupCount, 1) {
      for numLock in [false, true] {
        let characters = numLock ? reach.withoutLock[group].union(reach.withNumLock[group]) : reach.withoutLock[group]
        for character in characters.sorted() {
          let state = "group \(group + 1), Num Lock \(numLock ? "on" : "off")"
          guard let typing = layout.typing(of: character, from: group, numLock: numLock) else {
            failures.append("\(character) U+\(String(character.value, radix: 16)) (\(state)): no stroke")
            continue
          }
          let edits = replayedEdits(typing, on: layout, decoder: decoder, group: group, numLock: numLock)
          if edits != [.insert(character)] { failures.append("\(character) (\(state)): \(edits)") }
        }
      }
    }
    // `vkbd simulate --layout`: the whole first group typed through the
    // engine into a simulated field, which reads it back.
    let text = String(String.UnicodeScalarView(reach.withoutLock[0].sorted()))
    var configuration = EngineConfiguration.allOff
    configuration.doubleSpacePeriod = true  // the engine decodes every key
    var simulator = Simulator(
      engine: Engine(layout: layout, configuration: configuration, snippets: SnippetMatcher([]), world: .testing))
    do {
      try simulator.run([(line: 1, step: .type(text))])
      simulator.finish()
      let typed = Array(text.unicodeScalars), read = Array(simulator.fieldText.unicodeScalars)
      if let first = (0..<min(typed.count, read.count)).first(where: { typed[$0] != read[$0] })
        ?? (typed.count == read.count ? nil : min(typed.count, read.count))
      {
        failures.append(
          "simulate: from \(typed[first...].prefix(4)) read back \(read[min(first, read.count)...].prefix(4))")
      }
    } catch {
      failures.append("simulate: \(error)")
    }
    return (failures, reach.unreachable)
  }

  @Test func everyShippedLayoutAndVariantRoundTrips() throws {
    #expect(Self.shipped.count > 500, "evdev.lst lists \(Self.shipped.count) layouts and variants")
    var failures: [String] = []
    var uncompiled: [String] = []
    var unreachable: [Reach.Why: Set<Unicode.Scalar>] = [:]
    for names in Self.shipped + Self.withOptions {
      guard let (failed, missing) = try? Self.walk(names) else {
        uncompiled.append("\(names)")
        continue
      }
      if !failed.isEmpty { failures.append("\(names): \(failed.joined(separator: "; "))") }
      for (character, why) in missing { unreachable[why, default: []].insert(character) }
    }
    #expect(failures.isEmpty, "\(failures.count) do not round-trip:\n\(failures.joined(separator: "\n"))")
    #expect(uncompiled == Self.withoutSymbols)
    for why in Set(unreachable.keys).union(Self.unreachable.keys) {
      let found = unreachable[why, default: []], expected = Self.unreachable[why, default: []]
      #expect(found == expected, "\(why): \(found.subtracting(expected)) more, \(expected.subtracting(found)) fewer")
    }
  }
}
