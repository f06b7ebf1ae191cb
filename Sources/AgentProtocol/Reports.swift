/// What the focused text field is for, as far as the desktop says.
public enum FieldRole: String, CaseIterable, Codable, Sendable {
  /// Text of several lines: a document, a chat box.
  case text
  /// A single-line entry.
  case entry
  case terminal
  case password
  /// A numeric PIN: secret, like a password.
  case pin
  case url
  case email
  case number

  public init(from decoder: Decoder) throws {
    guard let role = FieldRole(rawValue: try decoder.singleValueContainer().decode(String.self)) else {
      let known = Self.allCases.map(\.rawValue).joined(separator: ", ")
      throw AgentProtocolError("field 'role' must be one of \(known)")
    }
    self = role
  }
}

/// The agent's first message: its version, and where its focus reports
/// come from (`wlr-foreign-toplevel`, `x11`, `gnome-shell`, `kwin`).
public struct Hello: AgentProtocolMessage {
  public static let type = "hello"
  public var agent: String
  public var source: String
  /// Whether it can show the snippet picker (absent: it cannot).
  public var picker: Bool?
  /// Where its field reports come from, best first, joined by `+`
  /// (`input-method`, `gnome-shell+at-spi`); absent: nowhere.
  public var fields: String?

  public init(agent: String, source: String, picker: Bool? = nil, fields: String? = nil) {
    self.agent = agent
    self.source = source
    self.picker = picker
    self.fields = fields
  }

  public enum CodingKeys: String, CodingKey, CaseIterable { case agent, source, picker, fields }

  public func validate() throws(AgentProtocolError) {
    // The daemon logs these: plain words only.
    try Check.word(agent, "agent")
    try Check.word(source, "source")
    if let fields { try Check.word(fields, "fields") }
  }
}

/// The window that has the keyboard focus: another window, or the focused
/// one's title or role changed.
public struct FocusReport: AgentProtocolMessage {
  public static let type = "focus"
  /// An id the agent gives each window, the same for as long as the window
  /// lives: a new one means another window has the focus, the same one with
  /// another title a window whose title changed. 0: no window has it.
  public var window: Int64
  /// The Wayland app_id, or the class field of the X11 WM_CLASS; empty
  /// when the window has none.
  public var app: String
  /// The instance field of the X11 WM_CLASS (X11 windows only).
  public var instance: String?
  /// The window title. Private: never logged, kept only until the next
  /// report.
  public var title: String?
  /// The focused field's role, where the desktop says it.
  public var role: FieldRole?

  public init(window: Int64, app: String, instance: String? = nil, title: String? = nil, role: FieldRole? = nil) {
    self.window = window
    self.app = app
    self.instance = instance
    self.title = title
    self.role = role
  }

  public enum CodingKeys: String, CodingKey, CaseIterable { case window, app, instance, title, role }

  public func validate() throws(AgentProtocolError) {
    guard window >= 0 else { throw AgentProtocolError("field 'window' must not be negative") }
    try Check.length(app, "app", limit: AgentProtocol.maximumName)
    try Check.length(instance ?? "", "instance", limit: AgentProtocol.maximumName)
    try Check.length(title ?? "", "title", limit: AgentProtocol.maximumTitle)
  }
}

/// The focused text field, as an input method or the accessibility bus
/// sees it. Private: the text is never logged and is kept only until the
/// next report.
public struct FieldReport: AgentProtocolMessage {
  public static let type = "field"
  /// Where it comes from: `input-method` or `at-spi`.
  public var source: String
  /// What the field is for; nil when no text field has the focus (or the
  /// source cannot tell).
  public var role: FieldRole?
  /// The text before the cursor, at most ``AgentProtocol/maximumFieldText``
  /// characters; nil when the source does not say.
  public var before: String?
  /// Whether `before` starts at the start of the field (it is all the text
  /// before the cursor), or of the cursor's paragraph where the application
  /// sends only that (GTK's text views, Firefox's textareas): a sentence's
  /// start either way. On the wire `start`, only when true.
  public var isFieldStart: Bool
  /// Whether the field may be secret for all the agent can tell: its only
  /// source gives every field of the application the same purpose (IBus's
  /// free form, which Chromium gives its password fields too). The daemon
  /// takes it for a password. Never with text. On the wire `maybe-secret`,
  /// only when true.
  public var maybeSecret: Bool
  /// What the field's hints ask of automatic capitals: true, capitals at
  /// the start of a sentence; false, none (a page's
  /// `autocapitalize="off"`, a lowercase hint); nil, nothing said.
  public var capitals: Bool?
  /// What they ask of spelling correction: false, none (a page's
  /// `spellcheck="false"`); nil, nothing said.
  public var correction: Bool?

  public init(
    source: String, role: FieldRole? = nil, before: String? = nil, isFieldStart: Bool = false,
    maybeSecret: Bool = false, capitals: Bool? = nil, correction: Bool? = nil
  ) {
    self.source = source
    self.role = role
    self.before = before
    self.isFieldStart = isFieldStart
    self.maybeSecret = maybeSecret
    self.capitals = capitals
    self.correction = correction
  }

  public enum CodingKeys: String, CodingKey, CaseIterable {
    case source, role, before
    case isFieldStart = "start"
    case maybeSecret = "maybe-secret"
    case capitals, correction
  }

  public init(from decoder: Decoder) throws {
    let fields = try decoder.container(keyedBy: CodingKeys.self)
    source = try fields.decode(String.self, forKey: .source)
    role = try fields.decodeIfPresent(FieldRole.self, forKey: .role)
    before = try fields.decodeIfPresent(String.self, forKey: .before)
    isFieldStart = try fields.decodeIfPresent(Bool.self, forKey: .isFieldStart) ?? false
    maybeSecret = try fields.decodeIfPresent(Bool.self, forKey: .maybeSecret) ?? false
    capitals = try fields.decodeIfPresent(Bool.self, forKey: .capitals)
    correction = try fields.decodeIfPresent(Bool.self, forKey: .correction)
  }

  public func encode(to encoder: Encoder) throws {
    var fields = encoder.container(keyedBy: CodingKeys.self)
    try fields.encode(source, forKey: .source)
    try fields.encodeIfPresent(role, forKey: .role)
    try fields.encodeIfPresent(before, forKey: .before)
    if isFieldStart { try fields.encode(true, forKey: .isFieldStart) }
    if maybeSecret { try fields.encode(true, forKey: .maybeSecret) }
    try fields.encodeIfPresent(capitals, forKey: .capitals)
    try fields.encodeIfPresent(correction, forKey: .correction)
  }

  public func validate() throws(AgentProtocolError) {
    try Check.word(source, "source")
    if let before {
      try Check.length(before, "before", limit: AgentProtocol.maximumMessage)
      try Check.characters(before, "before", limit: AgentProtocol.maximumFieldText)
    } else if isFieldStart {
      throw AgentProtocolError("field 'start' needs field 'before'")
    }
    if maybeSecret && (before != nil || role == nil) {
      throw AgentProtocolError("field 'maybe-secret' needs field 'role' and no field 'before'")
    }
    if role == nil && (capitals != nil || correction != nil) {
      throw AgentProtocolError("fields 'capitals' and 'correction' need field 'role'")
    }
  }
}

/// The desktop's keyboard layout: the XKB names it compiles its keymap
/// from, and the group in effect.
public struct LayoutReport: AgentProtocolMessage {
  public static let type = "layout"
  /// Where it comes from: `sway`, `x11`, `gnome-shell`, `kwin`.
  public var source: String
  public var rules: String
  public var model: String
  /// One to four layouts, comma-separated (`us,de`).
  public var layout: String
  public var variant: String
  public var options: String
  /// The group in effect, 0 first.
  public var group: Int
  /// The session's locale for characters (`LC_CTYPE`, as `pt_BR.UTF-8`),
  /// whose Compose file its applications read; empty when unknown (and
  /// then not on the wire).
  public var locale: String

  public init(
    source: String, rules: String = "evdev", model: String = "pc105", layout: String, variant: String = "",
    options: String = "", group: Int = 0, locale: String = ""
  ) {
    self.source = source
    self.rules = rules
    self.model = model
    self.layout = layout
    self.variant = variant
    self.options = options
    self.group = group
    self.locale = locale
  }

  public enum CodingKeys: String, CodingKey, CaseIterable {
    case source, rules, model, layout, variant, options, group, locale
  }

  public init(from decoder: Decoder) throws {
    let fields = try decoder.container(keyedBy: CodingKeys.self)
    source = try fields.decode(String.self, forKey: .source)
    rules = try fields.decode(String.self, forKey: .rules)
    model = try fields.decode(String.self, forKey: .model)
    layout = try fields.decode(String.self, forKey: .layout)
    variant = try fields.decode(String.self, forKey: .variant)
    options = try fields.decode(String.self, forKey: .options)
    group = try fields.decode(Int.self, forKey: .group)
    // Given, a locale is one: an empty one is a mistake, not an absence.
    let locale = try fields.decodeIfPresent(String.self, forKey: .locale)
    if let locale, !Self.isLocaleName(locale) { throw Self.badLocale }
    self.locale = locale ?? ""
  }

  private static let badLocale = AgentProtocolError("field 'locale' must be 1 to 64 letters, digits and .+-_@")

  public func encode(to encoder: Encoder) throws {
    var fields = encoder.container(keyedBy: CodingKeys.self)
    for (key, value) in [
      (CodingKeys.source, source), (.rules, rules), (.model, model), (.layout, layout), (.variant, variant),
      (.options, options),
    ] {
      try fields.encode(value, forKey: key)
    }
    try fields.encode(group, forKey: .group)
    if !locale.isEmpty { try fields.encode(locale, forKey: .locale) }
  }

  /// Whether `text` may be sent as a locale: 1 to 64 letters, digits and
  /// `.+-_@` (`pt_BR.UTF-8`, `sr_RS.UTF-8@latin`).
  public static func isLocaleName(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.count <= 64
      && text.utf8.allSatisfy { Check.wordBytes.contains($0) || $0 == UInt8(ascii: "@") }
  }

  public func validate() throws(AgentProtocolError) {
    try Check.word(source, "source")
    for (name, value) in [("rules", rules), ("model", model), ("layout", layout), ("variant", variant)] {
      try Check.xkbName(value, name)
    }
    try Check.xkbName(options, "options")
    let groups = layout.split(separator: ",", omittingEmptySubsequences: false).count
    guard !layout.isEmpty, groups <= AgentProtocol.maximumGroups else {
      throw AgentProtocolError("field 'layout' must name 1 to \(AgentProtocol.maximumGroups) layouts")
    }
    guard group >= 0, group < groups else {
      throw AgentProtocolError("field 'group' must be 0 to \(groups - 1) for \(groups) layouts")
    }
    guard locale.isEmpty || Self.isLocaleName(locale) else { throw Self.badLocale }
  }

  /// Whether the daemon takes it: a report it refuses would end the
  /// agent's connection.
  public var isWellFormed: Bool { (try? validate()) != nil }
}
