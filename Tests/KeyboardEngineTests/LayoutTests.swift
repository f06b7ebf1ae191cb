import CEvdev
import Testing

@testable import KeyboardEngine

@Suite struct LayoutTests {
  /// Replays a typing on a fresh decoder, switching group as a typist would,
  /// and returns the edits the strokes made.
  func edits(typing: Typing, on layout: Layout) -> [TextEdit] {
    let decoder = KeystrokeDecoder(layout: layout)
    var edits: [TextEdit] = []
    for stroke in typing.strokes {
      while decoder.group != stroke.group, let chord = layout.nextGroupChord {
        for key in chord { _ = decoder.feed(code: key, value: .down) }
        for key in chord.reversed() { _ = decoder.feed(code: key, value: .up) }
      }
      for modifier in stroke.modifiers { _ = decoder.feed(code: modifier, value: .down) }
      edits.append(decoder.feed(code: stroke.key, value: .down))
      _ = decoder.feed(code: stroke.key, value: .up)
      for modifier in stroke.modifiers.reversed() { _ = decoder.feed(code: modifier, value: .up) }
    }
    return edits.filter { $0 != .none }
  }

  // hu, mt, bg, fr(bepo) and us(colemak_dh_iso) have a letter on the ISO
  // key, which comes after Caps Lock in code order; mao's AltGr is Compose
  // when Shift is held first; Neo's third and fourth levels are held on
  // keys where Caps Lock and the ISO key usually are.
  @Test(arguments: [
    "us", "de", "fr", "ch(fr)", "us(dvorak)", "us,ru", "hu", "mt", "bg", "fr(bepo)", "us(colemak_dh_iso)", "mao",
    "de(neo)",
  ])
  func everyTypeableCharacterRoundTrips(layoutName: String) {
    let layout = Layouts.named(layoutName)
    let characters = layout.typeableCharacters()
    #expect(characters.count > 90, "\(layoutName) types only \(characters.count) characters")
    for character in characters {
      let typing = layout.typing(of: character)!
      #expect(edits(typing: typing, on: layout) == [.insert(character)], "\(layoutName): \(character)")
    }
  }

  @Test(arguments: ["us", "de", "fr", "ch(fr)", "us(dvorak)", "us,ru", "de(neo)"])
  func noStrokeTogglesALockOrUsesAShortcutModifier(layoutName: String) {
    let layout = Layouts.named(layoutName)
    let forbidden: Set<UInt16> = [
      KeyCode.leftCtrl, KeyCode.rightCtrl, KeyCode.leftMeta, KeyCode.rightMeta, KeyCode.leftAlt,
    ]
    for character in layout.typeableCharacters() {
      // Whether a key locks is the keymap's to say: Neo's Num Lock key types
      // characters on its upper levels.
      let state = XKBState(keymap: layout.keymap)
      for stroke in layout.typing(of: character)!.strokes {
        #expect(!stroke.modifiers.contains(where: forbidden.contains), "\(layoutName): \(character)")
        #expect(!forbidden.contains(stroke.key), "\(layoutName): \(character)")
        for modifier in stroke.modifiers { state.update(modifier, down: true) }
        state.update(stroke.key, down: true)
        state.update(stroke.key, down: false)
        for modifier in stroke.modifiers.reversed() { state.update(modifier, down: false) }
        #expect(state.lockedModifiers == 0 && state.effectiveGroup == 0, "\(layoutName): \(character) locks")
      }
    }
  }

  @Test(arguments: [("de", "S"), ("fr", "S"), ("ch(fr)", "S"), ("de", "É"), ("ch(fr)", "É")])
  func capitalsAreTypedWithShiftOrADeadKeyNeverCapsLock(layoutName: String, character: Unicode.Scalar) throws {
    let layout = Layouts.named(layoutName)
    let typing = try #require(layout.typing(of: character))
    #expect(edits(typing: typing, on: layout) == [.insert(character)])
  }

  @Test func neosLevelsAreTypedWithItsOwnLevelKeys() throws {
    let neo = Layouts.named("de(neo)")
    // "!" is on Neo's third level, held with the key right of Ä (Mod3).
    let bang = try #require(neo.typing(of: "!"))
    #expect(bang.stroke.modifiers == ModifierKeys([UInt16(KEY_BACKSLASH)]))
    #expect(neo.typeableCharacters().count > 600)
  }

  @Test func lettersLandOnTheirLayoutsKeys() throws {
    // AZERTY's a is on the QWERTY q key; Dvorak's s is on the QWERTY semicolon key; German z is on y.
    #expect(Layouts.fr.typing(of: "a")?.stroke.key == UInt16(KEY_Q))
    #expect(Layouts.dvorak.typing(of: "s")?.stroke.key == UInt16(KEY_SEMICOLON))
    #expect(Layouts.de.typing(of: "z")?.stroke.key == UInt16(KEY_Y))
    #expect(
      Layouts.de.typing(of: "@")?.stroke == Stroke(key: UInt16(KEY_Q), modifiers: ModifierKeys([KeyCode.rightAlt])))
  }

  @Test func aCharacterOnlyADeadKeyReachesIsTypedAsTheSequence() throws {
    let typing = try #require(Layouts.de.typing(of: "ê"))
    #expect(typing.deadKey?.key == UInt16(KEY_GRAVE))  // de: dead_circumflex left of 1
    #expect(typing.stroke.key == UInt16(KEY_E))
    #expect(edits(typing: typing, on: Layouts.de) == [.insert("ê")])
  }

  @Test func aDeadKeyThenALetterComposes() {
    let decoder = KeystrokeDecoder(layout: Layouts.de)
    #expect(decoder.feed(code: UInt16(KEY_GRAVE), value: .down) == .none)
    _ = decoder.feed(code: UInt16(KEY_GRAVE), value: .up)
    #expect(decoder.feed(code: UInt16(KEY_E), value: .down) == .insert("ê"))
  }

  @Test func theComposeTableIsLoadedOnlyWhenAKeyStartsASequence() throws {
    #expect(Layouts.us.keymap.composeTable == nil)
    #expect(Layouts.de.keymap.composeTable != nil)  // its dead keys
    let composeKey = try Layout(names: LayoutNames(layout: "us", options: "compose:ralt"))
    #expect(composeKey.keymap.composeTable != nil)  // Multi_key on right Alt
    let decoder = KeystrokeDecoder(layout: composeKey)
    for code in [KEY_RIGHTALT, KEY_APOSTROPHE] {
      _ = decoder.feed(code: UInt16(code), value: .down)
      _ = decoder.feed(code: UInt16(code), value: .up)
    }
    #expect(decoder.feed(code: UInt16(KEY_E), value: .down) == .insert("é"))
  }

  @Test func secondGroupCharactersNeedTheGroupSwitch() throws {
    let typing = try #require(Layouts.usRu.typing(of: "ж"))
    #expect(typing.stroke.group == 1)
    #expect(Layouts.usRu.nextGroupChord == [KeyCode.leftShift, KeyCode.leftAlt])
    #expect(Layouts.usRu.typing(of: "a")?.stroke.group == 0)
  }

  @Test func withoutAGroupSwitchOnlyTheFirstGroupIsTypeable() throws {
    let layout = try Layout(names: LayoutNames(layout: "us,ru"))
    #expect(layout.nextGroupChord == nil)
    #expect(layout.typing(of: "ж") == nil)
    #expect(layout.typing(of: "a") != nil)
  }

  @Test func anUnknownLayoutIsAnError() {
    #expect(throws: LayoutError.self) { try Layout(names: LayoutNames(layout: "no-such-layout")) }
  }

  @Test(arguments: [
    ("de", LayoutNames(layout: "de")),
    ("us(dvorak)", LayoutNames(layout: "us", variant: "dvorak")),
    ("us,ru", LayoutNames(layout: "us,ru")),
    ("de(nodeadkeys),fr", LayoutNames(layout: "de,fr", variant: "nodeadkeys,")),
  ])
  func layoutNamesParse(text: String, names: LayoutNames) {
    #expect(LayoutNames(parsing: text) == names)
  }

  @Test(arguments: ["", "(dvorak)", "us(dvorak", "us;rm -rf", "us,,"])
  func malformedLayoutNamesAreRejected(text: String) {
    #expect(LayoutNames(parsing: text) == nil)
  }
}
