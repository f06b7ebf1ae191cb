/// The messages between the session agent (`vkbd-agent`, one per user
/// session) and the daemon (DESIGN 7): one flat JSON object per line each
/// way, over the daemon's agent socket. Every message carries `version`
/// and `type`; a message of another version, with an unknown field, or over
/// the bounds here is refused whole.
public enum AgentProtocol {
  /// The version spoken. Both sides refuse a message of another.
  public static let version: Int64 = 1
  /// Where the daemon listens for agents, unless its config says otherwise.
  public static let defaultSocket = "/run/vkbd/agent.sock"
  /// The longest message either side reads, newline included.
  public static let maximumMessage = 8192
  /// The longest `value` message (a program's output), newline included.
  public static let maximumValueMessage = 1 << 19
  /// The most characters of a variable's value: an expansion's longest
  /// replacement.
  public static let maximumValue = 65_536
  /// The most match files of a user an agent sends, and their most bytes
  /// in all (each file's message is at most ``maximumValueMessage``).
  public static let maximumSnippetFiles = 1000
  public static let maximumSnippetBytes = 16 << 20
  /// The longest window title a report may carry, in UTF-8 bytes: the agent
  /// cuts longer ones (``truncated(_:toBytes:)``).
  public static let maximumTitle = 1024
  /// The longest app id, WM_CLASS field or source name, in UTF-8 bytes.
  public static let maximumName = 256
  /// The most characters (Unicode scalars) of a field's text before the
  /// cursor a report carries: the agent keeps the last ones
  /// (``lastCharacters(_:)``).
  public static let maximumFieldText = 256
  /// The most groups a layout report names (XKB's limit).
  public static let maximumGroups = 4

  /// The last ``maximumFieldText`` characters of `text`, and whether that
  /// is all of it.
  public static func lastCharacters(_ text: Substring) -> (text: String, isWhole: Bool) {
    let scalars = text.unicodeScalars
    guard scalars.count > maximumFieldText else { return (String(text), true) }
    return (String(String.UnicodeScalarView(scalars.suffix(maximumFieldText))), false)
  }

  /// `text` cut to at most `limit` UTF-8 bytes, at a character boundary.
  public static func truncated(_ text: String, toBytes limit: Int) -> String {
    guard text.utf8.count > limit else { return text }
    var count = 0
    var result = String.UnicodeScalarView()
    for scalar in text.unicodeScalars {
      count += String(scalar).utf8.count
      if count > limit { break }
      result.append(scalar)
    }
    return String(result)
  }
}

/// What the focused text field is for, as far as the desktop says.
public enum FieldRole: String, CaseIterable, Sendable {
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
}

/// The window that has the keyboard focus.
public struct FocusReport: Equatable, Sendable {
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
}

/// The focused text field, as an input method or the accessibility bus
/// sees it. Private: the text is never logged and is kept only until the
/// next report.
public struct FieldReport: Equatable, Sendable {
  /// Where it comes from: `input-method` or `at-spi`.
  public var source: String
  /// What the field is for; nil when no text field has the focus (or the
  /// source cannot tell).
  public var role: FieldRole?
  /// The text before the cursor, at most ``AgentProtocol/maximumFieldText``
  /// characters; nil when the source does not say.
  public var before: String?
  /// Whether `before` starts at the start of the field (it is all the text
  /// before the cursor).
  public var isFieldStart: Bool

  public init(source: String, role: FieldRole? = nil, before: String? = nil, isFieldStart: Bool = false) {
    self.source = source
    self.role = role
    self.before = before
    self.isFieldStart = isFieldStart
  }
}

/// The desktop's keyboard layout: the XKB names it compiles its keymap
/// from, and the group in effect.
public struct LayoutReport: Equatable, Sendable {
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
  /// whose Compose file its applications read; empty when unknown.
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
}

extension LayoutReport {
  /// Whether `text` may be sent as a locale: 1 to 64 letters, digits and
  /// `.+-_@` (`pt_BR.UTF-8`, `sr_RS.UTF-8@latin`).
  public static func isLocaleName(_ text: String) -> Bool {
    !text.isEmpty && text.utf8.count <= 64
      && text.utf8.allSatisfy { MessageFields.wordBytes.contains($0) || $0 == UInt8(ascii: "@") }
  }

  /// Whether the daemon takes it: its names are XKB names, it names one
  /// to four layouts and its group is one of them. A report it refuses
  /// would end the agent's connection.
  public var isWellFormed: Bool {
    (try? AgentMessage(decoding: AgentMessage.layout(self).encoded().dropLast())) == .layout(self)
  }
}

/// Why a message was refused. It never quotes the message: it may hold a
/// window title.
public struct AgentProtocolError: Error, Equatable, CustomStringConvertible, Sendable {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// What an agent sends the daemon.
public enum AgentMessage: Equatable, Sendable {
  /// The first message: the agent's version, and where its focus reports
  /// come from (`wlr-foreign-toplevel`, `x11`, `gnome-shell`, `kwin`).
  case hello(agent: String, source: String)
  /// The focus changed: another window, or the focused one's title or role.
  case focus(FocusReport)
  /// The focused text field changed, or its text before the cursor.
  case field(FieldReport)
  /// The desktop's layout or its group changed.
  case layout(LayoutReport)
  /// The answer to a ``DaemonMessage/variable(_:)`` request.
  case value(VariableAnswer)
  /// One of the user's own espanso match files, read by the agent as the
  /// user: its absolute path and its text.
  case snippetFile(path: String, text: String)
  /// The user's files sent since the last such message are all of them:
  /// `count` files, under the match directory `directory`.
  case snippetFilesEnd(directory: String, count: Int)

  /// The message as one line, newline included.
  public func encoded() -> [UInt8] {
    var fields: [(key: String, value: JSONValue)] = [("version", .integer(AgentProtocol.version))]
    switch self {
    case .hello(let agent, let source):
      fields += [("type", .string("hello")), ("agent", .string(agent)), ("source", .string(source))]
    case .focus(let focus):
      fields += [("type", .string("focus")), ("window", .integer(focus.window)), ("app", .string(focus.app))]
      if let instance = focus.instance { fields.append(("instance", .string(instance))) }
      if let title = focus.title { fields.append(("title", .string(title))) }
      if let role = focus.role { fields.append(("role", .string(role.rawValue))) }
    case .field(let field):
      fields += [("type", .string("field")), ("source", .string(field.source))]
      if let role = field.role { fields.append(("role", .string(role.rawValue))) }
      if let before = field.before { fields.append(("before", .string(before))) }
      if field.isFieldStart { fields.append(("start", .bool(true))) }
    case .layout(let layout):
      fields += [
        ("type", .string("layout")), ("source", .string(layout.source)), ("rules", .string(layout.rules)),
        ("model", .string(layout.model)), ("layout", .string(layout.layout)), ("variant", .string(layout.variant)),
        ("options", .string(layout.options)), ("group", .integer(Int64(layout.group))),
      ]
      if !layout.locale.isEmpty { fields.append(("locale", .string(layout.locale))) }
    case .value(let answer):
      fields += [("type", .string("value")), ("id", .integer(Int64(answer.id)))]
      switch answer.result {
      case .success(let value):
        fields.append(("text", .string(value.text)))
        if !value.fields.isEmpty { fields.append(("fields", .string(AgentProtocol.joined(value.fields)))) }
      case .failure(let reason): fields.append(("error", .string(reason.message)))
      }
    case .snippetFile(let path, let text):
      fields += [("type", .string("snippet-file")), ("path", .string(path)), ("text", .string(text))]
    case .snippetFilesEnd(let directory, let count):
      fields += [
        ("type", .string("snippet-files-end")), ("directory", .string(directory)), ("count", .integer(Int64(count))),
      ]
    }
    return FlatJSON.encode(fields) + [UInt8(ascii: "\n")]
  }

  /// Reads one line (without its newline).
  public init(decoding line: some Collection<UInt8>) throws(AgentProtocolError) {
    var message = try MessageFields(line)
    switch message.type {
    case "hello":
      // The daemon logs these two: plain words only.
      self = .hello(agent: try message.word("agent"), source: try message.word("source"))
    case "focus":
      let window = try message.integer("window")
      guard window >= 0 else { throw AgentProtocolError("field 'window' must not be negative") }
      var focus = FocusReport(window: window, app: try message.string("app", limit: AgentProtocol.maximumName))
      focus.instance = try message.optionalString("instance", limit: AgentProtocol.maximumName)
      focus.title = try message.optionalString("title", limit: AgentProtocol.maximumTitle)
      focus.role = try message.role()
      self = .focus(focus)
    case "field":
      var field = FieldReport(source: try message.word("source"))
      field.role = try message.role()
      if let before = try message.optionalString("before", limit: AgentProtocol.maximumMessage) {
        guard before.unicodeScalars.count <= AgentProtocol.maximumFieldText else {
          throw AgentProtocolError("field 'before' is longer than \(AgentProtocol.maximumFieldText) characters")
        }
        field.before = before
      }
      field.isFieldStart = try message.optionalBool("start") ?? false
      guard field.before != nil || !field.isFieldStart else {
        throw AgentProtocolError("field 'start' needs field 'before'")
      }
      self = .field(field)
    case "layout":
      var layout = LayoutReport(source: try message.word("source"), layout: "")
      layout.rules = try message.xkbName("rules")
      layout.model = try message.xkbName("model")
      layout.layout = try message.xkbName("layout")
      layout.variant = try message.xkbName("variant")
      layout.options = try message.xkbName("options")
      let groups = layout.layout.split(separator: ",", omittingEmptySubsequences: false).count
      guard !layout.layout.isEmpty, groups <= AgentProtocol.maximumGroups else {
        throw AgentProtocolError("field 'layout' must name 1 to \(AgentProtocol.maximumGroups) layouts")
      }
      let group = try message.integer("group")
      guard group >= 0, group < groups else {
        throw AgentProtocolError("field 'group' must be 0 to \(groups - 1) for \(groups) layouts")
      }
      layout.group = Int(group)
      if let locale = try message.optionalString("locale", limit: 64) {
        guard LayoutReport.isLocaleName(locale) else {
          throw AgentProtocolError("field 'locale' must be 1 to 64 letters, digits and .+-_@")
        }
        layout.locale = locale
      }
      self = .layout(layout)
    case "value":
      let id = try message.identifier()
      if let reason = try message.optionalString("error", limit: AgentProtocol.maximumMessage) {
        self = .value(VariableAnswer(id: id, result: .failure(AgentProtocolError(reason))))
      } else {
        let text = try message.string("text", limit: AgentProtocol.maximumValueMessage)
        guard text.unicodeScalars.count <= AgentProtocol.maximumValue else {
          throw AgentProtocolError("field 'text' is longer than \(AgentProtocol.maximumValue) characters")
        }
        let fields = try message.optionalString("fields", limit: AgentProtocol.maximumValueMessage)
        self = .value(
          VariableAnswer(id: id, result: .success(VariableValueText(text, fields: AgentProtocol.pairs(fields ?? "")))))
      }
    case "snippet-file":
      let path = try message.path("path")
      self = .snippetFile(path: path, text: try message.string("text", limit: AgentProtocol.maximumValueMessage))
    case "snippet-files-end":
      let directory = try message.path("directory")
      let count = try message.integer("count")
      guard (0...Int64(AgentProtocol.maximumSnippetFiles)).contains(count) else {
        throw AgentProtocolError("field 'count' must be 0 to \(AgentProtocol.maximumSnippetFiles)")
      }
      self = .snippetFilesEnd(directory: directory, count: Int(count))
    default:
      throw AgentProtocolError(
        "unknown message type (hello, focus, field, layout, value, snippet-file, snippet-files-end)")
    }
    try message.finish()
  }
}

/// What the daemon sends an agent.
public enum DaemonMessage: Equatable, Sendable {
  /// Whether the agent's reports count: sent on connecting and whenever it
  /// changes (a seat switch). An agent that becomes active reports its
  /// focus again.
  case session(active: Bool)
  /// Why the daemon closes the connection.
  case refused(String)
  /// Work out a snippet's variable in the user's session.
  case variable(VariableRequest)

  /// The message as one line, newline included.
  public func encoded() -> [UInt8] {
    var fields: [(key: String, value: JSONValue)] = [("version", .integer(AgentProtocol.version))]
    switch self {
    case .session(let active): fields += [("type", .string("session")), ("active", .bool(active))]
    case .refused(let reason): fields += [("type", .string("refused")), ("reason", .string(reason))]
    case .variable(let request):
      fields += [
        ("type", .string("variable")), ("id", .integer(Int64(request.id))), ("kind", .string(request.kind.rawValue)),
        ("arguments", .string(AgentProtocol.joined(request.arguments))), ("trim", .bool(request.trim)),
      ]
      if let shell = request.shell { fields.append(("shell", .string(shell))) }
      if !request.values.isEmpty { fields.append(("values", .string(AgentProtocol.joined(request.values)))) }
      if let layout = request.layout { fields.append(("layout", .string(layout))) }
      if !request.environment.isEmpty {
        fields.append(("environment", .string(AgentProtocol.joined(request.environment))))
      }
    }
    return FlatJSON.encode(fields) + [UInt8(ascii: "\n")]
  }

  /// Reads one line (without its newline).
  public init(decoding line: some Collection<UInt8>) throws(AgentProtocolError) {
    var message = try MessageFields(line)
    switch message.type {
    case "session": self = .session(active: try message.bool("active"))
    case "refused": self = .refused(try message.string("reason", limit: AgentProtocol.maximumMessage))
    case "variable":
      let id = try message.identifier()
      guard let kind = VariableRequest.Kind(rawValue: try message.word("kind")) else {
        throw AgentProtocolError(
          "field 'kind' must be one of shell, script, clipboard, choice, form, paste, restore-clipboard")
      }
      var request = VariableRequest(id: id, kind: kind)
      request.arguments = AgentProtocol.list(try message.string("arguments", limit: AgentProtocol.maximumValueMessage))
      request.trim = try message.bool("trim")
      request.shell = try message.optionalString("shell", limit: AgentProtocol.maximumName)
      request.values = AgentProtocol.list(
        try message.optionalString("values", limit: AgentProtocol.maximumMessage) ?? "")
      request.layout = try message.optionalString("layout", limit: AgentProtocol.maximumMessage)
      request.environment = AgentProtocol.pairs(
        try message.optionalString("environment", limit: AgentProtocol.maximumMessage) ?? "")
      self = .variable(request)
    default: throw AgentProtocolError("unknown message type (session, refused, variable)")
    }
    try message.finish()
  }
}

/// A message's fields, taken one by one; ``finish()`` refuses any left.
private struct MessageFields {
  private var fields: [(key: String, value: JSONValue)]
  let type: String

  init(_ line: some Collection<UInt8>) throws(AgentProtocolError) {
    guard line.count < AgentProtocol.maximumValueMessage else {
      throw AgentProtocolError("message longer than \(AgentProtocol.maximumValueMessage) bytes")
    }
    do {
      fields = try FlatJSON.parseObject(line)
    } catch {
      throw AgentProtocolError("not a JSON object: \(error.message)")
    }
    guard case .integer(let version)? = fields.first(where: { $0.key == "version" })?.value else {
      throw AgentProtocolError("field 'version' is missing or not a number")
    }
    guard version == AgentProtocol.version else {
      throw AgentProtocolError("protocol version \(version) is not spoken here (\(AgentProtocol.version) is)")
    }
    fields.removeAll { $0.key == "version" }
    guard let index = fields.firstIndex(where: { $0.key == "type" }), case .string(let type) = fields[index].value
    else { throw AgentProtocolError("field 'type' is missing or not a string") }
    fields.remove(at: index)
    self.type = type
  }

  private mutating func take(_ key: String) -> JSONValue? {
    guard let index = fields.firstIndex(where: { $0.key == key }) else { return nil }
    return fields.remove(at: index).value
  }

  mutating func optionalString(_ key: String, limit: Int) throws(AgentProtocolError) -> String? {
    switch take(key) {
    case nil, .null?: return nil
    case .string(let text)?:
      guard text.utf8.count <= limit else { throw AgentProtocolError("field '\(key)' is longer than \(limit) bytes") }
      return text
    default: throw AgentProtocolError("field '\(key)' must be a string")
    }
  }

  mutating func string(_ key: String, limit: Int) throws(AgentProtocolError) -> String {
    guard let text = try optionalString(key, limit: limit) else {
      throw AgentProtocolError("field '\(key)' is missing")
    }
    return text
  }

  /// A string of 1 to 64 letters, digits and `.+-_`.
  mutating func word(_ key: String) throws(AgentProtocolError) -> String {
    let text = try string(key, limit: 64)
    guard !text.isEmpty, text.utf8.allSatisfy({ Self.wordBytes.contains($0) }) else {
      throw AgentProtocolError("field '\(key)' must be letters, digits and .+-_")
    }
    return text
  }

  static let wordBytes = Set(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_".utf8)

  /// An absolute path of at most 4096 bytes, with no `..` in it.
  mutating func path(_ key: String) throws(AgentProtocolError) -> String {
    let path = try string(key, limit: 4096)
    guard path.hasPrefix("/"), !path.split(separator: "/").contains(".."), !path.contains("\u{0}") else {
      throw AgentProtocolError("field '\(key)' must be an absolute path without '..'")
    }
    return path
  }

  /// A request's id: a whole number that fits 32 bits.
  mutating func identifier() throws(AgentProtocolError) -> UInt32 {
    let id = try integer("id")
    guard let value = UInt32(exactly: id) else { throw AgentProtocolError("field 'id' must be 0 to \(UInt32.max)") }
    return value
  }

  mutating func integer(_ key: String) throws(AgentProtocolError) -> Int64 {
    switch take(key) {
    case .integer(let number)?: return number
    case nil: throw AgentProtocolError("field '\(key)' is missing")
    default: throw AgentProtocolError("field '\(key)' must be a whole number")
    }
  }

  mutating func optionalBool(_ key: String) throws(AgentProtocolError) -> Bool? {
    switch take(key) {
    case .bool(let flag)?: return flag
    case nil, .null?: return nil
    default: throw AgentProtocolError("field '\(key)' must be true or false")
    }
  }

  mutating func bool(_ key: String) throws(AgentProtocolError) -> Bool {
    guard let flag = try optionalBool(key) else { throw AgentProtocolError("field '\(key)' is missing") }
    return flag
  }

  /// An optional field role.
  mutating func role() throws(AgentProtocolError) -> FieldRole? {
    guard let role = try optionalString("role", limit: AgentProtocol.maximumName) else { return nil }
    guard let known = FieldRole(rawValue: role) else {
      throw AgentProtocolError(
        "field 'role' must be one of \(FieldRole.allCases.map(\.rawValue).joined(separator: ", "))")
    }
    return known
  }

  /// An XKB name list: letters, digits and `_-+:(),.` (what
  /// xkeyboard-config names are made of), possibly empty.
  mutating func xkbName(_ key: String) throws(AgentProtocolError) -> String {
    let text = try string(key, limit: AgentProtocol.maximumName)
    guard text.utf8.allSatisfy({ Self.xkbBytes.contains($0) }) else {
      throw AgentProtocolError("field '\(key)' must be XKB names: letters, digits and _-+:(),.")
    }
    return text
  }

  private static let xkbBytes = wordBytes.union("-+:(),.".utf8)

  /// Refuses the fields no one took.
  func finish() throws(AgentProtocolError) {
    if let unknown = fields.first { throw AgentProtocolError("unknown field '\(unknown.key.prefix(40))'") }
  }
}

/// A snippet variable that only the user's session can work out (DESIGN 7):
/// what the daemon asks the active user's agent. The daemon never runs a
/// program itself.
public struct VariableRequest: Equatable, Sendable {
  public enum Kind: String, Sendable, CaseIterable {
    /// `arguments[0]` is a command for `shell`.
    case shell
    /// `arguments` are a program and its arguments.
    case script
    /// The clipboard's text.
    case clipboard
    /// The user picks one of `arguments` (labels); `values` are what is typed.
    case choice
    /// The user fills the fields `arguments` of `layout`; `values` are their defaults.
    case form
    /// Keep the clipboard's text, and put `arguments[0]` in it: the daemon
    /// pastes it once the answer comes.
    case paste
    /// Put the kept text back in the clipboard, a moment after the paste.
    case restoreClipboard = "restore-clipboard"
  }

  public var id: UInt32
  public var kind: Kind
  public var arguments: [String] = []
  public var values: [String] = []
  public var shell: String?
  public var layout: String?
  /// Trim white space off the output (espanso's `trim`, on by default).
  public var trim = true
  /// Variables for the program's environment (espanso's `ESPANSO_NAME`).
  public var environment: [(String, String)] = []

  public init(id: UInt32, kind: Kind) {
    self.id = id
    self.kind = kind
  }

  public static func == (lhs: VariableRequest, rhs: VariableRequest) -> Bool {
    lhs.id == rhs.id && lhs.kind == rhs.kind && lhs.arguments == rhs.arguments && lhs.values == rhs.values
      && lhs.shell == rhs.shell && lhs.layout == rhs.layout && lhs.trim == rhs.trim
      && lhs.environment.elementsEqual(rhs.environment, by: ==)
  }
}

/// A variable's value as the agent sends it: its text, and a form's fields.
public struct VariableValueText: Equatable, Sendable {
  public var text: String
  public var fields: [(String, String)]

  public init(_ text: String, fields: [(String, String)] = []) {
    self.text = text
    self.fields = fields
  }

  public static func == (lhs: VariableValueText, rhs: VariableValueText) -> Bool {
    lhs.text == rhs.text && lhs.fields.elementsEqual(rhs.fields, by: ==)
  }
}

/// The agent's answer to a ``VariableRequest``: the value, or why there is
/// none (a reason that quotes no output).
public struct VariableAnswer: Equatable, Sendable {
  public var id: UInt32
  public var result: Result<VariableValueText, AgentProtocolError>

  public init(id: UInt32, result: Result<VariableValueText, AgentProtocolError>) {
    self.id = id
    self.result = result
  }
}

extension AgentProtocol {
  /// A list in a flat message: each item after a NUL (so that no items and
  /// one empty item differ).
  static func joined(_ items: [String]) -> String { items.map { "\u{0}" + $0 }.joined() }

  static func list(_ text: String) -> [String] {
    text.split(separator: "\u{0}", omittingEmptySubsequences: false).dropFirst().map(String.init)
  }

  /// `name=value` pairs, NUL-separated: a map in a flat message.
  static func joined(_ pairs: [(String, String)]) -> String {
    pairs.map { "\($0.0)=\($0.1)" }.joined(separator: "\u{0}")
  }

  static func pairs(_ text: String) -> [(String, String)] {
    guard !text.isEmpty else { return [] }
    return text.split(separator: "\u{0}", omittingEmptySubsequences: false).map { pair in
      let name = pair.prefix { $0 != "=" }
      return (String(name), String(pair.dropFirst(name.count + 1)))
    }
  }
}
