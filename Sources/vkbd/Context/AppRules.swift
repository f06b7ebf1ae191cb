import AgentProtocol
import KeyboardEngine

/// What an app rule changes of the global settings; nil leaves a setting
/// as the config has it.
struct AppSettings: Equatable, Sendable {
  var enabled: Bool?
  var autocapitalize: Bool?
  var doubleSpacePeriod: Bool?
  var snippets: Bool?
  var backspaceAccelerates: Bool?
  var autocorrect: Bool?
  var smartPunctuation: Bool?
  var pasteShortcut: ExpansionConfiguration.PasteShortcut?
  /// The user's match files whose snippets do not fire here (an espanso
  /// app config's match set).
  var snippetFilesOff: Set<String>?

  /// `global` with these settings over it.
  func applied(to global: EngineConfiguration) -> EngineConfiguration {
    var result = global
    result.enabled = enabled ?? result.enabled
    result.autocapitalize = autocapitalize ?? result.autocapitalize
    result.doubleSpacePeriod = doubleSpacePeriod ?? result.doubleSpacePeriod
    result.expandsSnippets = snippets ?? result.expandsSnippets
    result.backspace.accelerate = backspaceAccelerates ?? result.backspace.accelerate
    result.autocorrect = autocorrect ?? result.autocorrect
    result.smartPunctuation = smartPunctuation ?? result.smartPunctuation
    result.expansion.pasteShortcut = pasteShortcut ?? result.expansion.pasteShortcut
    result.snippetFilesOff = snippetFilesOff ?? result.snippetFilesOff
    return result
  }

  /// The settings as the config writes them: `autocapitalize: false, …`.
  var description: String {
    var parts: [String] = []
    if let enabled { parts.append("enabled: \(enabled)") }
    if let autocapitalize { parts.append("autocapitalize: \(autocapitalize)") }
    if let doubleSpacePeriod { parts.append("double_space_period: \(doubleSpacePeriod)") }
    if let snippets { parts.append("snippets: \(snippets)") }
    if let backspaceAccelerates { parts.append("backspace.accelerate: \(backspaceAccelerates)") }
    if let autocorrect { parts.append("autocorrect: \(autocorrect)") }
    if let smartPunctuation { parts.append("smart_punctuation: \(smartPunctuation)") }
    if let pasteShortcut { parts.append("paste_shortcut: \(pasteShortcut.rawValue)") }
    if let snippetFilesOff { parts.append("\(snippetFilesOff.count) of the user's match files left out") }
    return parts.isEmpty ? "the global settings" : parts.joined(separator: ", ")
  }
}

/// How a rule recognizes an app: a regex of the config (espanso's
/// dialect, as triggers), or the built-in rules' lists of names. (A struct,
/// not an enum with two payloads: the tag an enum keeps in a pointer's
/// spare bits hides the pointer from LeakSanitizer, and the fuzz build
/// reports a leak.)
struct AppMatcher: CustomStringConvertible, Sendable {
  private var pattern: FilterRegex?
  /// Names and prefixes, folded to lowercase.
  private var names: Set<String> = []
  private var prefixes: [String] = []
  let description: String

  static func pattern(_ pattern: FilterRegex) -> AppMatcher {
    AppMatcher(pattern: pattern, description: "\"\(pattern)\"")
  }

  /// One of the names, or a name that starts with one of the prefixes,
  /// without regard to case.
  static func names(_ names: [String], prefixes: [String]) -> AppMatcher {
    AppMatcher(
      names: Set(names.map { $0.lowercased() }), prefixes: prefixes.map { $0.lowercased() },
      description: "one of " + (names + prefixes.map { $0 + "…" }).joined(separator: " "))
  }

  func matches(_ app: String) -> Bool {
    if let pattern { return pattern.matches(app) }
    let folded = app.lowercased()
    return names.contains(folded) || prefixes.contains { folded.hasPrefix($0) }
  }
}

/// One entry of `apps:` (or of the built-in list): matchers, all of which
/// must match the focused window, and the settings it then applies.
struct AppRule: Sendable {
  /// Tried on the app id, and on either field of an X11 WM_CLASS.
  var app: AppMatcher?
  /// Searched in the window title.
  var title: FilterRegex?
  /// The field roles it applies to; nil: any (or none).
  var roles: [FieldRole]?
  var settings: AppSettings
  /// Where it is written: `file:line`, or `built-in` and what it covers.
  var origin: String

  /// Whether every matcher matches `focus`. A report without a title or a
  /// role matches no title or role matcher.
  func matches(_ focus: FocusReport) -> Bool {
    if let app, !(app.matches(focus.app) || focus.instance.map(app.matches) == true) { return false }
    if let title, !(focus.title.map(title.matches) ?? false) { return false }
    if let roles, !(focus.role.map(roles.contains) ?? false) { return false }
    return true
  }

  /// The matchers as the config writes them: `app: "^foot$", role: terminal`.
  var matchers: String {
    var parts: [String] = []
    if let app { parts.append("app: \(app)") }
    if let title { parts.append("title: \"\(title)\"") }
    if let roles { parts.append("role: \(roles.map(\.rawValue).joined(separator: ", "))") }
    return parts.joined(separator: ", ")
  }
}

/// The rules tried in order on every focus report: the config's `apps:`,
/// then the built-in ones (``BuiltInRules``). The first whose matchers all
/// match applies its settings over the global ones.
struct AppRules: Sendable {
  var rules: [AppRule]

  /// The config's rules followed by the built-in ones.
  init(user: [AppRule]) { rules = user + BuiltInRules.rules }

  /// The first rule that matches `focus`, with its place in ``rules``. In
  /// a password or PIN field only a rule that names the role applies (the
  /// built-in one makes it a pure pass-through): a rule for the app does not.
  func first(matching focus: FocusReport) -> (index: Int, rule: AppRule)? {
    let secret = focus.role == .password || focus.role == .pin
    for (index, rule) in rules.enumerated() where rule.matches(focus) && (!secret || rule.roles != nil) {
      return (index, rule)
    }
    return nil
  }
}

/// What the daemon (and `vkbd simulate`) knows of the focused window and
/// text field, and the settings the rules chose for them. Titles and text
/// are kept only until the next report.
struct FocusContext {
  /// The focused window, nil while no agent of the active user reports.
  private(set) var focus: FocusReport?
  /// The focused text field, where an input method or the accessibility
  /// bus tells; its role stands over the window's. Its text is not kept.
  private(set) var field: FieldReport?

  /// Whether a field source reported a text field of the focused window
  /// since it has the focus (a report that came before the window's own
  /// is not counted: the two come on different connections).
  private var windowShowedFields = false

  /// Unknown stays unknown: a window whose fields a source reports has all
  /// of them reported, so when the source reports none while the window
  /// keeps the focus, the keys go to something vkbd cannot see: a button,
  /// or a field that left the input method (Firefox's password fields
  /// do). Such a field is taken as secret until a field is reported again
  /// or another window has the focus (vkbd-agent(1)).
  var isFieldUnknown: Bool { windowShowedFields && field != nil && field?.role == nil }

  /// What the rules match: the window, with the field's role when a field
  /// source knows it (a password's when the field is unknown or may be
  /// secret).
  var matched: FocusReport? {
    guard field?.role != nil || focus != nil else { return nil }
    var matched = focus ?? FocusReport(window: 0, app: "")
    matched.role = field?.maybeSecret == true ? .password : field?.role ?? (isFieldUnknown ? .password : focus?.role)
    return matched
  }
  /// The rule in force, with its place among the rules; nil: the global settings.
  private(set) var rule: (index: Int, rule: AppRule)?

  /// Takes a report (nil when no agent reports any more) and sets the
  /// engine's configuration: the first matching rule over `global`. The
  /// focus moving to another window makes the text before the cursor
  /// unknown; a window whose title changed keeps it.
  mutating func update(_ report: FocusReport?, rules: AppRules, global: EngineConfiguration, engine: Engine) {
    let moved = moves(to: report)
    focus = report
    if moved { windowShowedFields = false }
    apply(rules: rules, global: global, to: engine)
    if moved { engine.resetText() }
  }

  /// Whether `report` is of another window than the focused one (not the
  /// same one with another title).
  func moves(to report: FocusReport?) -> Bool {
    report?.window != focus?.window || report?.app != focus?.app
  }

  /// Takes a field report (nil when no agent reports any more): its role
  /// chooses the rule with the window, then its text before the cursor
  /// goes to the engine (``Engine/fieldReported(before:isFieldStart:)``).
  mutating func update(_ report: FieldReport?, rules: AppRules, global: EngineConfiguration, engine: Engine) {
    field = report.map { FieldReport(source: $0.source, role: $0.role, maybeSecret: $0.maybeSecret) }
    if report?.role != nil { windowShowedFields = true }
    if report == nil { windowShowedFields = false }
    apply(rules: rules, global: global, to: engine)
    if let before = report?.before {
      engine.fieldReported(before: Array(before.unicodeScalars), isFieldStart: report!.isFieldStart)
    }
  }

  /// Chooses the rule for the current focus and configures `engine` with
  /// it (also after a reload, on the new rules and engine).
  mutating func apply(rules: AppRules, global: EngineConfiguration, to engine: Engine) {
    rule = matched.flatMap(rules.first(matching:))
    var wanted = rule?.rule.settings.applied(to: global) ?? global
    // Without an agent's report vkbd cannot tell a terminal from a text
    // field: no word is corrected, no quote curled (DESIGN 9, rule 1).
    if matched == nil {
      wanted.autocorrect = false
      wanted.smartPunctuation = false
    }
    if engine.configuration != wanted { engine.configuration = wanted }
  }
}
