#if canImport(Glibc)
  import Glibc
#endif

/// One snippet: the triggers that fire it and the text that replaces them
/// (DESIGN 3.5), in espanso's match-file vocabulary.
public struct Snippet: Sendable {
  /// What the user types; at least one, none empty.
  public var triggers: [String]
  /// The replacement, with its variables still to render.
  public var replacement: [ReplacementPart]
  /// The trigger fires only after a separator or at the start of the text.
  public var leftWord = false
  /// The trigger fires only when a separator follows it.
  public var rightWord = false
  /// The case the trigger was typed in carries over to the replacement.
  public var propagateCase = false
  /// What a trigger typed all in capitals does to the replacement.
  public var uppercaseStyle = UppercaseStyle.uppercase
  /// A name for listings.
  public var label: String?
  /// Where the snippet is defined (`file:line`), for messages.
  public var origin: String

  /// Makes a snippet.
  public init(triggers: [String], replacement: [ReplacementPart], origin: String) {
    self.triggers = triggers
    self.replacement = replacement
    self.origin = origin
  }

  /// Makes a snippet with a plain replacement (tests, starter snippets).
  public init(trigger: String, replace text: String, origin: String = "(inline)") {
    self.init(triggers: [trigger], replacement: [.text(text)], origin: origin)
  }

  /// The marker of the cursor position in a replacement (espanso's `$|$`).
  public static let cursorHint = "$|$"
}

/// A piece of a replacement: literal text or a variable's value.
public enum ReplacementPart: Sendable, Equatable {
  case text(String)
  case variable(SnippetVariable)
}

/// A variable of a replacement, rendered when the snippet fires.
public enum SnippetVariable: Sendable, Equatable {
  /// The local date and time in a strftime `format`, `offsetSeconds` from now.
  case date(format: String, offsetSeconds: Int64)
  /// A fixed text.
  case echo(String)
  /// One of the choices, at random.
  case random([String])
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

/// A snippet rendered for one expansion: the text to type and where the
/// cursor goes.
struct RenderedSnippet: Equatable {
  /// The text, without the cursor hint.
  var text: [Unicode.Scalar]
  /// How many characters of `text` come after the cursor hint.
  var charactersAfterCursor: Int
}

extension Snippet {
  /// Renders the replacement for a trigger typed as `typed`, with the wall
  /// clock at `now` (seconds since the epoch) for date variables.
  func render(typed: some Collection<Unicode.Scalar>, now: Int64) -> RenderedSnippet {
    var text = ""
    for part in replacement {
      switch part {
      case .text(let literal): text += literal
      case .variable(let variable): text += variable.render(now: now)
      }
    }
    if propagateCase { text = Self.propagate(Self.caseTyped(typed), uppercaseStyle: uppercaseStyle, to: text) }
    var scalars = Array(text.unicodeScalars)
    var after = 0
    let hint = Array(Self.cursorHint.unicodeScalars)
    if let start = scalars.indices.first(where: { scalars[$0...].starts(with: hint) }) {
      scalars.removeSubrange(start..<start + hint.count)
      after = scalars.count - start
    }
    return RenderedSnippet(text: scalars, charactersAfterCursor: after)
  }

  /// What typing `typed` (one of the triggers) would type now, for listings
  /// (the cursor hint left out).
  public func preview(typed: String, now: Int64) -> String {
    var text = String.UnicodeScalarView()
    text.append(contentsOf: render(typed: typed.unicodeScalars, now: now).text)
    return String(text)
  }

  /// The case a trigger was typed in, from its first two letters (as espanso
  /// decides it): both capitals is all capitals, only the first is capitalized.
  enum TypedCase { case lower, capitalized, upper }

  static func caseTyped(_ typed: some Collection<Unicode.Scalar>) -> TypedCase {
    let letters = typed.lazy.filter { $0.properties.isAlphabetic }
    var iterator = letters.makeIterator()
    guard let first = iterator.next(), first.properties.isUppercase else { return .lower }
    guard let second = iterator.next() else { return .capitalized }
    return second.properties.isUppercase ? .upper : .capitalized
  }

  static func propagate(_ typedCase: TypedCase, uppercaseStyle: UppercaseStyle, to text: String) -> String {
    switch (typedCase, uppercaseStyle) {
    case (.lower, _): return text
    case (.upper, .uppercase): return text.uppercased()
    case (.upper, .capitalizeWords): return capitalizingWords(text)
    case (.capitalized, _), (.upper, .capitalize): return capitalizingFirstLetter(text)
    }
  }

  private static func capitalizingFirstLetter(_ text: String) -> String {
    guard let index = text.firstIndex(where: \.isLetter) else { return text }
    return text[..<index] + text[index].uppercased() + text[text.index(after: index)...]
  }

  private static func capitalizingWords(_ text: String) -> String {
    var result = ""
    var atWordStart = true
    for character in text {
      result += atWordStart && character.isLetter ? character.uppercased() : String(character)
      atWordStart = character.isWhitespace || (atWordStart && !character.isLetter)
    }
    return result
  }
}

extension SnippetVariable {
  /// The variable's text at the wall-clock time `now` (seconds since the epoch).
  func render(now: Int64) -> String {
    switch self {
    case .echo(let text): return text
    case .random(let choices): return choices.randomElement() ?? ""
    case .date(let format, let offset): return Self.format(date: now + offset, format)
    }
  }

  /// `strftime` in the local time zone (espanso's format strings are chrono's,
  /// whose common specifiers are strftime's).
  static func format(date seconds: Int64, _ format: String) -> String {
    var time = time_t(seconds)
    var parts = tm()
    guard localtime_r(&time, &parts) != nil else { return "" }
    var buffer = [CChar](repeating: 0, count: 512)
    let length = strftime(&buffer, buffer.count, format, &parts)
    guard length > 0 else { return "" }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }
}
