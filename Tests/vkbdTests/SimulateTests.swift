import Foundation
import KeyboardEngine
import Testing

@testable import VKBDDaemon

@Suite struct SimulateTests {
  @Test func withoutAidsTheFieldShowsWhatWasTyped() throws {
    #expect(try Simulation.text("type Grüße, Straße!", layout: "de", configuration: .allOff) == "Grüße, Straße!")
  }

  @Test(arguments: [
    ("us", "The quick brown fox jumps over the lazy dog 0123456789 !@#$%^&*()"),
    ("de", "Äpfel über Öl: 100€ @ 20°, ß ist \"ß\" {x} [y] \\ | < > ~"),
    ("fr", "Où est l'élève ? À côté, près du château : 42 € ; ça va !"),
    ("us(dvorak)", "Dvorak types the same text: hello, world!"),
    ("ch(fr)", "ça débute à Genève, près du lac. ê"),
  ])
  func scriptsTypeExactlyTheirTextOnEachLayout(layout: String, text: String) throws {
    let script =
      "type \"" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"") + "\""
    #expect(try Simulation.text(script, layout: layout, configuration: .allOff) == text)
  }

  @Test func deadKeysComposeInTheField() throws {
    // de: ^ is dead_circumflex on the key left of 1; the script types ê as ^ then e.
    #expect(try Simulation.text("tap grave\ntap e\ntype ê", layout: "de", configuration: .allOff) == "êê")
    #expect(
      try Simulation.events("type ê", layout: "de", configuration: .allOff)
        == ["KEY_GRAVE 1", "KEY_GRAVE 0", "KEY_E 1", "KEY_E 0"])
  }

  @Test func aSecondGroupIsReachedThroughItsSwitch() throws {
    let layout = Simulation.layout("us,ru", options: "grp:alt_shift_toggle")
    let result = try SimulationResult(script: "type hi привет ok", layout: layout, configuration: .allOff)
    #expect(result.text == "hi привет ok")
  }

  @Test func theFieldEditsLikeALineEditor() throws {
    let script = """
      type hello world
      tap home
      type >\u{20}
      tap end
      tap left
      tap left
      tap delete
      tap backspace
      type X
      """
    #expect(try Simulation.text(script, configuration: .allOff) == "> hello woXd")
  }

  @Test func enterTypesANewlineAndHomeStaysOnItsLine() throws {
    #expect(try Simulation.text("type \"ab\\ncd\"\ntap home\ntype >", configuration: .allOff) == "ab\n>cd")
  }

  @Test func theDesktopRepeatsAHeldKey() throws {
    // 1000 ms held: the press, then repeats at 250 ms and every 33 ms: 1 + 23.
    #expect(try Simulation.text("hold a 1000", configuration: .allOff) == String(repeating: "a", count: 24))
  }

  @Test func eventsArePrintedWithTheirKernelNames() throws {
    #expect(
      try Simulation.events("type A", configuration: .allOff)
        == ["KEY_LEFTSHIFT 1", "KEY_A 1", "KEY_A 0", "KEY_LEFTSHIFT 0"])
  }

  @Test(arguments: [
    ("type hi\nfly away", 2, "unknown command 'fly'"),
    ("tap leftctrl+nokey", 1, "unknown key name 'nokey'"),
    ("# comment\n\nwait soon", 3, "'soon' is not a time"),
    ("hold a", 1, "hold takes a key name and a time"),
    ("type \"unterminated", 1, "missing closing quote"),
    ("type €", 1, "has no key for U+20AC"),
  ])
  func aBadLineNamesItsNumber(script: String, line: Int, message: String) {
    do {
      _ = try Simulation.text(script, configuration: .allOff)
      Issue.record("script was accepted")
    } catch let error as ScriptError {
      #expect(error.line == line)
      #expect(error.message.contains(message), "\(error.message)")
    } catch {
      Issue.record("unexpected \(error)")
    }
  }

  @Test func theBinaryPrintsTheTextWithNoNewlineAdded() throws {
    let result = try VKBDBinary.run(["simulate", "--layout", "de"], input: "type Grüße, Straße!\n")
    #expect(result.status == 0)
    #expect(result.output == "Grüße, Straße!")
  }

  // The layouts whose ISO key, level keys and Compose keys issue 18 was
  // about, typed by the binary with its default config (aids on).
  @Test(arguments: [
    ("hu", "Árvíztűrő tükörfúrógép, í"), ("mt", "Ħażż, żebbuġ"), ("bg", "Ѝ, ѝ"),
    ("fr(bepo)", "Ça, ê « œ » ù"), ("de(neo)", "Neo: ſ ẞ → ½ ¿ „x“"), ("mao", "Āe, ō ū"),
    ("us(colemak_dh_iso)", "Zebra, zoo"),
  ])
  func theBinaryTypesEveryLevelOfTheLayout(layout: String, text: String) throws {
    let result = try VKBDBinary.run(["simulate", "--layout", layout], input: "type \(text)\n")
    #expect(result.status == 0 && result.output == text, "\(result)")
  }

  @Test func theBinaryExits65OnABadScriptLine() throws {
    let result = try VKBDBinary.run(["simulate", "--layout", "us"], input: "type ok\nbogus\n")
    #expect(result.status == 65)
    #expect(result.error.contains("script line 2"))
  }

  @Test func theBinaryExits64OnABadLayoutName() throws {
    let result = try VKBDBinary.run(["simulate", "--layout", "us(dvorak"], input: "")
    #expect(result.status == 64)
  }
}
