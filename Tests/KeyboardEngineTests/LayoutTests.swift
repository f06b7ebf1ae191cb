import CKeyboard
import TestSupport
import Testing

@testable import KeyboardEngine
import XKBFiles

@Suite struct LayoutTests {
  /// The edits a typing makes on a fresh decoder.
  func edits(typing: Typing, on layout: Layout, numLock: Bool = false) -> [TextEdit] {
    replayedEdits(typing, on: layout, decoder: KeystrokeDecoder(layout: layout), numLock: numLock)
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

  @Test func theKeypadTypesByNumLockAsItsLEDShows() {
    let decoder = KeystrokeDecoder(layout: Layouts.us)
    decoder.indicate(.numLock, on: true, down: [])
    #expect(decoder.isNumLocked)
    #expect(decoder.feed(code: UInt16(KEY_KP1), value: .down) == .insert("1"))
    _ = decoder.feed(code: UInt16(KEY_KP1), value: .up)
    decoder.indicate(.numLock, on: false, down: [])
    #expect(decoder.feed(code: UInt16(KEY_KP1), value: .down) == .move(.end))
  }

  @Test func neosCharactersAreTypedForTheNumLockStateInEffect() throws {
    // Num Lock chooses levels of Neo's main keys too: some characters take
    // other strokes with it on, and the strokes for it off type something
    // else then.
    let neo = Layouts.named("de(neo)")
    let differing = neo.typeableCharacters().filter { neo.typing(of: $0, numLock: true) != neo.typing(of: $0) }
    #expect(!differing.isEmpty)
    var wrongInTheOtherState = 0
    for character in differing {
      if let on = neo.typing(of: character, numLock: true) {
        #expect(edits(typing: on, on: neo, numLock: true) == [.insert(character)], "\(character)")
      }
      let off = try #require(neo.typing(of: character))
      #expect(edits(typing: off, on: neo) == [.insert(character)], "\(character)")
      if edits(typing: off, on: neo, numLock: true) != [.insert(character)] { wrongInTheOtherState += 1 }
    }
    #expect(wrongInTheOtherState > 0)
    // Auto-capitalization's capitals, in either state.
    for numLock in [false, true] {
      for letter in "aäbcsxyz".unicodeScalars {
        let capital = try #require(neo.capitalStroke(of: letter, numLock: numLock), "\(letter)")
        let upper = letter.properties.uppercaseMapping.unicodeScalars.first!
        #expect(edits(typing: Typing(stroke: capital), on: neo, numLock: numLock) == [.insert(upper)], "\(letter)")
      }
    }
  }

  @Test func aCharacterOnlyTheComposeKeyReachesIsTypedWithIt() throws {
    let layout = try Layout(names: LayoutNames(layout: "us", options: "compose:ralt"))
    let copyright = try #require(layout.typing(of: "©"))
    #expect(copyright.prefix.first?.key == KeyCode.rightAlt)
    #expect(copyright.strokes.count == 3)
    #expect(edits(typing: copyright, on: layout) == [.insert("©")])
    // A single stroke still wins where there is one.
    #expect(layout.typing(of: "c")?.prefix == [])
    let characters = layout.typeableCharacters()
    #expect(characters.count > 700, "\(characters.count) characters")
    for character in characters {
      let typing = try #require(layout.typing(of: character))
      #expect(edits(typing: typing, on: layout) == [.insert(character)], "\(character)")
    }
  }

  @Test func levelsWithoutAnAltGrAreTypedWithTheLevel3KeyAndTheComposeKeyReachesTheRest() throws {
    // us(dvorak) has a third level but no key for it on a PC keyboard, and
    // with compose:ralt right Alt is Compose: the keymap's own Level 3 key
    // (KEY 84, <LVL3>, which only a virtual keyboard has) reaches the level.
    let layout = try Layout(names: LayoutNames(layout: "us", variant: "dvorak", options: "compose:ralt"))
    let brokenBar = try #require(layout.typing(of: "¦"))
    #expect(brokenBar.prefix == [] && brokenBar.stroke.modifiers.contains(84), "\(brokenBar)")
    let copyright = try #require(layout.typing(of: "©"))
    #expect(copyright.prefix.first == Stroke(key: KeyCode.rightAlt), "\(copyright)")
    for (character, typing) in [("¦", brokenBar), ("©", copyright)] as [(Unicode.Scalar, Typing)] {
      #expect(edits(typing: typing, on: layout) == [.insert(character)])
    }
  }

  @Test func theLocalesComposeFileDecidesWhatDeadKeysMake() throws {
    // us(intl): a dead acute and c make ć in en_US.UTF-8's Compose file,
    // ç in pt_BR.UTF-8's; the strokes follow, and every character of each
    // round-trips.
    for (locale, acuteC) in [("", "ć"), ("pt_BR.UTF-8", "ç")] as [(String, Unicode.Scalar)] {
      let layout = try Layout(names: LayoutNames(layout: "us", variant: "intl", locale: locale))
      let decoder = KeystrokeDecoder(layout: layout)
      _ = decoder.feed(code: UInt16(KEY_APOSTROPHE), value: .down)
      _ = decoder.feed(code: UInt16(KEY_APOSTROPHE), value: .up)
      #expect(decoder.feed(code: UInt16(KEY_C), value: .down) == .insert(acuteC), "\(locale)")
      for character in layout.typeableCharacters() {
        let typing = try #require(layout.typing(of: character))
        #expect(edits(typing: typing, on: layout) == [.insert(character)], "\(locale): \(character)")
      }
    }
    // A locale without a Compose file of its own, or none known: en_US.UTF-8's.
    let unknown = try Layout(names: LayoutNames(layout: "us", variant: "intl", locale: "xx_XX.UTF-8"))
    #expect(unknown.typing(of: "ć")?.prefix.count == 1)
  }

  @Test func aKeysymTheComposeFileTurnsIntoTwoLettersIsNoStrokeForItself() throws {
    // ara's key B types the keysym of the lam-alef ligature; applications
    // make it the two letters lam and alef, which the decoder cannot name.
    let arabic = Layouts.named("ara")
    #expect(arabic.typing(of: "\u{FEFB}") == nil)
    #expect(arabic.typing(of: "\u{0644}") != nil)  // lam, on its own key
    let decoder = KeystrokeDecoder(layout: arabic)
    #expect(decoder.feed(code: UInt16(KEY_B), value: .down) == .unknown)
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
    #expect(typing.prefix.map(\.key) == [UInt16(KEY_GRAVE)])  // de: dead_circumflex left of 1
    #expect(typing.stroke.key == UInt16(KEY_E))
    #expect(edits(typing: typing, on: Layouts.de) == [.insert("ê")])
  }

  @Test func aDeadKeyThenALetterComposes() {
    let decoder = KeystrokeDecoder(layout: Layouts.de)
    #expect(decoder.feed(code: UInt16(KEY_GRAVE), value: .down) == .none)
    _ = decoder.feed(code: UInt16(KEY_GRAVE), value: .up)
    #expect(decoder.feed(code: UInt16(KEY_E), value: .down) == .insert("ê"))
  }

  @Test func theComposeTableIsTakenOnlyWhenAKeysymIsInIt() throws {
    #expect(Layouts.us.keymap.composeTable == nil)
    #expect(Layouts.de.keymap.composeTable != nil)  // its dead keys
    #expect(Layouts.named("ara").keymap.composeTable != nil)  // the lam-alef keysyms
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
