import AgentProtocol
import CEvdev
import KeyboardEngine
import Testing

@testable import VKBDDaemon

/// What a session agent tells of the text field and the desktop's layout,
/// in typing scripts: the engine uses them exactly as in the daemon.
@Suite struct FieldScenarioTests {
  static let config = """
    matches:
      - trigger: ";gr"
        replace: "Grüße"
      - trigger: ";sig"
        replace: "Best regards"
    apps:
      - app: "^bank$"
        autocapitalize: true
      - role: password
        app: "^vault$"
        snippets: true
    """

  @Test(arguments: [
    // The issue's scenarios.
    ("field \"\"\ntype \"hello\"", "Hello"),
    ("field \"Thanks. \"\ntype \"see you\"", "Thanks. See you"),
    ("field \"e.g. \"\ntype \"this\"", "e.g. this"),
    ("field \"Hi\"\ntype \"  \"", "Hi. "),
    // After a click the text before the cursor is unknown; a report makes it known again.
    ("type \"one. \"\nclick\ntype \"two\"", "one. two"),
    ("type \"one. \"\nclick\nfield \"one. \"\ntype \"two\"", "one. Two"),
    // An empty field starts with a capital even behind an opening bracket or spaces.
    ("field \"(\"\ntype \"see\"", "(See"),
    ("field \"  \"\ntype \"see\"", "  See"),
    // A field of more than the model holds: its start is not the field's.
    ("field \"\(String(repeating: "x", count: 300)) \"\ntype \"a\"", String(repeating: "x", count: 300) + " a"),
    // A report agreeing with what the engine typed keeps the engine's undo of a capital.
    ("field \"\"\ntype \"i\"\nfield \"I\"\ntap backspace\ntype \"i\"", "i"),
  ])
  func theFieldsTextGuidesTheAids(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.config).text == shown)
  }

  @Test func theOptionTurnsTheFieldStartCapitalOff() throws {
    let config = "autocapitalize_field_start: false\n"
    #expect(try Simulation.run("field \"\"\ntype \"hello\"", config: config).text == "hello")
  }

  @Test(arguments: [
    // A password field stays untouched: no aid, no snippet.
    ("focus firefox password\nfield \"\"\ntype \"secret  ;sig\"", "secret  ;sig"),
    // A rule for the app does not reach into its password field…
    ("focus bank password\ntype \"a.  b\"", "a.  b"),
    // …but a rule naming the role does.
    ("focus vault password\ntype \";sig\"", "Best regards"),
    ("focus firefox pin\ntype \"12  34\"", "12  34"),
    ("focus firefox url\nfield \"\"\ntype \"example.com  x\"", "example.com  x"),
    ("focus firefox email\nfield \"\"\ntype \"me@example.com\"", "me@example.com"),
    ("focus firefox terminal\ntype \"ls.  x\"", "ls.  x"),
  ])
  func theRoleChoosesTheAids(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.config).text == shown)
  }

  @Test func aSnippetFollowsTheDesktopsGroup() throws {
    // us,de with no group-switch option: in group 0 ü has no key, and the
    // expansion falls back to Ctrl+Shift+U; in group 1 it is typed on the German key.
    let inUS = try Simulation.run("desktop-layout us,de\ntype \";gr\"", config: Self.config)
    let inDE = try Simulation.run("desktop-layout us,de 1\ntype \"so ;gr\"", config: Self.config)
    #expect(inUS.text == "Grüße" && inDE.text == "so Grüße")
    let events = { (result: SimulationResult) in result.transcript.map { "\(KeyNames.name(of: $0.key.code))" } }
    #expect(events(inUS).contains("KEY_LEFTCTRL"))
    #expect(!events(inDE).contains("KEY_LEFTCTRL"))
    #expect(events(inDE).contains("KEY_LEFTBRACE"))  // ü on the German layout
  }

  @Test func theDesktopsLayoutDecodesTheKeysTyped() throws {
    // On de, the key right of L types ö: the snippet trigger typed there is
    // read as the desktop reads it.
    let config = "matches:\n  - trigger: \";ö\"\n    replace: \"oe\"\n"
    #expect(try Simulation.run("desktop-layout de\ntype \";ö\"", config: config).text == "oe")
  }

  @Test(arguments: [
    ("desktop-layout", "desktop-layout takes layouts"),
    ("desktop-layout us,de 2", "'2' is not a group of us,de"),
    ("desktop-layout us,de x", "'x' is not a group"),
    ("desktop-layout us,de,fr,ru,ua", "at most 4 groups"),
    ("field \"unclosed", "bad string literal"),
  ])
  func aBadFieldOrLayoutLineIsAScriptError(line: String, message: String) {
    #expect {
      try Script.parse(line)
    } throws: { error in
      (error as? ScriptError)?.message.contains(message) == true
    }
  }

  @Test func aLayoutThatDoesNotCompileIsRefusedAndTheOldStays() throws {
    #expect {
      try Simulation.run("desktop-layout nosuchlayout\ntype x", config: "")
    } throws: { error in
      (error as? ScriptError)?.message.contains("does not compile") == true
    }
    var desktop = DesktopLayout()
    let good = try desktop.take(LayoutReport(source: "test", layout: "us,de", group: 1))
    #expect(good.group == 1)
    #expect(throws: DesktopLayout.Refusal.self) { try desktop.take(LayoutReport(source: "test", layout: "xx")) }
    #expect(desktop.report?.layout == "us,de")
    // The same names again come from the cache: the same keymap.
    let again = try desktop.take(LayoutReport(source: "test", layout: "us,de", group: 0))
    #expect(again.layout === good.layout)
    // The agent goes: the report in force is forgotten, once.
    let forgotten = desktop.forget()
    #expect(forgotten && desktop.report == nil)
    let forgottenAgain = desktop.forget()
    #expect(!forgottenAgain)
  }

  @Test func theDesktopsLayoutTakesTheSessionsLocaleElseTheSystems() throws {
    var desktop = DesktopLayout()
    desktop.defaultLocale = "fi_FI.UTF-8"
    let system = try desktop.take(LayoutReport(source: "test", layout: "us", variant: "intl"))
    #expect(system.layout.names.locale == "fi_FI.UTF-8")
    let session = try desktop.take(LayoutReport(source: "test", layout: "us", variant: "intl", locale: "pt_BR.UTF-8"))
    #expect(session.layout.names.locale == "pt_BR.UTF-8")
    #expect(session.layout !== system.layout)
    // us(intl)'s dead acute and c: ç where pt_BR's Compose file says so.
    let decoder = KeystrokeDecoder(layout: session.layout)
    _ = decoder.feed(code: UInt16(KEY_APOSTROPHE), value: .down)
    _ = decoder.feed(code: UInt16(KEY_APOSTROPHE), value: .up)
    #expect(decoder.feed(code: UInt16(KEY_C), value: .down) == .insert("ç"))
  }

  @Test func theSimulateCommandTakesFieldLines() throws {
    let result = try VKBDBinary.run(["simulate"], input: "field \"Thanks. \"\ntype \"see you\"\n")
    #expect(result.status == 0 && result.output == "Thanks. See you", "\(result)")
  }
}
