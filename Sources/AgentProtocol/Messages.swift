/// One of the user's own espanso match files, read by the agent as the
/// user: its absolute path and its text.
public struct SnippetFile: AgentProtocolMessage {
  public static let type = "snippet-file"
  public var path: String
  public var text: String

  public init(path: String, text: String) {
    self.path = path
    self.text = text
  }

  public enum CodingKeys: String, CodingKey, CaseIterable { case path, text }

  public func validate() throws(AgentProtocolError) {
    try Check.path(path, "path")
    try Check.length(text, "text", limit: AgentProtocol.maximumValueMessage)
  }
}

/// The user's files sent since the last such message are all of them:
/// `count` files, under the match directory `directory`.
public struct SnippetFilesEnd: AgentProtocolMessage {
  public static let type = "snippet-files-end"
  public var directory: String
  public var count: Int

  public init(directory: String, count: Int) {
    self.directory = directory
    self.count = count
  }

  public enum CodingKeys: String, CodingKey, CaseIterable { case directory, count }

  public func validate() throws(AgentProtocolError) {
    try Check.path(directory, "directory")
    guard (0...AgentProtocol.maximumSnippetFiles).contains(count) else {
      throw AgentProtocolError("field 'count' must be 0 to \(AgentProtocol.maximumSnippetFiles)")
    }
  }
}

/// The daemon's word on whether the agent's reports count: sent on
/// connecting and whenever it changes (a seat switch). An agent that
/// becomes active reports its focus again. (Its wire name is still
/// `session`, which agents of earlier versions read.)
public struct AgentStanding: AgentProtocolMessage {
  public static let type = "session"
  public var active: Bool
  /// Whether the agent shows notifications (`notifications` in the
  /// daemon's config; absent: it does).
  public var notifications: Bool?

  public init(active: Bool, notifications: Bool? = nil) {
    self.active = active
    self.notifications = notifications
  }

  public enum CodingKeys: String, CodingKey, CaseIterable { case active, notifications }
}

/// Why the daemon closes the connection.
public struct Refusal: AgentProtocolMessage {
  public static let type = "refused"
  public var reason: String

  public init(_ reason: String) { self.reason = reason }

  public enum CodingKeys: String, CodingKey, CaseIterable { case reason }

  public func validate() throws(AgentProtocolError) {
    try Check.length(reason, "reason", limit: AgentProtocol.maximumMessage)
  }
}

/// A snippet variable that only the user's session can work out (DESIGN 7):
/// what the daemon asks the active user's agent. The daemon never runs a
/// program itself.
public struct VariableRequest: AgentProtocolMessage {
  public static let type = "variable"

  public enum Kind: String, WireName {
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

    /// Whether the user answers it in a dialog that takes the keyboard.
    public var isDialog: Bool { self == .choice || self == .form }
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
  public var environment: [String: String] = [:]

  public init(id: UInt32, kind: Kind) {
    self.id = id
    self.kind = kind
  }

  public enum CodingKeys: String, CodingKey, CaseIterable {
    case id, kind, arguments, values, shell, layout, trim, environment
  }

  public init(from decoder: Decoder) throws {
    let fields = try decoder.container(keyedBy: CodingKeys.self)
    id = try fields.decode(UInt32.self, forKey: .id)
    kind = try fields.decode(Kind.self, forKey: .kind)
    arguments = try fields.decode([String].self, forKey: .arguments)
    values = try fields.decodeIfPresent([String].self, forKey: .values) ?? []
    shell = try fields.decodeIfPresent(String.self, forKey: .shell)
    layout = try fields.decodeIfPresent(String.self, forKey: .layout)
    trim = try fields.decode(Bool.self, forKey: .trim)
    environment = try fields.decodeIfPresent([String: String].self, forKey: .environment) ?? [:]
  }

  public func validate() throws(AgentProtocolError) {
    try Check.length(shell ?? "", "shell", limit: AgentProtocol.maximumName)
    try Check.length(layout ?? "", "layout", limit: AgentProtocol.maximumMessage)
  }
}

/// A variable's value as the agent sends it: its text, and a form's fields.
public struct VariableValueText: Equatable, Sendable {
  public var text: String
  public var fields: [String: String]

  public init(_ text: String, fields: [String: String] = [:]) {
    self.text = text
    self.fields = fields
  }
}

/// The agent's answer to a ``VariableRequest``: the value, or why there is
/// none (a reason that quotes no output). On the wire `value`, with `text`
/// and `fields`, or `error`.
public struct VariableAnswer: AgentProtocolMessage {
  public static let type = "value"
  public var id: UInt32
  public var result: Result<VariableValueText, AgentProtocolError>

  public init(id: UInt32, result: Result<VariableValueText, AgentProtocolError>) {
    self.id = id
    self.result = result
  }

  public enum CodingKeys: String, CodingKey, CaseIterable { case id, text, fields, error }

  public init(from decoder: Decoder) throws {
    let fields = try decoder.container(keyedBy: CodingKeys.self)
    id = try fields.decode(UInt32.self, forKey: .id)
    if let reason = try fields.decodeIfPresent(String.self, forKey: .error) {
      result = .failure(AgentProtocolError(reason))
    } else {
      let text = try fields.decode(String.self, forKey: .text)
      result = .success(
        VariableValueText(text, fields: try fields.decodeIfPresent([String: String].self, forKey: .fields) ?? [:]))
    }
  }

  public func encode(to encoder: Encoder) throws {
    var fields = encoder.container(keyedBy: CodingKeys.self)
    try fields.encode(id, forKey: .id)
    switch result {
    case .success(let value):
      try fields.encode(value.text, forKey: .text)
      if !value.fields.isEmpty { try fields.encode(value.fields, forKey: .fields) }
    case .failure(let reason): try fields.encode(reason.message, forKey: .error)
    }
  }

  public func validate() throws(AgentProtocolError) {
    switch result {
    case .success(let value):
      try Check.length(value.text, "text", limit: AgentProtocol.maximumValueMessage)
      try Check.characters(value.text, "text", limit: AgentProtocol.maximumValue)
    case .failure(let reason):
      try Check.length(reason.message, "error", limit: AgentProtocol.maximumMessage)
    }
  }
}

/// A dialog the agent opened for a request (a `choice` or a `form`) has
/// the keyboard: the keys the user types from now on are the dialog's.
public struct DialogShown: AgentProtocolMessage {
  public static let type = "dialog-shown"
  public var id: UInt32

  public init(id: UInt32) { self.id = id }

  public enum CodingKeys: String, CodingKey, CaseIterable { case id }
}

/// Every word the user taught autocorrect (DESIGN 9), from the agent,
/// which keeps them in the user's data directory, and the names of the
/// user's own programs (on their PATH, outside the system's directories):
/// sent on connecting and whenever the words change. The daemon never
/// corrects them, nor the word after a program's name.
public struct LearnedWords: AgentProtocolMessage {
  public static let type = "learned-words"
  public var words: [String]
  public var programs: [String]

  public init(words: [String], programs: [String] = []) {
    self.words = words
    self.programs = programs
  }

  public enum CodingKeys: String, CodingKey, CaseIterable { case words, programs }

  public init(from decoder: any Decoder) throws {
    let fields = try decoder.container(keyedBy: CodingKeys.self)
    words = try fields.decode([String].self, forKey: .words)
    programs = try fields.decodeIfPresent([String].self, forKey: .programs) ?? []
  }

  public func validate() throws(AgentProtocolError) {
    guard words.count <= AgentProtocol.maximumLearnedWords else {
      throw AgentProtocolError("field 'words' holds more than \(AgentProtocol.maximumLearnedWords) words")
    }
    for word in words { try Check.learnedWord(word, "words") }
    guard programs.count <= AgentProtocol.maximumPrograms else {
      throw AgentProtocolError("field 'programs' holds more than \(AgentProtocol.maximumPrograms) names")
    }
    for name in programs where !AgentProtocol.isProgramWord(name) {
      throw AgentProtocolError("field 'programs' must be names of 2 to 32 lowercase ASCII letters")
    }
  }
}

/// A word the user just taught by undoing its correction, from the daemon:
/// the agent adds it to the user's file.
public struct WordLearned: AgentProtocolMessage {
  public static let type = "word-learned"
  public var word: String

  public init(word: String) { self.word = word }

  public enum CodingKeys: String, CodingKey, CaseIterable { case word }

  public func validate() throws(AgentProtocolError) { try Check.learnedWord(word, "word") }
}
