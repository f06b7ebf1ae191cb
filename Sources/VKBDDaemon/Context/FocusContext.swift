import AgentProtocol
import KeyboardEngine

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
    field = report.map {
      var kept = $0
      kept.before = nil
      kept.isFieldStart = false
      return kept
    }
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
    // What the field asks for stands over the rules: a page's
    // `autocapitalize="off"` or `spellcheck="false"` (vkbd-agent(1)).
    if field?.capitals == false { wanted.autocapitalize = false }
    if field?.correction == false { wanted.autocorrect = false }
    if engine.configuration != wanted { engine.configuration = wanted }
  }
}
