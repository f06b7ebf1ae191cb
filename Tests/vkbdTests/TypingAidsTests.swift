import Foundation
import KeyboardEngine
import Testing

@testable import VKBDDaemon

/// The typing aids (DESIGN 3.2–3.4), as scripts a person types and the text
/// an application shows, through the same path as `vkbd simulate`.
@Suite struct AutoCapitalizationTests {
  @Test(arguments: [
    // Rule 4 and 5: sentence ends.
    ("type \"hello. world\"", "hello. World"),
    ("type \"what? yes\"", "what? Yes"),
    ("type \"wow! ok\"", "wow! Ok"),
    ("type \"a; b, c: d\"", "a; b, c: d"),
    // Rule 2: a newline capitalizes; no space, no caps.
    ("type \"line\\nnext\"", "line\nNext"),
    ("type \"x.y\"", "x.y"),
    // Rules 1 and 3: quotes and brackets around the boundary.
    ("type \"he said \\\"stop.\\\" then\"", "he said \"stop.\" Then"),
    ("type \"end. (see\"", "end. (See"),
    ("type \"end. \\\"quoted\"", "end. \"Quoted"),
    ("type \"well.) so\"", "well.) So"),
    // Rule 5: abbreviations and non-letters before the period.
    ("type \"see e.g. this\"", "see e.g. this"),
    ("type \"the U.S. army\"", "the U.S. army"),
    ("type \"at 9 a.m. sharp\"", "at 9 a.m. sharp"),
    ("type \"step 3. next\"", "step 3. Next"),
    ("type \"wait... what\"", "wait... What"),
    ("type \"a . b\"", "a . b"),
    ("type \"plan b. go\"", "plan b. Go"),
    // Rule 6: the start after a reset is unknown.
    ("type hello", "hello"),
    ("type \"done. \"\nclick\ntype next", "done. next"),
    ("type \"done. \"\ntap left\ntap right\ntype next", "done. next"),
  ])
  func capitalizesAtSentenceStarts(script: String, shown: String) throws {
    #expect(try Simulation.text(script) == shown)
  }

  @Test func theOptionTreatsTheStartAfterAResetAsAFieldStart() throws {
    var configuration = EngineConfiguration()
    configuration.capitalizeAfterReset = true
    #expect(try Simulation.text("type hello", configuration: configuration) == "Hello")
    #expect(try Simulation.text("type \"the U.S. army\"", configuration: configuration) == "The U.S. army")
  }

  @Test func theUsersOwnShiftIsNeverInverted() throws {
    #expect(try Simulation.text("type \"ok. World\"") == "ok. World")
  }

  @Test func capsLockOnIsLeftAlone() throws {
    #expect(try Simulation.text("type \"ok. \"\ntap capslock\ntype abc") == "ok. ABC")
  }

  @Test func backspaceOverTheCapitalThenTheSameLetterStaysLowercase() throws {
    #expect(try Simulation.text("type \"hello. w\"\ntap backspace\ntype wow") == "hello. wow")
  }

  @Test func backspaceOverTheCapitalThenAnotherLetterIsCapitalized() throws {
    #expect(try Simulation.text("type \"hello. w\"\ntap backspace\ntype xyz") == "hello. Xyz")
  }

  @Test func theShiftWePressedIsReleasedBeforeTheNextKey() throws {
    let script = "type \"hi. \"\npress w\npress o\nrelease w\nrelease o"
    #expect(try Simulation.text(script) == "hi. Wo")
    let events = try Simulation.events(script)
    #expect(
      Array(events.suffix(6)) == ["KEY_LEFTSHIFT 1", "KEY_W 1", "KEY_LEFTSHIFT 0", "KEY_O 1", "KEY_W 0", "KEY_O 0"])
  }

  @Test func germanCapitalsUseTheGermanStroke() throws {
    #expect(try Simulation.text("type \"ja. über\"", layout: "de") == "ja. Über")
  }

  @Test func azertyCapitalsUseTheAzertyStroke() throws {
    #expect(try Simulation.text("type \"oui. alors\"", layout: "fr") == "oui. Alors")
    let events = try Simulation.events("type \"oui. a\"", layout: "fr")
    #expect(Array(events.suffix(4)) == ["KEY_LEFTSHIFT 1", "KEY_Q 1", "KEY_LEFTSHIFT 0", "KEY_Q 0"])
  }

  @Test func aCapitalTheLayoutCannotTypeWithoutALockIsLeftAsTyped() throws {
    // AZERTY has no É without Caps Lock: é stays é, and no Unicode input is used.
    #expect(try Simulation.text("type \"oui. été\"", layout: "fr") == "oui. été")
  }

  @Test func turnedOffItDoesNothing() throws {
    var configuration = EngineConfiguration()
    configuration.autocapitalize = false
    #expect(try Simulation.text("type \"hello. world\"", configuration: configuration) == "hello. world")
  }
}

@Suite struct AutoPeriodTests {
  @Test(arguments: [
    ("this  ", "this. "),
    ("this   ", "this.  "),
    ("a+  ", "a+. "),
    ("..  ", "..  "),
    (")  ", "). "),
    ("(  ", "(  "),
    ("42  ", "42. "),
    ("it's \"done\"  ", "it's \"done\". "),
    ("ok,  ", "ok,  "),
    ("so -  ", "so -  "),
  ])
  func theDesignsVectors(typed: String, shown: String) throws {
    let literal = typed.replacingOccurrences(of: "\"", with: "\\\"")
    #expect(try Simulation.text("type \"\(literal)\"") == shown)
  }

  @Test func aSymbolBeforeTheSpacesTakesAPeriod() throws {
    #expect(try Simulation.text("type \"20°  \"", layout: "de") == "20°. ")
  }

  @Test func backspaceRightAfterTheSwapLeavesASpace() throws {
    #expect(try Simulation.text("type \"this  \"\ntap backspace") == "this ")
  }

  @Test func afterTheUndoTheNextSpaceDoesNotConvertAgain() throws {
    #expect(try Simulation.text("type \"this  \"\ntap backspace\ntype \" \"") == "this  ")
  }

  @Test func theSecondSpaceMustComeWithinTheWindow() throws {
    #expect(try Simulation.text("type \"this \"\nwait 1100\ntype \" \"") == "this  ")
    #expect(try Simulation.text("type \"this \"\nwait 900\ntype \" word\"") == "this. Word")
  }

  @Test func theWindowFollowsTheConfig() throws {
    var configuration = EngineConfiguration()
    configuration.doubleSpaceTimeoutMilliseconds = 2000
    #expect(try Simulation.text("type \"this \"\nwait 1500\ntype \" \"", configuration: configuration) == "this. ")
  }

  @Test func anyOtherKeyClosesTheWindow() throws {
    #expect(try Simulation.text("type \"this \"\ntap right\ntype \" \"") == "this  ")
  }

  @Test func anAutoRepeatedSpaceNeverCounts() throws {
    // The desktop repeats the held Space; the engine sees only the kernel's repeats.
    #expect(try Simulation.text("type this\nhold space 400") == "this" + String(repeating: " ", count: 6))
  }

  @Test func theSwapCapitalizesTheNextWord() throws {
    #expect(try Simulation.text("type \"hello  world\"") == "hello. World")
  }

  @Test func theSwapReleasesAndRestoresAShiftTheUserHolds() throws {
    let script = "type hi\npress leftshift\ntap space\ntap space\nrelease leftshift"
    #expect(try Simulation.text(script) == "hi. ")
    #expect(try Simulation.events(script).last == "KEY_LEFTSHIFT 0")
  }

  @Test func turnedOffItDoesNothing() throws {
    var configuration = EngineConfiguration()
    configuration.doubleSpacePeriod = false
    #expect(try Simulation.text("type \"this  \"", configuration: configuration) == "this  ")
  }
}

@Suite struct BackspaceRepeatTests {
  static let paragraph = "the quick brown fox jumps over the lazy dog while five boxing wizards jump quickly"

  @Test func aTapDeletesOneCharacterAndNeverHoldsBackspace() throws {
    let events = try Simulation.events("type abc\npress backspace\nwait 200\nrelease backspace")
    #expect(events.suffix(2) == ["KEY_BACKSPACE 1", "KEY_BACKSPACE 0"])
    #expect(try Simulation.text("type abc\npress backspace\nwait 200\nrelease backspace") == "ab")
  }

  @Test func holdingRepeatsCharactersAfterTheDelay() throws {
    // One at the press, then at 400, 450, … 950 ms: 1 + 12.
    let shown = try Simulation.text("type \"\(Self.paragraph)\"\nhold backspace 1000")
    #expect(shown == String(Self.paragraph.dropLast(13)))
  }

  @Test func afterTwentyCharactersItDeletesWholeWords() throws {
    // 1 + 20 characters by 1350 ms, then a word at 1600, 1850, 2100, 2350, 2600, 2850.
    let shown = try Simulation.text("type \"\(Self.paragraph)\"\nhold backspace 3000")
    // 21 characters take "quickly", "jump", "wizards" and the g of "boxing";
    // then "boxin", "five ", "while ", "dog ", "lazy ", "the ".
    #expect(shown == "the quick brown fox jumps over ")
  }

  @Test func theOutputNeverHoldsBackspace() throws {
    let events = try Simulation.events("type \"\(Self.paragraph)\"\nhold backspace 3000")
    let backspaces = events.filter { $0.hasPrefix("KEY_BACKSPACE") }
    #expect(backspaces.count > 60)
    for pair in stride(from: 0, to: backspaces.count, by: 2) {
      #expect(backspaces[pair] == "KEY_BACKSPACE 1" && backspaces[pair + 1] == "KEY_BACKSPACE 0")
    }
  }

  @Test func withoutAKnownWordItFallsBackToCharacters() throws {
    var configuration = EngineConfiguration()
    configuration.backspace.wordsAfter = 2
    // After the click the model knows only "fgh". The press deletes h; 400 and
    // 450 ms delete g and f (two characters); at 700 ms the model is empty, so
    // characters again every 50 ms: 700, 750, 800 take z, y and x.
    let script = "type \"abc xyz\"\nclick\ntype fgh\nhold backspace 820"
    #expect(try Simulation.text(script, configuration: configuration) == "abc ")
  }

  @Test func releaseStopsAtOnce() throws {
    #expect(try Simulation.text("type abcdef\npress backspace\nwait 449\nrelease backspace\nwait 2000") == "abcd")
  }

  @Test func anotherKeyStopsTheRepeat() throws {
    let shown = try Simulation.text("type abcdefgh\npress backspace\nwait 449\ntype x\nwait 1000\nrelease backspace")
    #expect(shown == "abcdefx")
  }

  @Test func aResetStopsTheRepeat() throws {
    let shown = try Simulation.text("type abcdefgh\npress backspace\nwait 449\nclick\nwait 1000\nrelease backspace")
    #expect(shown == "abcdef")
  }

  @Test func theTimingsFollowTheConfig() throws {
    var configuration = EngineConfiguration()
    configuration.backspace.repeatDelayMilliseconds = 100
    configuration.backspace.repeatIntervalMilliseconds = 100
    // Press, then 100, 200, … 900 ms: 1 + 9.
    let shown = try Simulation.text("type \"\(Self.paragraph)\"\nhold backspace 950", configuration: configuration)
    #expect(shown == String(Self.paragraph.dropLast(10)))
  }

  @Test func turnedOffBackspacePassesThroughAndTheDesktopRepeatsIt() throws {
    var configuration = EngineConfiguration()
    configuration.backspace.accelerate = false
    let events = try Simulation.events("type abc\nhold backspace 400", configuration: configuration)
    #expect(events.suffix(2) == ["KEY_BACKSPACE 1", "KEY_BACKSPACE 0"])
    // The desktop repeats the held key: press, 250, 283, 316, 349, 382 ms.
    let shown = try Simulation.text(
      "type \"\(Self.paragraph)\"\nhold backspace 400", configuration: configuration)
    #expect(shown == String(Self.paragraph.dropLast(6)))
  }
}
