import Foundation
import KeyboardEngine
import Testing

@testable import vkbd

/// Loading espanso match files: the fixtures under `Fixtures/` cover every
/// field vkbd reads, the kinds it skips, and broken files.
@Suite struct SnippetLoaderTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

  static func path(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

  @Test func loadsEveryFieldOfAMatchDirectory() throws {
    let configuration = try ConfigLoader.load(path: Self.path("espanso/config.yaml"))
    let snippets = Dictionary(uniqueKeysWithValues: configuration.snippets.map { ($0.triggers[0], $0) })
    #expect(configuration.snippetFiles.map(SnippetLoader.fileName) == ["base.yml", "_shared.yml", "unsupported.yml"])
    #expect(
      snippets.keys.sorted() == [
        ":a1", ":coin", ":cur", ":far", ":greet", ":ok", ":shared", ":when", "alh", "lw", "rw",
      ])

    let greet = try #require(snippets[":greet"])
    #expect(greet.label == "Greeting")
    #expect(greet.replacement == [.variable(.echo("Hello")), .text(", "), .variable(.echo("world")), .text("!")])
    #expect(greet.origin == Self.path("espanso/match/base.yml") + ":12")

    let alpha = try #require(snippets[":a1"])
    #expect(alpha.triggers == [":a1", ":a2"])
    #expect(alpha.leftWord && alpha.rightWord)
    #expect(snippets["lw"]!.leftWord && !snippets["lw"]!.rightWord)
    #expect(!snippets["rw"]!.leftWord && snippets["rw"]!.rightWord)
    #expect(snippets["alh"]!.propagateCase && snippets["alh"]!.uppercaseStyle == .capitalizeWords)
    #expect(snippets[":when"]!.replacement == [.variable(.date(format: "%Y", offsetSeconds: 86400))])
    #expect(snippets[":coin"]!.replacement == [.variable(.random(["heads", "tails"]))])
    #expect(snippets[":cur"]!.replacement == [.text("<$|$>")])
    #expect(snippets[":shared"]!.replacement == [.text("from an import")])
    // global_vars are global: the imported file uses one its importer defines.
    #expect(snippets[":far"]!.replacement == [.variable(.echo("Hello")), .text(" from afar")])
  }

  @Test func skipsUnsupportedKindsWithAWarningAndLoadsTheRest() throws {
    let configuration = try ConfigLoader.load(path: Self.path("espanso/config.yaml"))
    let file = Self.path("espanso/match/unsupported.yml")
    #expect(
      configuration.warnings.map(\.description) == [
        "\(file):3:11: match skipped: vkbd does not support 'form'",
        "\(file):4:12: match skipped: vkbd does not support 'regex'",
        "\(file):7:14: match skipped: variable 'out' is of type 'shell', which vkbd does not support",
      ])
    #expect(configuration.snippets.contains { $0.triggers == [":ok"] })
  }

  @Test func reportsEveryProblemOfBrokenFilesWithFileAndLine() throws {
    let error = try #require(throws: ConfigErrors.self) {
      try ConfigLoader.load(path: Self.path("broken/config.yaml"))
    }
    let config = Self.path("broken/config.yaml")
    let broken = Self.path("broken/broken.yml")
    let cycle = Self.path("broken/cycle_b.yml")
    #expect(
      error.problems.map(\.description) == [
        "\(config):5:5: snippets: \(Self.path("broken/absent.yml")): no such file or directory",
        "\(broken):2:5: match has no replace:",
        "\(broken):3:5: a trigger is empty",
        "\(broken):6:14: replace uses {{nope}}, which no vars entry defines",
        "\(broken):9:11: word must be true or false",
        "\(broken):12:22: uppercase_style must be one of uppercase, capitalize, capitalize_words, not 'shouting'",
        "\(broken):13:5: match has no trigger (trigger: or triggers:)",
        "\(broken):14:5: match has no replace:",
        "\(broken):15:5: match: unknown key 'replce' (known: trigger, triggers, replace, word, left_word, "
          + "right_word, propagate_case, uppercase_style, label, vars, search_terms)",
        "\(cycle):2:5: import cycle: cycle_a.yml imports cycle_b.yml imports cycle_a.yml",
        "\(cycle):3:5: imports: \(Self.path("broken/missing.yml")): no such file",
      ])
  }

  @Test(arguments: [
    (
      "matches:\n  - trigger: x\n    replace: \"\(String(repeating: "y", count: 65_537))\"\n", 3,
      "replace is longer than 65536 characters"
    ),
    (
      "matches:\n  - trigger: \"\(String(repeating: "t", count: 129))\"\n    replace: y\n", 2,
      "a trigger is longer than 128 characters"
    ),
    (
      "matches:\n  - trigger: \"..\"\n    replace: y\n    word: true\n", 2,
      "a word trigger made only of separators never fires"
    ),
    ("matches: {}\n", 1, "matches must be a list"),
    ("unicode_input: morse\n", 1, "unicode_input must be one of ctrl-shift-u, none, not 'morse'"),
    ("newline: lf\n", 1, "newline must be one of enter, shift-enter, not 'lf'"),
    ("expansion:\n  burst_keys: 64\n", 2, "expansion.burst_keys must be between 1 and 30, not 64"),
    (
      "matches:\n  - trigger: d\n    replace: \"{{d}}\"\n    vars:\n      - name: d\n        type: date\n", 5,
      "a date variable needs params.format"
    ),
  ])
  func rejectsBadSnippetsAndOptions(yaml: String, line: Int, message: String) throws {
    let error = try #require(throws: ConfigErrors.self) { try ConfigLoader.parse(yaml, file: "c.yaml") }
    #expect(error.problems.map(\.line) == [line])
    #expect(error.problems.first?.message == message)
  }

  @Test func readsTheExpansionOptions() throws {
    let configuration = try ConfigLoader.parse(
      """
      unicode_input: none
      newline: shift-enter
      undo_backspace: false
      expansion:
        burst_keys: 8
        gap_ms: 20
      """, file: "c.yaml")
    var expected = ExpansionConfiguration()
    expected.unicodeInput = .none
    expected.newline = .shiftEnter
    expected.undoBackspace = false
    expected.burstKeys = 8
    expected.burstGapMilliseconds = 20
    #expect(configuration.engine.expansion == expected)
  }

  @Test func theEmbeddedDefaultHasTheStarterSnippets() {
    let configuration = ConfigLoader.embeddedDefault()
    #expect(configuration.snippets.map(\.triggers) == [[";date"], [";time"], [";shrug"]])
    #expect(configuration.engine.expansion == ExpansionConfiguration())
    #expect(configuration.warnings.isEmpty)
  }

  @Test func checkSummarizesAGoodConfig() throws {
    let path = Self.path("espanso/config.yaml")
    let run = try VKBDBinary.run(["check", "--config", path])
    #expect(run.status == 0)
    #expect(
      run.output == "\(path): good: layout \(SystemKeyboard.layoutNames()), 11 snippets, 3 match files, 3 warnings\n")
    #expect(run.error.contains("match skipped: vkbd does not support 'form'"))
  }

  @Test func checkListsEveryProblemAndExits78() throws {
    let run = try VKBDBinary.run(["check", "--config", Self.path("broken/config.yaml")])
    #expect(run.status == 78)
    #expect(run.output.isEmpty)
    #expect(run.error.split(separator: "\n").count == 11)
  }

  @Test func theSameTriggerTwiceIsAWarningAndTheFirstWins() throws {
    let configuration = try ConfigLoader.parse(
      """
      matches:
        - trigger: ":x"
          replace: first
        - trigger: ":x"
          replace: second
      """, file: "c.yaml")
    let matcher = SnippetMatcher(configuration.snippets)
    #expect(matcher.shadowed.map(\.trigger) == [":x"])
    #expect(matcher.shadowed.first?.kept == "c.yaml:2")
    #expect(matcher.shadowed.first?.lost == "c.yaml:4")
    let result = try SimulationResult(
      script: "type :x", layout: Simulation.layout("us"), configuration: .allOff, snippets: matcher)
    #expect(result.text == "first")
  }

  /// The marker search the replacement splitting uses, on the edges a
  /// string scan can get wrong: the start, the end, a half marker, a
  /// character of several bytes before it.
  @Test(
    arguments: [
      ("{{", "{{x}}", 0), ("{{", "ab{{", 2), ("{{", "a{b{", nil), ("}}", "}{}}", 2), ("{{", "é€{{x", 2),
      ("{{", "", nil), ("{{", "{", nil),
    ] as [(StaticString, String, Int?)])
  func findsAMarkerWhereItStands(marker: StaticString, text: String, characters: Int?) {
    let range = SnippetLoader.firstRange(of: marker, in: Substring(text))
    #expect(range.map { text.distance(from: text.startIndex, to: $0.lowerBound) } == characters)
    if let range { #expect(text[range] == "\(marker)") }
  }
}
