import AgentProtocol
import Foundation
import KeyboardEngine
import TestSupport
import Testing

@testable import VKBDDaemon

/// The app rules: how `apps:` reads, how a rule matches a report, the
/// built-in list, and what the rules do to typing, through `vkbd simulate`.
@Suite struct AppRulesTests {
  static func rules(_ yaml: String) throws -> AppRules {
    try ConfigLoader.parse(yaml, file: "c.yaml").apps
  }

  @Test func theFirstRuleWhoseMatchersAllMatchApplies() throws {
    let rules = try Self.rules(
      """
      apps:
        - app: "^firefox$"
          title: Gmail
          autocapitalize: false
        - app: "(?i)^firefox$"
          snippets: false
        - role: [password]
          double_space_period: false
      """)
    func origin(_ report: FocusReport) -> String? { rules.first(matching: report)?.rule.origin }
    #expect(origin(FocusReport(window: 1, app: "firefox", title: "Inbox - Gmail")) == "c.yaml:2")
    #expect(origin(FocusReport(window: 1, app: "firefox", title: "News")) == "c.yaml:5")
    #expect(origin(FocusReport(window: 1, app: "firefox")) == "c.yaml:5", "no title matches no title matcher")
    #expect(origin(FocusReport(window: 1, app: "Firefox", title: "Gmail")) == "c.yaml:5", "(?i) ignores case")
    #expect(origin(FocusReport(window: 1, app: "chromium", role: .password)) == "c.yaml:7")
    #expect(origin(FocusReport(window: 1, app: "chromium")) == nil)
    // The built-in rules come after the config's.
    #expect(origin(FocusReport(window: 1, app: "foot")) == "built-in: terminals")
  }

  /// `apps:` patterns are espanso's regex dialect, as triggers are (POSIX
  /// ERE had no `\\d`, `\\b` or Unicode classes). In YAML they go in
  /// single quotes, where a backslash is itself.
  @Test(
    arguments: [
      (#"title: 'Invoice \d+'"#, "Invoice 42 - Billing", true),
      (#"title: 'Invoice \d+'"#, "Invoice draft", false),
      (#"title: '\bmail\b'"#, "Inbox - mail - Thunderbird", true),
      (#"title: '\bmail\b'"#, "Gmail", false),
      (#"app: '(?i)^FIREFOX$'"#, "firefox", true),
      (#"app: '(?i)^FIREFOX$'"#, "firefox-esr", false),
      (#"title: '^\p{Greek}+$'"#, "Λεξικό", true),
      (#"title: '^\p{Greek}+$'"#, "Lexiko", false),
      (#"title: '(?P<n>\d{4})-\d{2}'"#, "Report 2026-11", true),
    ] as [(String, String, Bool)])
  func appAndTitlePatternsAreEspansosRegexDialect(matcher: String, name: String, matches: Bool) throws {
    let rules = try Self.rules("apps:\n  - \(matcher)\n    enabled: false\n")
    let report =
      matcher.hasPrefix("app") ? FocusReport(window: 1, app: name) : FocusReport(window: 1, app: "x", title: name)
    #expect((rules.first(matching: report)?.index == 0) == matches)
  }

  @Test func anAppMatcherTriesTheAppIdAndEitherWMClassField() throws {
    let rules = try Self.rules("apps:\n  - app: \"^xterm$\"\n    enabled: false\n")
    #expect(rules.first(matching: FocusReport(window: 1, app: "XTerm", instance: "xterm"))?.index == 0)
    #expect(rules.first(matching: FocusReport(window: 1, app: "xterm"))?.index == 0)
    #expect(rules.first(matching: FocusReport(window: 1, app: "UXTerm", instance: "uxterm"))?.index != 0)
  }

  @Test func settingsApplyOverTheGlobalOnes() throws {
    let configuration = try ConfigLoader.parse(
      """
      autocapitalize: false
      apps:
        - app: editor
          autocapitalize: true
          backspace:
            accelerate: false
      """, file: "c.yaml")
    let settings = try #require(configuration.apps.rules.first).settings
    let applied = settings.applied(to: configuration.engine)
    #expect(applied.autocapitalize && !applied.backspace.accelerate)
    #expect(applied.doubleSpacePeriod == configuration.engine.doubleSpacePeriod)
    #expect(settings.description == "autocapitalize: true, backspace.accelerate: false")
  }

  @Test(arguments: [
    ("apps:\n  - app: \"(unclosed\"\n", 2, "apps.app: not a regular expression"),
    ("apps:\n  - title: \"a{2,1}\"\n", 2, "apps.title: not a regular expression"),
    ("apps:\n  - app: foot\n    colour: red\n", 3, "unknown key 'colour'"),
    ("apps:\n  - app: foot\n    enabled: maybe\n", 3, "apps.enabled must be true or false"),
    ("apps:\n  - app: foot\n    backspace:\n      speed: 3\n", 4, "unknown key 'speed'"),
    ("apps:\n  - role: secret\n", 2, "apps.role must be one of text, entry"),
    ("apps:\n  - autocapitalize: false\n", 2, "needs at least one of app, title and role"),
    ("apps:\n  - foot\n", 2, "apps entry must be a mapping"),
    ("apps: {app: foot}\n", 1, "apps must be a list"),
    ("session_users: [no-such-user-here]\n", 1, "session_users: no user named 'no-such-user-here'"),
    ("agent_socket: relative.sock\n", 1, "agent_socket must be an absolute path"),
  ])
  func aBadRuleIsAProblemAtItsLine(text: String, line: Int, message: String) {
    do {
      _ = try ConfigLoader.parse(text, file: "c.yaml")
      Issue.record("accepted: \(text)")
    } catch {
      let problem = error.problems.first
      #expect(problem?.line == line && problem?.message.contains(message) == true, "\(error.problems)")
    }
  }

  @Test func sessionUsersAreNamesOrNumbers() throws {
    let configuration = try ConfigLoader.parse("session_users: [root, 1000]\n", file: "c.yaml")
    #expect(configuration.sessionUsers == [SessionUser(name: "root", uid: 0), SessionUser(name: "1000", uid: 1000)])
  }
}

/// What the built-in rules cover, and what they leave alone.
@Suite struct BuiltInRulesTests {
  static let rules = AppRules(user: [])

  @Test(arguments: BuiltInRules.terminals + BuiltInRules.editors + BuiltInRules.editorPrefixes.map { $0 + "idea" })
  func terminalsAndCodeEditorsGetNoProseAids(app: String) throws {
    let rule = try #require(Self.rules.first(matching: FocusReport(window: 1, app: app)))
    let applied = rule.rule.settings.applied(to: EngineConfiguration())
    #expect(!applied.autocapitalize && !applied.doubleSpacePeriod && applied.enabled && applied.expandsSnippets)
  }

  @Test(arguments: ["firefox", "org.gnome.TextEditor", "thunderbird", "org.telegram.desktop", "", "libreoffice-writer"])
  func proseAppsKeepTheGlobalSettings(app: String) {
    #expect(Self.rules.first(matching: FocusReport(window: 1, app: app)) == nil)
  }

  @Test(arguments: [FieldRole.password, .pin])
  func secretFieldsAreAPurePassThroughAnywhere(role: FieldRole) throws {
    let rule = try #require(Self.rules.first(matching: FocusReport(window: 1, app: "foot", role: role)))
    #expect(rule.rule.settings.enabled == false)
  }

  @Test func theListsHaveNoDuplicatesAndNameNoProseApp() {
    let all = (BuiltInRules.terminals + BuiltInRules.editors).map { $0.lowercased() }
    #expect(Set(all).count == all.count)
    #expect(all.allSatisfy { !$0.isEmpty })
    // Names that are also words of other programs stay out: Terminology's
    // X11 instance is "main", KWrite and gedit are for prose as much as code.
    for word in ["main", "kwrite", "org.kde.kwrite", "gedit", "org.gnome.texteditor", "firefox"] {
      #expect(!all.contains(word))
    }
  }

  @Test(arguments: ["XTERM", "org.gnome.terminal", "JetBrains-Idea-CE", "apache netbeans ide 22"])
  func namesMatchWithoutRegardToCase(app: String) {
    #expect(Self.rules.first(matching: FocusReport(window: 1, app: app)) != nil)
  }
}

/// Focus changes in typing scripts: the rules, exactly as the daemon applies
/// them.
@Suite struct FocusScenarioTests {
  static let rulesConfig = """
    apps:
      - app: "^org.mozilla.firefox$"
        title: "Gmail"
        autocapitalize: false
      - app: "^keepassxc$"
        enabled: false
      - app: "^chat$"
        snippets: false
    matches:
      - trigger: ";sig"
        replace: "Best regards"
    """

  @Test(arguments: [
    // The issue's own examples: a terminal and a code editor, with the defaults.
    ("focus foot\ntype \"ls -la\\ncd src\\ngit status\\n\"", "ls -la\ncd src\ngit status\n"),
    ("focus code\ntype \"if x:\\nreturn y\"", "if x:\nreturn y"),
    ("focus jetbrains-pycharm\ntype \"x = 1.  y\"", "x = 1.  y"),
    ("focus org.gnome.TextEditor\ntype \"if x:\\nreturn y\"", "if x:\nReturn y"),
    // A password field: two spaces stay two spaces, wherever it is.
    ("focus firefox password\ntype \"secret  word\"", "secret  word"),
    ("focus firefox entry\ntype \"secret  word\"", "secret. Word"),
    // The focus leaving a terminal gives the aids back; the text before is unknown.
    ("focus foot\ntype \"done.  \"\nfocus firefox\ntype \"it is  so\"", "done.  it is. So"),
    // The config's rules, before the built-in ones.
    ("focus org.mozilla.firefox - \"Inbox - Gmail\"\ntype \"say hi.  there\"", "say hi.  there"),
    ("focus org.mozilla.firefox - News\ntype \"say hi.  there\"", "say hi.  There"),
    ("focus keepassxc\ntype \";sig  x\"", ";sig  x"),
    ("focus chat\ntype \";sig  x\"", ";sig. X"),
    ("focus firefox\ntype \";sig\"", "Best regards"),
  ])
  func theRulesChooseTheAids(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.rulesConfig).text == shown)
  }

  @Test func aRuleOfTheConfigOverridesABuiltInOne() throws {
    let config = "apps:\n  - app: \"^foot$\"\n    autocapitalize: true\n"
    #expect(try Simulation.run("focus foot\ntype \"ls x  cd\"", config: config).text == "ls x. Cd")
  }

  @Test(arguments: [
    ("focus", "focus takes an app id"),
    ("focus foot secret", "unknown role 'secret'"),
    ("focus foot - \"unclosed", "bad string literal"),
  ])
  func aBadFocusLineIsAScriptError(line: String, message: String) {
    #expect {
      try Script.parse(line)
    } throws: { error in
      (error as? ScriptError)?.message.contains(message) == true
    }
  }

  @Test func theSimulateCommandTakesFocusLines() throws {
    let result = try VKBDBinary.run(["simulate"], input: "focus kitty\ntype \"make.  make\\n\"\n")
    #expect(result.status == 0 && result.output == "make.  make\n", "\(result)")
  }
}

/// Unknown stays unknown: a window whose fields were reported, reporting
/// none while it keeps the focus, gets no aids.
@Suite struct UnknownFieldTests {
  static let global = EngineConfiguration()

  static func context() -> (FocusContext, AppRules, Engine) {
    let engine = Engine(
      layout: Simulation.layout("us"), configuration: global, snippets: SnippetMatcher([]), world: .testing)
    return (FocusContext(), AppRules(user: []), engine)
  }

  @Test func aWindowThatShowedFieldsAndNowShowsNoneIsSecret() {
    var (context, rules, engine) = Self.context()
    context.update(FocusReport(window: 1, app: "firefox"), rules: rules, global: Self.global, engine: engine)
    context.update(FieldReport(source: "gnome-shell", role: .entry), rules: rules, global: Self.global, engine: engine)
    #expect(engine.configuration.enabled && !context.isFieldUnknown)
    // Firefox's password field leaves the input method: no field is reported.
    context.update(FieldReport(source: "gnome-shell"), rules: rules, global: Self.global, engine: engine)
    #expect(context.isFieldUnknown && context.matched?.role == .password)
    #expect(!engine.configuration.enabled && context.rule?.rule.origin == "built-in: secret fields")
    // A field again: the aids are back.
    context.update(FieldReport(source: "gnome-shell", role: .text), rules: rules, global: Self.global, engine: engine)
    #expect(engine.configuration.enabled && !context.isFieldUnknown)
  }

  /// A field that may be secret (a browser's that only IBus's free form
  /// tells of) gets no aids until a source tells of it with its text.
  @Test func aFieldThatMayBeSecretIsTakenForAPassword() {
    var (context, rules, engine) = Self.context()
    context.update(FocusReport(window: 1, app: "Chromium"), rules: rules, global: Self.global, engine: engine)
    context.update(
      FieldReport(source: "ibus", role: .text, maybeSecret: true), rules: rules, global: Self.global, engine: engine)
    #expect(context.matched?.role == .password && !engine.configuration.enabled)
    #expect(context.rule?.rule.origin == "built-in: secret fields")
    context.update(
      FieldReport(source: "ibus", role: .text, before: "Dear", isFieldStart: true), rules: rules,
      global: Self.global, engine: engine)
    #expect(context.matched?.role == .text && engine.configuration.enabled)
  }

  /// A page's `autocapitalize="off"` and `spellcheck="false"` stand over
  /// the rules, for that field only; a field asking for both gets both.
  @Test func whatAFieldRefusesIsOffInIt() {
    var (context, rules, engine) = Self.context()
    context.update(FocusReport(window: 1, app: "chromium"), rules: rules, global: Self.global, engine: engine)
    context.update(
      FieldReport(source: "input-method", role: .entry, capitals: false, correction: false), rules: rules,
      global: Self.global, engine: engine)
    #expect(!engine.configuration.autocapitalize && !engine.configuration.autocorrect)
    #expect(engine.configuration.enabled && engine.configuration.expandsSnippets)
    context.update(
      FieldReport(source: "input-method", role: .entry, capitals: false), rules: rules, global: Self.global,
      engine: engine)
    #expect(!engine.configuration.autocapitalize && engine.configuration.autocorrect)
    context.update(
      FieldReport(source: "input-method", role: .text, capitals: true, correction: true), rules: rules,
      global: Self.global, engine: engine)
    #expect(engine.configuration == Self.global)
  }

  @Test func anotherWindowStartsUnknownAsNothing() {
    var (context, rules, engine) = Self.context()
    context.update(FocusReport(window: 1, app: "firefox"), rules: rules, global: Self.global, engine: engine)
    context.update(FieldReport(source: "gnome-shell", role: .entry), rules: rules, global: Self.global, engine: engine)
    // An Xwayland window, whose fields no source reports: the input
    // method's "no field" comes after its focus report, and the window's
    // rule applies as before.
    context.update(FocusReport(window: 2, app: "xterm"), rules: rules, global: Self.global, engine: engine)
    context.update(FieldReport(source: "gnome-shell"), rules: rules, global: Self.global, engine: engine)
    #expect(!context.isFieldUnknown && context.rule?.rule.origin == "built-in: terminals")
    context.update(
      FocusReport(window: 3, app: "org.gnome.TextEditor"), rules: rules, global: Self.global, engine: engine)
    #expect(!context.isFieldUnknown && engine.configuration.enabled && context.rule == nil)
  }

  @Test func noAgentIsNoUnknownField() {
    var (context, rules, engine) = Self.context()
    context.update(FocusReport(window: 1, app: "firefox"), rules: rules, global: Self.global, engine: engine)
    context.update(FieldReport(source: "at-spi", role: .entry), rules: rules, global: Self.global, engine: engine)
    context.update(nil as FieldReport?, rules: rules, global: Self.global, engine: engine)
    #expect(!context.isFieldUnknown && engine.configuration.enabled)
  }

  @Test func statusAndDoctorSayIt() {
    let focus = FocusStatus(
      app: "firefox", role: "unknown", fieldSource: "gnome-shell", rule: 1, ruleOrigin: "built-in: secret fields",
      settings: "enabled: false", seat: "logind", activeUsers: [1000],
      agents: [AgentStatus(uid: 1000, pid: 7, source: "gnome-shell", active: true, fields: "gnome-shell+at-spi")])
    let shown = Report.focus(focus)
    #expect(shown.contains("firefox, a field no source sees (taken as secret)"))
    var maybe = focus
    maybe.role = "maybe-secret"
    #expect(Report.focus(maybe).contains("firefox, a field that may be secret (taken as secret)"))
    #expect(!shown.contains("it asks for"))
    maybe.refused = ["capitals", "correction"]
    #expect(Report.focus(maybe).contains("from gnome-shell; it asks for no capitals and no correction"))
    #expect(shown.contains("gnome-shell, fields from gnome-shell+at-spi, counts"))
    let coverage = FieldCoverage.describe("gnome-shell+at-spi")
    #expect(coverage.hasPrefix("fields from GNOME Shell's input method") && coverage.contains(", then AT-SPI"))
    #expect(FieldCoverage.describe(nil).hasPrefix("no field source"))
    // On KDE: KWin's input method, or why not.
    #expect(FieldCoverage.describe("kwin+at-spi", focusSource: "kwin").hasPrefix("fields from KWin's input method"))
    #expect(!FieldCoverage.describe("kwin+at-spi", focusSource: "kwin").contains("falls back"))
    #expect(FieldCoverage.describe("at-spi", focusSource: "kwin").contains("vkbd falls back to AT-SPI"))
    #expect(FieldCoverage.describe("ibus+at-spi", focusSource: "x11").hasPrefix("fields from IBus's bus"))
  }
}
