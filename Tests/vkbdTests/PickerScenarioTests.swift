import AgentProtocol
import CEvdev
import Foundation
import KeyboardEngine
import LinuxSystem
import Logging
import Testing

@testable import VKBDDaemon

/// The snippet picker in `vkbd simulate` (DESIGN 8): the keys go to it,
/// the application gets only what it inserts.
@Suite struct PickerScenarioTests {
  static let config = """
    autocapitalize: false
    double_space_period: false
    matches:
      - trigger: ":sig"
        replace: "Best regards, Ada"
      - trigger: ":addr"
        label: "Home address"
        replace: "12 Main Street"
      - label: "Summarize the text"
        replace: "Please summarize:"
        search_terms: [tldr]
      - trigger: ":$:"
        label: "Dollar"
        replace: "$"
      - trigger: ":$:"
        label: "Euro"
        replace: "€"
      - trigger: ":$:"
        label: "Pound sterling"
        replace: "£"
    """

  /// Every key the virtual keyboard pressed went up again.
  static func nothingHeld(_ result: SimulationResult) -> Bool {
    var down = Set<UInt16>()
    for (_, key) in result.transcript {
      if key.value == .down { down.insert(key.code) } else if key.value == .up { down.remove(key.code) }
    }
    return down.isEmpty
  }

  @Test func theChordOpensItAQueryFindsASnippetAndEnterInsertsIt() throws {
    let result = try Simulation.run("type Hi \ntap leftalt+space\ntype regards\ntap enter\ntype !", config: Self.config)
    #expect(result.text == "Hi Best regards, Ada!")
    #expect(result.picker == nil)
    #expect(Self.nothingHeld(result))
    // Alt went up behind a Control tap, so that its release is no lone Alt tap.
    let events = result.transcript.map { "\(KeyNames.name(of: $0.key.code)) \($0.key.value.rawValue)" }
    let altUp = try #require(events.firstIndex(of: "KEY_LEFTALT 0"))
    #expect(Array(events[(altUp - 2)...altUp]) == ["KEY_LEFTCTRL 1", "KEY_LEFTCTRL 0", "KEY_LEFTALT 0"])
  }

  @Test func whileOpenNoKeyReachesTheApplicationAndEscapeClosesIt() throws {
    let open = try Simulation.run("type a\ntap leftalt+space\ntype main street\ntap down", config: Self.config)
    #expect(open.text == "a")
    let view = try #require(open.picker)
    #expect(view.query == "main street")
    #expect(view.rows.first?.label == "Home address")
    #expect(view.rows.first?.trigger == ":addr")
    #expect(view.rows.first?.source == "test.yaml")
    let closed = try Simulation.run("type a\ntap leftalt+space\ntype main\ntap esc\ntype b", config: Self.config)
    #expect(closed.text == "ab")
    #expect(closed.picker == nil)
    #expect(Self.nothingHeld(closed))
    // The chord again closes it too.
    #expect(
      try Simulation.run("tap leftalt+space\ntype xyz\ntap leftalt+space\ntype c", config: Self.config).text == "c")
  }

  @Test func aMatchWithNoTriggerIsFoundByItsLabelAndSearchTerms() throws {
    #expect(
      try Simulation.run("tap leftalt+space\ntype summ\ntap enter", config: Self.config).text == "Please summarize:")
    #expect(
      try Simulation.run("tap leftalt+space\ntype tldr\ntap enter", config: Self.config).text == "Please summarize:")
  }

  @Test func aSharedTriggerOffersItsMatchesInLoadOrder() throws {
    let offered = try Simulation.run("type :$:", config: Self.config)
    #expect(offered.text == ":$")  // the trigger's last key waits for the choice
    let view = try #require(offered.picker)
    #expect(view.trigger == ":$:")
    #expect(view.rows.map(\.label) == ["Dollar", "Euro", "Pound sterling"])
    #expect(view.selected == 0)
    #expect(try Simulation.run("type :$:\ntap enter", config: Self.config).text == "$")
    #expect(try Simulation.run("type x :$:\ntap down\ntap enter\ntype  y", config: Self.config).text == "x € y")
    #expect(try Simulation.run("type :$:\ntype pound\ntap enter", config: Self.config).text == "£")
    // Escape leaves the trigger exactly as typed, its Shift-typed colon too.
    let escaped = try Simulation.run("type :$:\ntap esc\ntype z", config: Self.config)
    #expect(escaped.text == ":$:z")
    #expect(Self.nothingHeld(escaped))
  }

  @Test func theTypingAidsKnowWhatWasInserted() throws {
    let config = """
      matches:
        - label: "done"
          replace: "It is done. "
      """
    #expect(
      try Simulation.run("tap leftalt+space\ntype done\ntap enter\ntype next", config: config).text
        == "It is done. Next")
    // Backspace right after undoes the insertion.
    #expect(
      try Simulation.run("type ab \ntap leftalt+space\ntype done\ntap enter\ntap backspace", config: config).text
        == "ab ")
  }

  @Test func aFocusChangeClosesItAndTheKeysAreTheApplicationsAgain() throws {
    let result = try Simulation.run("tap leftalt+space\ntype abc\nfocus foot\ntype z", config: Self.config)
    #expect(result.text == "z")
    #expect(result.picker == nil)
  }

  @Test func theShortcutIsConfigurableAndOffTurnsItOff() throws {
    let custom = Self.config + "\npicker:\n  shortcut: ctrl+shift+p\n"
    #expect(
      try Simulation.run("tap leftctrl+leftshift+p\ntype sig\ntap enter", config: custom).text == "Best regards, Ada")
    let off = "autocapitalize: false\npicker:\n  shortcut: \"off\"\nmatches:\n  - {trigger: \":a\", replace: b}\n"
    #expect(try Simulation.run("tap leftalt+space\ntype x", config: off).picker == nil)
    #expect(throws: ConfigErrors.self) { try ConfigLoader.parse("picker:\n  shortcut: alt-nokey\n", file: "c.yaml") }
  }

  @Test func aLongQueryIsCutAndEveryKeyStaysThePickers() throws {
    let long = String(repeating: "q", count: 10_000)
    let result = try Simulation.run("tap leftalt+space\ntype \(long)", config: Self.config)
    #expect(result.text == "")
    #expect(result.picker?.query.count == SnippetSearch.maximumQuery)
    #expect(result.picker?.total == 0)
  }
}

/// `vkbd search --config`: the picker's ranking, offline.
@Suite struct SearchCommandTests {
  @Test func printsTheRankedMatchesAndTheirJSON() throws {
    let path = "/tmp/vkbd-search-\(getpid()).yaml"
    try PickerScenarioTests.config.write(toFile: path, atomically: true, encoding: .utf8)
    defer { unlink(path) }
    let text = try VKBDBinary.run(["search", "--config", path, "pound"])
    #expect(text.status == 0)
    #expect(text.output == "Pound sterling  :$:  \(path):18\n1 matching snippet\n")
    #expect(try VKBDBinary.run(["search", "--config", path, "zzzqqq"]).output == "no snippet matches\n")
    let json = try VKBDBinary.run(["search", "--config", path, "--json", "--limit", "2", "summarize"])
    #expect(json.status == 0)
    let results = try JSONDecoder().decode([SearchResult].self, from: Data(json.output.utf8))
    #expect(results.map(\.replace) == ["Please summarize:"])
    #expect(results.first?.triggers == [] && results.first?.label == "Summarize the text")
    #expect(results.first?.file == path && results.first?.line == 9)
    #expect(try VKBDBinary.run(["search", "--limit", "5000", "x"]).status == 64)
  }

  @Test func whatLoadedIsSearchedWhatDidNotIsSaidAndNothingLoadedIsAnError() throws {
    let directory = "/tmp/vkbd-search-files-\(getpid())"
    try Files.makeDirectories(directory)
    defer { try? Files.removeTree(directory) }
    try "matches:\n  - trigger: [x\n".write(toFile: directory + "/broken.yml", atomically: true, encoding: .utf8)
    try "matches:\n  - {trigger: ':ty', replace: 'Thank you'}\n".write(
      toFile: directory + "/good.yml", atomically: true, encoding: .utf8)
    try "snippets: [broken.yml, good.yml]\n".write(toFile: directory + "/both.yaml", atomically: true, encoding: .utf8)
    try "snippets: [broken.yml]\n".write(toFile: directory + "/broken.yaml", atomically: true, encoding: .utf8)
    let some = try VKBDBinary.run(["search", "--config", directory + "/both.yaml", "thank"])
    #expect(some.status == 0)
    #expect(some.output == "Thank you  :ty  \(directory)/good.yml:2\n1 matching snippet\n")
    #expect(some.error.hasPrefix("vkbd: \(directory)/broken.yml:3:1: YAML:"))
    let none = try VKBDBinary.run(["search", "--config", directory + "/broken.yaml", "thank"])
    #expect(none.status == 78)
    #expect(none.output == "")
    #expect(none.error.hasSuffix("vkbd: \(directory)/broken.yaml: no snippet loaded\n"))
  }
}

/// A user's espanso settings (config/default.yml): the search bar's open
/// vkbd's picker (`search_shortcut` where vkbd.yaml names no shortcut, and
/// `search_trigger` typed anywhere), `undo_backspace: false` is honoured,
/// and every other key is named with file:line and why.
@Suite struct EspansoSearchSettingsTests {
  static let root = "/home/ada/.config/espanso"

  static func search(_ defaults: String) -> (EspansoConfig.Settings, [ConfigProblem]) {
    EspansoConfig.settings(in: SentFiles(files: [root + "/config/default.yml": defaults]), root: root)
  }

  @Test func theShortcutAndTheTriggerAreRead() throws {
    let (search, problems) = Self.search("search_shortcut: CTRL+SHIFT+SPACE\nsearch_trigger: \":srch\"\n")
    #expect(problems.isEmpty)
    #expect(search.shortcut == .some(Shortcut(key: UInt16(KEY_SPACE), modifiers: [.control, .shift])))
    let trigger = try #require(search.trigger)
    #expect(trigger.triggers == [":srch"] && trigger.opensSearch)
    #expect(trigger.origin == Self.root + "/config/default.yml:2")
    #expect(Self.search("search_shortcut: off\n").0.shortcut == .some(nil))
    #expect(Self.search("search_trigger: off\n").0.trigger == nil)
    let (bad, badProblems) = Self.search("search_shortcut: ALT+NOPE\n")
    #expect(bad.shortcut == nil)
    #expect(
      badProblems.map(\.description) == [
        "\(Self.root)/config/default.yml:1:18: search_shortcut: "
          + "unknown key name 'NOPE' in 'ALT+NOPE' (\(KeyNames.grammar))"
      ])
  }

  @Test func everyKeyNotHonouredIsNamedWithItsLineAndWhy() {
    let (settings, problems) = Self.search(
      "toggle_key: ALT\nbackend: Clipboard\nbackspace_limit: 3\nsearch_shortcut: ALT+SPACE\nshow_icon: false\n"
        + "excludes: [\"../match/x.yml\"]\nno_such_key: 1\n")
    #expect(settings.shortcut == .some(Shortcut(key: UInt16(KEY_SPACE), modifiers: .alt)))
    let file = Self.root + "/config/default.yml"
    #expect(
      problems.map { "\($0.file):\($0.line):\($0.kind)" } == [
        "\(file):1:unsupported", "\(file):2:unsupported", "\(file):3:unsupported", "\(file):5:unsupported",
        "\(file):6:unsupported", "\(file):7:unknownKey",
      ])
    #expect(problems[0].message.hasPrefix("toggle_key is espanso's and not vkbd's: vkbd's toggle_key"))
    #expect(problems[1].message.contains("virtual keyboard"))
    #expect(problems[5].message == "no_such_key: not a key of espanso's config that vkbd knows; ignored")
  }

  @Test func undoBackspaceFalseTurnsItOffForTheUserAndTrueCannotTurnItOn() throws {
    let us = "layout:\n  layout: us\n"
    let on = try ConfigLoader.parse(us, file: "c.yaml")
    let off = try ConfigLoader.parse(us + "undo_backspace: false\n", file: "c.yaml")
    let userOff = Self.search("undo_backspace: false\n").0
    let userOn = Self.search("undo_backspace: true\n").0
    #expect(on.engine(with: userOff).expansion.undoBackspace == false)
    #expect(on.engine(with: userOn).expansion.undoBackspace == true)
    #expect(off.engine(with: userOn).expansion.undoBackspace == false)
    // Typed through the engine: Backspace after ;shrug's expansion is a
    // Backspace for that user, an undo for the others.
    let script = "type ;shrug\ntap backspace"
    for (settings, text) in [(userOff, "¯\\_(ツ)_/"), (userOn, ";shrug")] {
      let configuration = try ConfigLoader.parse(
        us + "matches:\n  - trigger: \";shrug\"\n    replace: '¯\\_(ツ)_/¯'\n", file: "c.yaml")
      let result = try SimulationResult(
        script: script, layout: Simulation.layout("us"), configuration: configuration.engine(with: settings),
        snippets: SnippetMatcher(configuration.snippets), rules: configuration.apps)
      #expect(result.text == text)
    }
  }

  @Test func theTriggerGoesAndThePickerOpensOnEverySnippetButItself() throws {
    let configuration = try ConfigLoader.parse(PickerScenarioTests.config, file: "test.yaml")
    let trigger = try #require(Self.search("search_trigger: \"jkj\"\n").0.trigger)
    let result = try SimulationResult(
      script: "type a jkj\ntype main", layout: Simulation.layout("us"), configuration: configuration.engine,
      snippets: SnippetMatcher(configuration.snippets + [trigger]), rules: configuration.apps)
    #expect(result.text == "a ")
    let view = try #require(result.picker)
    #expect(view.query == "main" && view.rows.first?.label == "Home address")
    let all = try SimulationResult(
      script: "type jkj", layout: Simulation.layout("us"), configuration: configuration.engine,
      snippets: SnippetMatcher(configuration.snippets + [trigger]), rules: configuration.apps)
    #expect(all.text == "")
    #expect(all.picker?.total == configuration.snippets.count)
    #expect(all.picker?.rows.contains { $0.trigger == "jkj" } == false)
  }

  @Test func vkbdYAMLsShortcutWinsOverEspansos() throws {
    let (search, _) = Self.search("search_shortcut: CTRL+SPACE\n")
    let us = "layout:\n  layout: us\n"
    let written = try ConfigLoader.parse(us + "picker:\n  shortcut: alt-p\n", file: "c.yaml")
    #expect(written.pickerShortcutWritten)
    let plainConfiguration = try ConfigLoader.parse(us, file: "c.yaml")
    #expect(!plainConfiguration.pickerShortcutWritten)
    let logger = Logger(label: "test")
    let user = UserSnippets(settings: search)
    let engine = try Daemon.makeEngine(written, user: user, logger: logger)
    #expect(engine.configuration.pickerShortcut == Shortcut(key: UInt16(KEY_P), modifiers: .alt))
    let plain = try Daemon.makeEngine(plainConfiguration, user: user, logger: logger)
    #expect(plain.configuration.pickerShortcut == Shortcut(key: UInt16(KEY_SPACE), modifiers: .control))
  }
}

/// The picker's bad input (issue 27): the chord twice or held, Enter while
/// an insertion is still typed, a variable that fails, huge and unprintable
/// labels.
@Suite struct PickerBadInputTests {
  @Test func theChordPressedTwiceClosesItAndHeldItStaysOpen() throws {
    let twice = try Simulation.run("tap leftalt+space\ntap leftalt+space\ntype x", config: PickerScenarioTests.config)
    #expect(twice.picker == nil && twice.text == "x")
    // The key repeats while held: it opened the picker once, and it stays.
    let held = try Simulation.run(
      "press leftalt\nhold space 2000\nrelease leftalt\ntype addr", config: PickerScenarioTests.config)
    #expect(held.text == "")
    #expect(held.picker?.query == "addr")
    #expect(PickerScenarioTests.nothingHeld(held))
  }

  @Test func enterWhileAnInsertionIsStillTypedInsertsAfterIt() throws {
    let config = """
      autocapitalize: false
      expansion:
        gap_ms: 40
      matches:
        - label: "first"
          replace: "one two three four five"
        - label: "second"
          replace: " six"
      """
    let result = try Simulation.run(
      "tap leftalt+space\ntype first\ntap enter\ntap leftalt+space\ntype second\ntap enter\nwait 3000", config: config)
    #expect(result.text == "one two three four five six")
    #expect(result.picker == nil)
    #expect(PickerScenarioTests.nothingHeld(result))
  }

  @Test func aSnippetWhoseVariableFailsClosesThePickerAndTypesNothing() throws {
    let config = """
      autocapitalize: false
      matches:
        - label: "broken"
          replace: "got {{out}}"
          vars:
            - name: out
              type: shell
              params:
                cmd: "exit 3"
      """
    let result = try Simulation.run(
      "type a \ntap leftalt+space\ntype broken\ntap enter\nwait 2000\ntype b", config: config)
    #expect(result.text == "a b")
    #expect(result.picker == nil)
  }

  @Test func aHugeLabelWithControlCharactersIsShownShortAndPrintable() throws {
    let label = "bell\u{7}tab\tescape\u{1B}" + String(repeating: "x", count: 1 << 20)
    var snippet = Snippet(trigger: ":huge", replace: "y")
    snippet.label = label
    let shown = snippet.displayText()
    #expect(shown.unicodeScalars.count == 80 && shown.hasSuffix("…"))
    #expect(!shown.unicodeScalars.contains { $0.properties.generalCategory == .control })
    let view = PickerShow(
      query: "", labels: [shown], triggers: [":huge"], sources: ["a.yml"], selected: 0, total: 1, trigger: nil)
    #expect(throws: Never.self) { try view.validate() }
  }
}
