/// One snippet: the triggers that fire it and the text that replaces them
/// (DESIGN 3.5), in espanso's match-file vocabulary.
public struct Snippet: Sendable {
  /// What the user types; none empty. Empty for a regex snippet.
  public var triggers: [String]
  /// espanso's `regex`: a pattern searched at the end of the recent text
  /// instead of `triggers`; its named groups are variables.
  public var regex: TriggerRegex?
  /// The variables, in the order they are worked out (each may use the
  /// ones before it).
  public var variables: [SnippetVariable] = []
  /// The replacement, with its variable references still to render.
  public var replacement: Template
  /// The trigger fires only after a separator or at the start of the text.
  public var leftWord = false
  /// The trigger fires only when a separator follows it.
  public var rightWord = false
  /// The case the trigger was typed in carries over to the replacement.
  public var propagateCase = false
  /// What a trigger typed all in capitals does to the replacement.
  public var uppercaseStyle = UppercaseStyle.uppercase
  /// A name for listings and the picker.
  public var label: String?
  /// More words the picker finds it by (espanso's `search_terms`).
  public var searchTerms: [String] = []
  /// Where the snippet is defined (`file:line`), for messages.
  public var origin: String
  /// Its trigger opens the picker on every snippet instead (espanso's
  /// `search_trigger`): the trigger goes, nothing is typed, and the
  /// picker never lists it.
  public var opensSearch = false

  /// The file of ``origin``: what stands before its last colon (all of it
  /// when it has none).
  public var originFile: Substring { origin.lastIndex(of: ":").map { origin[..<$0] } ?? origin[...] }

  /// The line of ``origin``, when it ends with one.
  public var originLine: Int? { origin.lastIndex(of: ":").flatMap { Int(origin[origin.index(after: $0)...]) } }

  /// Makes a snippet.
  public init(triggers: [String], replacement: Template, origin: String) {
    self.triggers = triggers
    self.replacement = replacement
    self.origin = origin
  }

  /// Makes a snippet with a plain replacement (tests, starter snippets).
  public init(trigger: String, replace text: String, origin: String = "(inline)") {
    self.init(triggers: [trigger], replacement: Template(text), origin: origin)
  }

  /// The marker of the cursor position in a replacement (espanso's `$|$`).
  public static let cursorHint = "$|$"

  /// The replacement as its file writes it: the text, with `{{name}}` or
  /// `{{name.field}}` where a variable goes.
  public var writtenReplacement: String {
    var text = ""
    for part in replacement.parts {
      switch part {
      case .text(let literal): text += literal
      case .value(let index, let field):
        text += "{{" + variables[index].name + (field.map { "." + $0 } ?? "") + "}}"
      }
    }
    return text
  }

  /// What the picker shows for it: the label, else the replacement's
  /// first line that has text, at most `limit` characters (an ellipsis
  /// where it is cut), control characters as spaces.
  public func displayText(limit: Int = 80) -> String {
    let source = label ?? writtenReplacement
    let line =
      source.split(whereSeparator: \.isNewline).first { !$0.allSatisfy(\.isWhitespace) }.map(String.init) ?? ""
    var shown = String.UnicodeScalarView()
    for scalar in line.unicodeScalars {
      if shown.count == limit {
        shown.removeLast()
        shown.append("…")
        break
      }
      shown.append(scalar.properties.generalCategory == .control ? " " : scalar)
    }
    return String(shown)
  }

  /// The length the picker ranks by: the label's, else the replacement's
  /// literal text's, in characters.
  var displayLength: Int {
    if let label { return label.unicodeScalars.count }
    var length = 0
    for case .text(let literal) in replacement.parts { length += literal.unicodeScalars.count }
    return length
  }

  /// Whether a variable needs the user's session (a program, the clipboard,
  /// a dialog): such a snippet waits for the session agent.
  public var needsSession: Bool {
    variables.contains { if case .session = $0.kind { true } else { false } }
  }
}

/// A text with references to variables: espanso's `{{name}}` and
/// `{{name.field}}`.
public struct Template: Sendable, Equatable, ExpressibleByStringLiteral {
  /// Literal text, or the value of the variable at an index of the
  /// snippet's ``Snippet/variables`` (one field of it for a form).
  public enum Part: Sendable, Equatable {
    case text(String)
    case value(Int, field: String?)
  }

  public var parts: [Part]

  public init(parts: [Part]) { self.parts = parts }

  /// A template of plain text.
  public init(_ text: String) { parts = text.isEmpty ? [] : [.text(text)] }

  public init(stringLiteral text: String) { self.init(text) }

  /// The text with each reference replaced by its value; a reference whose
  /// value is not known yet renders empty.
  func render(_ values: [VariableValue?]) -> String {
    var result = ""
    for part in parts {
      switch part {
      case .text(let text): result += text
      case .value(let index, let field):
        guard let value = values[index] else { continue }
        result += field.map { value.fields[$0] ?? "" } ?? value.text
      }
    }
    return result
  }

  /// The indices of the variables it refers to.
  public var references: [Int] {
    parts.compactMap { if case .value(let index, _) = $0 { index } else { nil } }
  }
}

/// A variable of a snippet, worked out when the snippet fires.
public struct SnippetVariable: Sendable, Equatable {
  public var name: String
  public var kind: Kind

  public init(name: String, kind: Kind) {
    self.name = name
    self.kind = kind
  }

  public enum Kind: Sendable, Equatable {
    /// The local date and time in a strftime `format`, `offsetSeconds` from
    /// now, with month and day names in `locale` (a POSIX locale name) when
    /// the system has it.
    case date(format: Template, offsetSeconds: Int64, locale: String?)
    /// A fixed text.
    case echo(Template)
    /// One of the choices, at random.
    case random([Template])
    /// Another snippet's replacement (espanso's nested `match`), by trigger.
    case match(trigger: String)
    /// What a named group of the regex trigger matched.
    case capture
    /// Something only the user's session can give (``SessionVariable``).
    case session(SessionVariable)
  }
}

/// A variable worked out in the user's session by the session agent (never
/// by the daemon, DESIGN 7).
public enum SessionVariable: Sendable, Equatable {
  /// A shell command's standard output.
  case shell(command: Template, shell: String?, trim: Bool, debug: Bool)
  /// A program's standard output; the first argument is the program.
  case script(arguments: [Template], trim: Bool)
  /// The clipboard's text.
  case clipboard
  /// The user picks one of `values` in a dialog.
  case choice([SessionCall.Choice])
  /// The user fills a form in a dialog: `layout` with `[[field]]` holes.
  case form(layout: Template, fields: [SessionCall.FormField])

  /// The call with its templates rendered from `values`.
  func call(_ values: [VariableValue?]) -> SessionCall {
    switch self {
    case .shell(let command, let shell, let trim, let debug):
      return .shell(command: command.render(values), shell: shell, trim: trim, debug: debug)
    case .script(let arguments, let trim):
      return .script(arguments: arguments.map { $0.render(values) }, trim: trim)
    case .clipboard: return .clipboard
    case .choice(let choices): return .choice(choices)
    case .form(let layout, let fields): return .form(layout: layout.render(values), fields: fields)
    }
  }
}

/// A session variable with its values filled in: what the daemon asks the
/// session agent to work out.
public enum SessionCall: Sendable, Equatable {
  case shell(command: String, shell: String?, trim: Bool, debug: Bool)
  case script(arguments: [String], trim: Bool)
  case clipboard
  case choice([Choice])
  case form(layout: String, fields: [FormField])
  /// Keep the clipboard's content, and put `text` in it (a long expansion
  /// is pasted).
  case paste(String)
  /// Put back what the clipboard held before the paste, a moment after it.
  case restoreClipboard

  /// One value of a `choice`: what the dialog shows, and what is typed.
  public struct Choice: Sendable, Equatable {
    public var label: String
    public var id: String
    public init(label: String, id: String) {
      self.label = label
      self.id = id
    }
  }

  /// One field of a form: a text entry, or a pick among `choices`.
  public struct FormField: Sendable, Equatable {
    public var name: String
    public var choices: [String]
    public var defaultValue: String
    public init(name: String, choices: [String] = [], defaultValue: String = "") {
      self.name = name
      self.choices = choices
      self.defaultValue = defaultValue
    }
  }

  /// The kind, for messages (never the command or its output).
  public var kind: String {
    switch self {
    case .shell: "shell"
    case .script: "script"
    case .clipboard: "clipboard"
    case .choice: "choice"
    case .form: "form"
    case .paste: "paste"
    case .restoreClipboard: "restore-clipboard"
    }
  }
}

/// A variable's value: its text, and for a form, its fields.
public struct VariableValue: Sendable, Equatable {
  public var text: String
  public var fields: [String: String]
  public init(_ text: String, fields: [String: String] = [:]) {
    self.text = text
    self.fields = fields
  }
}

/// espanso's `uppercase_style`: what a trigger typed in capitals does.
public enum UppercaseStyle: String, Sendable, CaseIterable {
  /// The whole replacement in capitals.
  case uppercase
  /// The replacement's first letter in capitals.
  case capitalize
  /// The first letter of each word in capitals.
  case capitalizeWords = "capitalize_words"
}
