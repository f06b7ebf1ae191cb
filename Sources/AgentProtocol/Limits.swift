/// The messages between the session agent (`vkbd-agent`, one per user
/// session) and the daemon (DESIGN 7): one JSON object per line each way,
/// over the daemon's agent socket, each a type of its own
/// (``AgentProtocolMessage``): `{"version":2,"type":"focus",...}`. A
/// message of another version, of a type the reader does not take, with an
/// unknown or repeated field, or over the bounds here is refused whole.
public enum AgentProtocol {
  /// The version spoken. Both sides refuse a message of another.
  public static let version = 2
  /// Where the daemon listens for agents, unless its config says otherwise.
  public static let defaultSocket = "/run/vkbd/agent.sock"
  /// The longest message either side reads, newline included, but for
  /// ``maximumValueMessage``.
  public static let maximumMessage = 8192
  /// The longest `value` or `snippet-file` message (a program's output, a
  /// match file), newline included.
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
  /// The most words a user may teach autocorrect, and their longest
  /// (autocorrect reads no longer word): the list fits one message.
  public static let maximumLearnedWords = 4000
  public static let maximumLearnedWordLength = 32
  /// The most names of the user's own programs an agent sends.
  public static let maximumPrograms = 4000
  /// The most groups a layout report names (XKB's limit).
  public static let maximumGroups = 4

  /// The last ``maximumFieldText`` characters of `text`, and whether that
  /// is all of it.
  public static func lastCharacters(_ text: Substring) -> (text: String, isWhole: Bool) {
    let scalars = text.unicodeScalars
    guard scalars.count > maximumFieldText else { return (String(text), true) }
    return (String(String.UnicodeScalarView(scalars.suffix(maximumFieldText))), false)
  }

  /// A word autocorrect may learn: 1 to 32 letters, in lowercase.
  public static func isLearnableWord(_ text: String) -> Bool {
    let scalars = text.unicodeScalars
    return !scalars.isEmpty && scalars.count <= AgentProtocol.maximumLearnedWordLength
      && scalars.allSatisfy { $0.properties.isAlphabetic && !$0.properties.isUppercase }
  }

  /// A program's name that reads as a word, in lowercase: 2 to 32 ASCII
  /// letters (`rsync`, `nl`). Autocorrect leaves such names as typed.
  public static func isProgramWord(_ text: String) -> Bool {
    (2...32).contains(text.utf8.count) && text.utf8.allSatisfy { (0x61...0x7A).contains($0) }
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

/// Why a message was refused. It never quotes the message: it may hold a
/// window title.
public struct AgentProtocolError: Error, Equatable, CustomStringConvertible, Sendable {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// The checks a message's fields pass after decoding, each naming the
/// field (never its value).
enum Check {
  static let wordBytes = Set("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.+-_".utf8)
  static let xkbBytes = wordBytes.union("-+:(),.".utf8)

  /// At most `limit` UTF-8 bytes.
  static func length(_ text: String, _ field: String, limit: Int) throws(AgentProtocolError) {
    guard text.utf8.count <= limit else { throw AgentProtocolError("field '\(field)' is longer than \(limit) bytes") }
  }

  /// 1 to 64 letters, digits and `.+-_`: what the daemon logs.
  static func word(_ text: String, _ field: String) throws(AgentProtocolError) {
    guard !text.isEmpty, text.utf8.count <= 64, text.utf8.allSatisfy(wordBytes.contains) else {
      throw AgentProtocolError("field '\(field)' must be letters, digits and .+-_")
    }
  }

  /// An absolute path of at most 4096 bytes, with no `..` in it.
  static func path(_ path: String, _ field: String) throws(AgentProtocolError) {
    try length(path, field, limit: 4096)
    guard path.hasPrefix("/"), !path.split(separator: "/").contains(".."), !path.contains("\u{0}") else {
      throw AgentProtocolError("field '\(field)' must be an absolute path without '..'")
    }
  }

  /// An XKB name list: letters, digits and `_-+:(),.` (what
  /// xkeyboard-config names are made of), possibly empty.
  static func xkbName(_ text: String, _ field: String) throws(AgentProtocolError) {
    try length(text, field, limit: AgentProtocol.maximumName)
    guard text.utf8.allSatisfy(xkbBytes.contains) else {
      throw AgentProtocolError("field '\(field)' must be XKB names: letters, digits and _-+:(),.")
    }
  }

  static func learnedWord(_ text: String, _ field: String) throws(AgentProtocolError) {
    guard AgentProtocol.isLearnableWord(text) else {
      throw AgentProtocolError(
        "field '\(field)' must be words of 1 to \(AgentProtocol.maximumLearnedWordLength) lowercase letters")
    }
  }

  /// At most `limit` characters (Unicode scalars).
  static func characters(_ text: String, _ field: String, limit: Int) throws(AgentProtocolError) {
    guard text.unicodeScalars.count <= limit else {
      throw AgentProtocolError("field '\(field)' is longer than \(limit) characters")
    }
  }
}
