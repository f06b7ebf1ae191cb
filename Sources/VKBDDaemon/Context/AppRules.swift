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
