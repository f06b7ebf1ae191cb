import CEvdev
import Foundation
import KeyboardEngine
import Testing

@testable import VKBDDaemon
import XKBFiles

/// Snippet expansion (DESIGN 3.5), as scripts a person types and the text an
/// application shows, through the same path as `vkbd simulate`.
@Suite struct SnippetTests {
  /// A config with the typing aids off (so only snippets act) and `matches`.
  static func config(_ matches: String, extra: String = "") -> String {
    """
    autocapitalize: false
    double_space_period: false
    \(extra)
    matches:
    \(matches)
    """
  }

  /// A config with one snippet.
  static func snippet(_ trigger: String, _ replace: String, extra: String = "") -> String {
    config("  - trigger: \"\(trigger)\"\n    replace: \"\(replace)\"", extra: extra)
  }

  static let hello = snippet(":hi", "hello")

  @Test(arguments: [
    ("type \"say :hi now\"", "say hello now"),
    ("type \":hi:hi\"", "hellohello"),
    ("type \":h\"\ntap backspace\ntype \"hi\"", "hello"),  // the model is ":hi" again
    ("type \":h\"\nclick\ntype i", ":hi"),  // after a click what came before is unknown
  ])
  func expandsOnTheTriggersLastKey(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.hello).text == shown)
  }

  @Test func theTriggersLastKeyAndItsReleaseAreSwallowed() throws {
    let events = try Simulation.run("type :hi", config: Self.hello).transcript.map(\.key)
    // ":" is Shift+; then "h"; the "i" never goes out, two Backspaces do.
    let keys = events.filter { $0.value == .down }.map { KeyNames.name(of: $0.code) }
    #expect(
      keys == [
        "KEY_LEFTSHIFT", "KEY_SEMICOLON", "KEY_H", "KEY_BACKSPACE", "KEY_BACKSPACE",
        "KEY_H", "KEY_E", "KEY_L", "KEY_L", "KEY_O",
      ])
    #expect(!events.contains { $0.code == UInt16(KEY_I) })
  }

  @Test func aTriggerTypedWithShiftHeldOnItsLastKeyExpandsInLowercase() throws {
    let config = Self.snippet(":)", "smile")
    let script = "type :\npress leftshift\ntap 0\ntype X\nrelease leftshift\ntype \" y\""
    let result = try Simulation.run(script, config: config)
    #expect(result.text == "smileX y")
    let downs = result.transcript.map(\.key)
    // ":" is Shift+;. Then the held Shift went up before the replacement and
    // down again after it, until the user let go.
    let shiftChanges = downs.filter { $0.code == UInt16(KEY_LEFTSHIFT) }.map(\.value)
    #expect(shiftChanges == [KeyValue.down, .up, .down, .up, .down, .up])
  }

  @Test func typesUmlautsWithTheLayoutsOwnKey() throws {
    let config = Self.snippet(";ue", "über")
    let result = try Simulation.run("type ;ue", layout: "de", config: config)
    #expect(result.text == "über")
    #expect(!result.transcript.contains { $0.key.code == UInt16(KEY_LEFTCTRL) })
  }

  @Test func typesWhatTheLayoutLacksWithCtrlShiftU() throws {
    let config = Self.snippet(";ue", "über €")
    let result = try Simulation.run("type ;ue", layout: "us", config: config)
    #expect(result.text == "über €")
    #expect(result.transcript.contains { $0.key.code == UInt16(KEY_LEFTCTRL) })
  }

  @Test func refusesWhatTheLayoutLacksWithoutAFallback() throws {
    let config = Self.snippet(";ue", "über", extra: "unicode_input: none")
    let result = try Simulation.run("type \";ue x\"", layout: "us", config: config)
    #expect(result.text == ";ue x")  // nothing deleted, the trigger stays
  }

  @Test func typesNewlinesAsEnterOrShiftEnter() throws {
    let matches = """
        - trigger: ";two"
          replace: "a\\nb"
      """
    let enter = try Simulation.run("type ;two", config: Self.config(matches))
    #expect(enter.text == "a\nb")
    let shiftEnter = try Simulation.run("type ;two", config: Self.config(matches, extra: "newline: shift-enter"))
    #expect(shiftEnter.text == "a\nb")
    let keys = shiftEnter.transcript.map { "\(KeyNames.name(of: $0.key.code)) \($0.key.value.rawValue)" }
    let enterDown = try #require(keys.firstIndex(of: "KEY_ENTER 1"))
    #expect(keys[enterDown - 1] == "KEY_LEFTSHIFT 1")
  }

  @Test func typesAFiveThousandCharacterReplacementInBursts() throws {
    let long = String((0..<5000).map { i in Array("abcdefghij ,.XYZ")[i % 16] })
    let config = Self.snippet(";long", long)
    let result = try Simulation.run("type ;long", config: config)
    #expect(result.text == long)
    // No burst is bigger than the configured key events, and bursts are at
    // least the gap apart.
    let pacing = ExpansionConfiguration()
    var perInstant: [Int64: Int] = [:]
    for (time, _) in result.transcript { perInstant[time.microseconds, default: 0] += 1 }
    #expect(perInstant.values.max()! <= pacing.burstKeys)
    let instants = perInstant.keys.sorted()
    #expect(zip(instants, instants.dropFirst()).allSatisfy { $1 - $0 >= pacing.burstGapMilliseconds * 1000 })
  }

  @Test func anExpansionTriggeredWhileAnotherGoesOutWaitsItsGapAfterTheLastBurst() throws {
    // The second trigger is typed while the first expansion goes out: its
    // keys wait, and its first burst must not go out in the turn the first
    // one's last burst does (both at once overflow a reader's buffer).
    // 156 characters and a Backspace: 314 key events, the last burst 14.
    let long = String(repeating: "lorem ipsum ", count: 13)
    let result = try Simulation.run("type \";l;l\"", config: Self.snippet(";l", long))
    #expect(result.text == long + long)
    let pacing = ExpansionConfiguration()
    var perInstant: [Int64: Int] = [:]
    for (time, _) in result.transcript { perInstant[time.microseconds, default: 0] += 1 }
    // A burst, and at most the second trigger's `;` passing through.
    #expect(perInstant.values.max()! <= pacing.burstKeys + 2, "\(perInstant.values.max()!) key events at once")
    let instants = perInstant.keys.sorted()
    #expect(zip(instants, instants.dropFirst()).allSatisfy { $1 - $0 >= pacing.burstGapMilliseconds * 1000 })
  }

  @Test func keysTypedDuringAnExpansionComeAfterItInOrder() throws {
    let long = String(repeating: "lorem ipsum ", count: 60)
    let config = Self.snippet(";l", long)
    let result = try Simulation.run("type \";l and more\"", config: config)
    #expect(result.text == long + " and more")
    // The expansion was still going out when " and more" was typed.
    let lastOwnKey = try #require(result.transcript.last { $0.key.code == UInt16(KEY_P) })
    #expect(lastOwnKey.time > Instant.milliseconds(3 * 60))
  }

  @Test(arguments: [
    ("type :hi\ntap backspace", ":hi"),
    ("type :hi\ntap backspace\ntype \" x\"", ":hi x"),
    ("type :hi\ntype x\ntap backspace", "hello"),  // not the very next key: a plain Backspace
    ("type \"x :hi\"\ntap backspace\ntap backspace", "x :h"),
  ])
  func backspaceRightAfterAnExpansionUndoesIt(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.hello).text == shown)
  }

  @Test func undoCanBeTurnedOff() throws {
    let config = Self.snippet(":hi", "hello", extra: "undo_backspace: false")
    #expect(try Simulation.run("type :hi\ntap backspace", config: config).text == "hell")
  }

  @Test func movesTheCursorToTheHint() throws {
    let config = Self.snippet(";b", "<b>$|$</b>")
    #expect(try Simulation.run("type \";bbold\"", config: config).text == "<b>bold</b>")
    #expect(try Simulation.run("type \";b\"\ntap backspace", config: config).text == ";b")
  }

  static let words = config(
    """
      - trigger: "btw"
        replace: "by the way"
        word: true
      - trigger: "ly"
        replace: "LEFT"
        left_word: true
      - trigger: "ry"
        replace: "RIGHT"
        right_word: true
    """)

  @Test(arguments: [
    ("type \"btw \"", "by the way "),
    ("type \"btw, ok\"", "by the way, ok"),
    ("type \"abtw \"", "abtw "),
    ("type \"btwx \"", "btwx "),
    ("type \"(btw)\"", "(by the way)"),
    ("type \"so btw\\n\"", "so by the way\n"),
    ("type \"ly xly\"", "LEFT xly"),
    ("type \"ry xry.\"", "RIGHT xRIGHT."),
    ("type \"rya \"", "rya "),
    ("type \"btw \"\ntap backspace", "btw "),
  ])
  func respectsWordBoundaries(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.words).text == shown)
  }

  static let cases = config(
    """
      - trigger: "alh"
        replace: "although it is"
        propagate_case: true
      - trigger: ";cap"
        replace: "by the way"
        propagate_case: true
        uppercase_style: capitalize
      - trigger: ";words"
        replace: "by the way"
        propagate_case: true
        uppercase_style: capitalize_words
    """)

  @Test(arguments: [
    ("type alh", "although it is"),
    ("type Alh", "Although it is"),
    ("type ALH", "ALTHOUGH IT IS"),
    ("type ;Cap", "By the way"),
    ("type ;CAP", "By the way"),
    ("type ;WORDS", "By The Way"),
    ("type ;words", "by the way"),
  ])
  func propagatesTheTriggersCase(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.cases).text == shown)
  }

  @Test func aTriggerAutoCapitalizedAtASentenceStartStillFiresAndCapitalizes() throws {
    let config = """
      matches:
        - trigger: "btw"
          replace: "by the way"
          word: true
      """
    #expect(try Simulation.run("type \"hi. btw ok\"", config: config).text == "hi. By the way ok")
    // A replacement that starts with a capital stays as it is.
    let capital = "matches:\n  - trigger: qqg\n    replace: Grüße\n"
    #expect(try Simulation.run("type \"x\\nqqg\"", layout: "de", config: capital).text == "x\nGrüße")
  }

  @Test func switchesGroupsForCharactersOnAnotherOne() throws {
    let config = Self.config(
      """
        - trigger: ";ru"
          replace: "привет"
      """,
      extra: """
        layout:
          layout: us,ru
          options: grp:alt_shift_toggle
        """)
    let configuration = try ConfigLoader.parse(config, file: "test.yaml")
    let layout = try Layout(names: configuration.resolvedLayout)
    let result = try SimulationResult(
      script: "type \";ru x\"", layout: layout, configuration: configuration.engine,
      snippets: SnippetMatcher(configuration.snippets))
    #expect(result.text == "привет x")  // and back on the first group for " x"
  }

  @Test func capsLockDoesNotChangeTheReplacement() throws {
    let config = Self.snippet(";1", "abc")
    #expect(try Simulation.run("tap capslock\ntype \";1x\"", config: config).text == "abcX")
  }

  @Test func theStarterSnippetsTypeTheDateTimeAndShrug() throws {
    let configuration = ConfigLoader.embeddedDefault()
    let result = try SimulationResult(
      script: "type \";date ;time ;shrug\"", layout: Simulation.layout("us"), configuration: configuration.engine,
      snippets: SnippetMatcher(configuration.snippets))
    let pattern = /\d{4}-\d{2}-\d{2} \d{2}:\d{2} ¯\\_\(ツ\)_\/¯/
    #expect(result.text.wholeMatch(of: pattern) != nil, "\(result.text)")
  }

  @Test func simulateShowsTodaysDate() throws {
    let before = Self.today()
    let run = try VKBDBinary.run(["simulate"], input: "type \"see you ;date\"\n")
    #expect(run.status == 0)
    #expect(run.output == "see you \(before)" || run.output == "see you \(Self.today())")
  }

  static func today() -> String {
    var now = time(nil)
    var parts = tm()
    localtime_r(&now, &parts)
    return String(format: "%04d-%02d-%02d", parts.tm_year + 1900, parts.tm_mon + 1, parts.tm_mday)
  }
}

@Suite struct LongerTriggerTests {
  static let config = SnippetTests.config(
    """
      - trigger: "my"
        replace: "MY"
      - trigger: "myself"
        replace: "ME MYSELF"
      - trigger: "ad"
        replace: "address"
      - trigger: "adr"
        replace: "Adresse"
    """)

  @Test(arguments: [
    // The short trigger fires at once (touch-down); the longer one, typed on,
    // takes its place, on what the user typed.
    ("type my", "MY"),
    ("type myself", "ME MYSELF"),
    ("type \"myself and my\"", "ME MYSELF and MY"),
    ("type mys", "MYs"),
    ("type adr", "Adresse"),
    ("type ad", "address"),
    // Anything but plain typing in between ends it.
    ("type my\ntap left\ntap right\ntype self", "MYself"),
    // Undo after the longer one types back what the user typed.
    ("type myself\ntap backspace", "myself"),
  ])
  func aLongerTriggerTypedThroughAnExpansionWins(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.config).text == shown)
  }
}
