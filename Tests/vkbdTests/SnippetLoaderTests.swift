import AgentProtocol
import CEvdev
import Foundation
import KeyboardEngine
import LinuxSystem
import TestSupport
import Testing

@testable import VKBDDaemon

/// Loading espanso match files: the fixtures under `Fixtures/` cover every
/// field vkbd reads, the kinds it skips, and broken files.
@Suite struct SnippetLoaderTests {
  static let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")

  static func path(_ name: String) -> String { fixtures.appendingPathComponent(name).path }

  /// What typing `trigger` types now, with the snippets `matcher` has.
  static func preview(_ trigger: String, in snippets: SnippetTable) throws -> String {
    let matcher = SnippetMatcher(snippets)
    let snippet = try #require(matcher.snippet(forTrigger: trigger))
    let world = EngineWorld(wallClock: { 1_700_000_000 }, randomSeed: { 0x5EED }, writeDate: LocalDates.write)
    return snippet.preview(typed: trigger, world: world, nested: matcher.snippet(forTrigger:))
  }

  @Test func aTildeStandsForTheHomeDirectory() {
    #expect(MatchPaths.join("/etc/vkbd", "~/snippets/*.yml", home: "/home/ada") == "/home/ada/snippets/*.yml")
    #expect(MatchPaths.join("/etc/vkbd", "~", home: "/home/ada") == "/home/ada")
    #expect(MatchPaths.join("/etc/vkbd", "~ada/x.yml", home: "/home/ada") == "/etc/vkbd/~ada/x.yml")
    #expect(MatchPaths.join("/etc/vkbd", "x/~/y.yml", home: "/home/ada") == "/etc/vkbd/x/~/y.yml")
  }

  @Test func loadsEveryFieldOfAMatchDirectory() throws {
    let configuration = try ConfigLoader.load(path: Self.path("espanso/config.yaml"))
    let snippets = Dictionary(uniqueKeysWithValues: configuration.snippets.map { ($0.triggers[0], $0) })
    #expect(configuration.snippetFiles.map(MatchPaths.fileName) == ["base.yml", "_shared.yml", "unsupported.yml"])
    #expect(
      snippets.keys.sorted() == [
        ":a1", ":coin", ":cur", ":far", ":greet", ":ok", ":shared", ":when", "alh", "lw", "rw",
      ])

    let greet = try #require(snippets[":greet"])
    #expect(greet.label == "Greeting")
    #expect(try Self.preview(":greet", in: configuration.snippets) == "Hello, world!")
    #expect(greet.origin == Self.path("espanso/match/base.yml") + ":12")

    let alpha = try #require(snippets[":a1"])
    #expect(alpha.triggers == [":a1", ":a2"])
    #expect(alpha.leftWord && alpha.rightWord)
    #expect(snippets["lw"]!.leftWord && !snippets["lw"]!.rightWord)
    #expect(!snippets["rw"]!.leftWord && snippets["rw"]!.rightWord)
    #expect(snippets["alh"]!.propagateCase && snippets["alh"]!.uppercaseStyle == .capitalizeWords)
    #expect(snippets[":when"]!.variables.map(\.kind) == [.date(format: "%Y", offsetSeconds: 86400, locale: nil)])
    #expect(snippets[":when"]!.replacement.parts == [.value(0, field: nil)])
    #expect(["heads", "tails"].contains(try Self.preview(":coin", in: configuration.snippets)))
    #expect(snippets[":cur"]!.replacement == Template("<$|$>"))
    #expect(snippets[":shared"]!.replacement == Template("from an import"))
    // global_vars are global: the imported file uses one its importer defines.
    #expect(try Self.preview(":far", in: configuration.snippets) == "Hello from afar")
  }

  @Test func skipsUnsupportedKindsWithAWarningAndLoadsTheRest() throws {
    let configuration = try ConfigLoader.load(path: Self.path("espanso/config.yaml"))
    let file = Self.path("espanso/match/unsupported.yml")
    #expect(
      configuration.warnings.map(\.description) == [
        "\(file):3:17: match skipped: vkbd does not support 'image_path'",
        "\(file):5:11: match skipped: vkbd does not support 'html'",
        "\(file):7:14: match skipped: it uses the variable 'odd', of type 'exotic', which vkbd does not support",
      ])
    #expect(configuration.snippetProblems.isEmpty)
    #expect(configuration.snippets.contains { $0.triggers == [":ok"] })
  }

  @Test func loadsFileByFileAsEspansoDoes() throws {
    let configuration = try ConfigLoader.load(path: Self.path("hublike/config.yaml"))
    let base = Self.path("hublike/match/base.yml")
    let vars = Self.path("hublike/match/sub/vars.yml")
    let broken = Self.path("hublike/match/sub/deeper/broken.yml")
    // `**` is any number of directories, none included.
    #expect(
      configuration.snippetFiles == [
        base, Self.path("hublike/match/sub/deeper/broken.yml"), Self.path("hublike/match/sub/deeper/good.yml"), vars,
      ])
    // A file that is not YAML is left out; an invalid match is; the rest loads.
    #expect(
      configuration.snippetProblems.map(\.description) == [
        "\(broken):4:15: YAML: did not find expected key (while parsing a block mapping at line 2)",
        "\(vars):25:19: params.format must be a string",
        "\(vars):28:12: regex: an unclosed group (at character 2)",
        "\(vars):30:12: regex: the regex can match the empty string (at character 1)",
      ])
    #expect(configuration.snippetProblems.map(\.kind) == [.yaml, .invalid, .invalidMatch, .invalidMatch])
    #expect(
      configuration.warnings.map(\.description) == [
        "\(base):21:14: match skipped: it uses the global variable 'exotic' (\(base):6), of type 'sparkle', which vkbd does not support",
        "\(base):24:5: match skipped: a word trigger made only of separators never fires",
        "\(base):29:5: match: unknown key 'wrod' ignored",
        "\(vars):42:14: match skipped: its variable 'gone' is the match ':nowhere', which no match has",
      ])
    let snippets = configuration.snippets
    #expect(
      snippets.flatMap(\.triggers).sorted() == [
        ":deep", ":dump", ":hugo", ":kao", ":name", ":outer", ":set1", ":set2", ":sig", ":sig2", ":up", ":wrod",
      ])
    // Braces that are no reference are text.
    #expect(try Self.preview(":hugo", in: snippets) == "{{< ref \"page\" >}}")
    #expect(try Self.preview(":kao", in: snippets) == "( ・ω・)o-{{[〃]}}")
    #expect(try Self.preview(":dump", in: snippets) == "{{dump(app)}} and Ada")
    // A nested match renders the other snippet's replacement.
    #expect(try Self.preview(":outer", in: snippets) == "[Ada Ada]")
    // Forms and shell commands are the session's.
    let name = try #require(snippets.first { $0.triggers == [":name"] })
    #expect(name.needsSession)
    #expect(
      name.variables.map(\.kind) == [
        .session(
          .form(
            layout: "Dear [[name]], [[greeting]]",
            fields: [.init(name: "name"), .init(name: "greeting", choices: ["Hello", "Hi"])]))
      ])
    #expect(
      name.replacement.parts == [.text("Dear "), .value(0, field: "name"), .text(", "), .value(0, field: "greeting")])
    let up = try #require(snippets.first { $0.triggers == [":up"] })
    #expect(up.variables.map(\.kind) == [.session(.shell(command: "uptime -p", shell: nil, trim: true, debug: false))])
    // A regex trigger's named groups are its variables.
    let regex = try #require(snippets.first { $0.regex != nil })
    #expect(regex.regex?.groupNames == ["count", "what"])
    #expect(regex.variables.map(\.name) == ["count", "what"])
  }

  @Test func aUsersFilesAreParsedFromWhatTheAgentSentNotFromTheDisk() throws {
    // Paths that exist nowhere on this machine: only the sent text is read.
    let directory = "/nonexistent-home/ada/.config/espanso/match"
    var loader = SnippetLoader(
      store: SentFiles(files: [
        directory + "/base.yml": "imports: [_shared.yml]\nmatches:\n  - trigger: ':me'\n    replace: '{{who}}'\n",
        directory + "/_shared.yml": "global_vars:\n  - name: who\n    type: echo\n    params:\n      echo: Ada\n",
        directory + "/packages/emoji/package.yml":
          "name: emoji\nparent: default\nmatches:\n  - trigger: ':ok'\n    replace: '👍'\n",
        directory + "/packages/emoji/_manifest.yml": "name: emoji\n",
        directory + "/broken.yml": "matches: [\n",
        "/etc/shadow.yml": "matches:\n  - trigger: ':no'\n    replace: 'outside'\n",
      ]))
    loader.load(directory: directory)
    loader.finish()
    #expect(try Self.preview(":me", in: loader.snippets) == "Ada")
    #expect(loader.snippets.flatMap(\.triggers).sorted() == [":me", ":ok"])
    #expect(loader.problems.map(\.file) == [directory + "/broken.yml"])
  }

  @Test func espansosAppConfigsThatSwitchItOffBecomeAppRules() throws {
    let root = "/nonexistent-home/ada/.config/espanso"
    let files = SentFiles(files: [
      root + "/config/default.yml": "enable: false\n",
      root + "/config/terminals.yml": "filter_class: \"foot|kitty\"\nenable: false\nbackend: clipboard\n",
      root + "/config/mail.yml":
        "filter_title: \"Inbox\"\nuse_standard_includes: false\nincludes: [\"../match/mail.yml\"]\n",
      root + "/config/code.yml": "filter_class: code\nexcludes: [\"../match/**/emoji/*.yml\"]\n",
      root + "/config/same.yml": "filter_class: same\nincludes: [\"../match/_extra.yml\"]\n",
      root + "/match/mail.yml": "matches: []\n",
      root + "/match/packages/emoji/package.yml": "matches: []\n",
      root + "/config/exec.yml": "filter_exec: \"/usr/bin/gimp\"\nenable: false\n",
      root + "/config/mac.yml": "filter_os: macos\nfilter_class: Safari\nenable: false\n",
      root + "/match/base.yml": "matches: []\n",
    ])
    let (rules, warnings) = EspansoConfig.rules(in: files, root: root)
    // In name order; `same` adds an import-only file to the whole set: nothing is off.
    #expect(rules.map(\.origin) == ["code", "mail", "terminals"].map { root + "/config/\($0).yml:1" })
    #expect(rules[0].settings == AppSettings(snippetFilesOff: [root + "/match/packages/emoji/package.yml"]))
    #expect(
      rules[1].settings
        == AppSettings(snippetFilesOff: [root + "/match/base.yml", root + "/match/packages/emoji/package.yml"]))
    #expect(rules[2].settings == AppSettings(snippets: false))
    #expect(
      warnings.map(\.description) == [
        "\(root)/config/exec.yml:1:14: filter_exec is not supported (the session agent does not report executables): "
          + "this config is left out"
      ])
    // After the config's own rules, before the built-in ones.
    let config = try ConfigLoader.parse("apps:\n  - app: kitty\n    autocapitalize: false\n", file: "c.yaml")
    let all = config.apps.adding(rules)
    #expect(all.first(matching: FocusReport(window: 1, app: "kitty"))?.rule.origin == "c.yaml:2")
    #expect(all.first(matching: FocusReport(window: 1, app: "foot"))?.rule.origin == root + "/config/terminals.yml:1")
  }

  @Test func aConfigThatNamesAMissingFileIsRefused() throws {
    let error = try #require(throws: ConfigErrors.self) {
      try ConfigLoader.parse("snippets:\n  - absent.yml\n", file: Self.path("broken/config.yaml"))
    }
    #expect(
      error.problems.map(\.description) == [
        "\(Self.path("broken/config.yaml")):2:5: snippets: \(Self.path("broken/absent.yml")): no such file or directory"
      ])
  }

  @Test func reportsEveryProblemOfBrokenFilesWithFileAndLine() throws {
    let configuration = try ConfigLoader.load(path: Self.path("broken/config.yaml"))
    let broken = Self.path("broken/broken.yml")
    let cycle = Self.path("broken/cycle_b.yml")
    #expect(
      configuration.snippetProblems.map(\.description) == [
        "\(broken):2:5: match has no replace: (nor form:)",
        "\(broken):3:5: a trigger is empty",
        "\(broken):9:11: word must be true or false",
        "\(broken):12:22: uppercase_style must be one of uppercase, capitalize, capitalize_words, not 'shouting'",
        "\(broken):14:5: match has no replace: (nor form:)",
        "\(cycle):2:5: import cycle: cycle_a.yml imports cycle_b.yml imports cycle_a.yml",
        "\(cycle):3:5: imports: \(Self.path("broken/missing.yml")): no such file",
      ])
    #expect(
      configuration.warnings.map(\.message).contains(
        "match skipped: replace uses {{nope}}, which no vars entry defines"))
    #expect(configuration.snippets.flatMap(\.triggers).sorted() == [":a", ":good"])
    // A match with no trigger loads, for the picker to find.
    #expect(
      configuration.snippets.contains { $0.triggers.isEmpty && $0.regex == nil && $0.displayText() == "no trigger" })
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
    ("matches: {}\n", 1, "matches must be a list"),
    ("unicode_input: morse\n", 1, "unicode_input must be one of ctrl-shift-u, none, not 'morse'"),
    ("newline: lf\n", 1, "newline must be one of enter, shift-enter, not 'lf'"),
    ("expansion:\n  burst_keys: 64\n", 2, "expansion.burst_keys must be between 1 and 30, not 64"),
    (
      "matches:\n  - trigger: d\n    replace: \"{{d}}\"\n    vars:\n      - name: d\n        type: date\n"
        + "        params:\n          format: 7\n", 8,
      "params.format must be a string"
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
      run.output == "\(path): good: layout \(SystemKeyboard.layoutNames()), 11 snippets, 3 match files\n"
        + "3 warnings: 2 unsupported feature, 1 depends on a skipped variable\n")
    #expect(run.error.contains("match skipped: vkbd does not support 'html'"))
  }

  @Test func checkListsEveryProblemSummarizesThemAndExits78() throws {
    let path = Self.path("hublike/config.yaml")
    let run = try VKBDBinary.run(["check", "--config", path])
    #expect(run.status == 78)
    #expect(
      run.output
        == "\(path): loaded in part: layout \(SystemKeyboard.layoutNames()), 12 snippets (1 regex), 4 match files\n"
        + "4 errors: 2 invalid match, 1 YAML syntax, 1 invalid value\n"
        + "4 warnings: 2 depends on a skipped variable, 1 invalid match, 1 unknown key\n")
    #expect(run.error.split(separator: "\n").count == 8)
  }

  @Test func theSameTriggerTwiceIsNoWarningAndWithoutAPickerTheFirstFires() throws {
    let configuration = try ConfigLoader.parse(
      """
      matches:
        - trigger: ":x"
          replace: first
        - trigger: ":x"
          replace: second
      """, file: "c.yaml")
    #expect(configuration.warnings.isEmpty)
    let matcher = SnippetMatcher(configuration.snippets)
    #expect(matcher.sharedTriggerCount == 1)
    let engine = Engine(layout: Simulation.layout("us"), configuration: .allOff, snippets: matcher, world: .testing)
    var output = KeyOutput()
    for (time, code) in [(0, KeyCode.leftShift), (1, UInt16(KEY_SEMICOLON))] {
      engine.handle(KeyEvent(code: code, value: .down, time: .milliseconds(Int64(time))), into: &output)
    }
    engine.handle(KeyEvent(code: KeyCode.leftShift, value: .up, time: .milliseconds(2)), into: &output)
    engine.handle(KeyEvent(code: UInt16(KEY_SEMICOLON), value: .up, time: .milliseconds(3)), into: &output)
    engine.handle(KeyEvent(code: UInt16(KEY_X), value: .down, time: .milliseconds(4)), into: &output)
    // No agent shows a picker: the first match fires (its x typed by the plan).
    #expect(!engine.isPickerOpen)
    #expect(engine.text.text == "first")
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
    let range = Templates.firstRange(of: marker, in: Substring(text))
    #expect(range.map { text.distance(from: text.startIndex, to: $0.lowerBound) } == characters)
    if let range { #expect(text[range] == "\(marker)") }
  }
}
