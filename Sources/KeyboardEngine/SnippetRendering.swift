#if canImport(Glibc)
  import Glibc
#endif

/// A snippet rendered for one expansion: the text to type and where the
/// cursor goes.
struct RenderedSnippet: Equatable {
  /// The text, without the cursor hint.
  var text: [Unicode.Scalar]
  /// How many characters of `text` come after the cursor hint.
  var charactersAfterCursor: Int
}

/// What one expansion's variables are worked out from: the same inputs give
/// the same values, so a snippet that waits for its session variables works
/// the others out again, unchanged, when the answers come.
public struct VariableInputs: Sendable {
  /// The wall clock, in seconds since the epoch.
  public var now: Int64
  /// Seeds the `random` choices.
  public var seed: UInt64
  /// Writes the `date` variables (``EngineWorld/writeDate``).
  public var writeDate: DateWriter
  /// The named groups of a regex trigger.
  public var captures: [String: String] = [:]
  /// The session agent's answers, by variable index.
  public var answers: [Int: VariableValue] = [:]

  public init(now: Int64, seed: UInt64, writeDate: @escaping DateWriter) {
    self.now = now
    self.seed = seed
    self.writeDate = writeDate
  }
}

extension Snippet {
  /// The deepest chain of nested `match` variables rendered.
  static let maximumNesting = 8

  /// The variables' values, in order, up to the first session variable
  /// without an answer (`waiting`, nil when every value is known). A nested
  /// match is looked up with `nested`.
  public func evaluate(
    _ inputs: VariableInputs, nested: (String) -> Snippet?, depth: Int = 0
  ) -> (values: [VariableValue?], waiting: Int?) {
    var values = [VariableValue?](repeating: nil, count: variables.count)
    var random = SplitMix64(seed: inputs.seed)
    for (index, variable) in variables.enumerated() {
      switch variable.kind {
      case .echo(let text):
        values[index] = VariableValue(text.render(values))
      case .random(let choices):
        let pick = choices.isEmpty ? nil : Int(random.next() % UInt64(choices.count))
        values[index] = VariableValue(pick.map { choices[$0].render(values) } ?? "")
      case .date(let format, let offset, let locale):
        values[index] = VariableValue(inputs.writeDate(inputs.now + offset, format.render(values), locale))
      case .capture:
        values[index] = VariableValue(inputs.captures[variable.name] ?? "")
      case .match(let trigger):
        guard depth < Self.maximumNesting, let inner = nested(trigger) else {
          values[index] = VariableValue("")
          break
        }
        var innerInputs = VariableInputs(now: inputs.now, seed: random.next(), writeDate: inputs.writeDate)
        innerInputs.captures = inputs.captures
        let (innerValues, _) = inner.evaluate(innerInputs, nested: nested, depth: depth + 1)
        values[index] = VariableValue(
          String(scalars: inner.render(typed: [], values: innerValues).text))
      case .session:
        guard let answer = inputs.answers[index] else { return (values, index) }
        values[index] = answer
      }
    }
    return (values, nil)
  }

  /// The call that works out session variable `index`, from the values
  /// before it.
  public func sessionCall(_ index: Int, values: [VariableValue?]) -> SessionCall? {
    guard case .session(let variable) = variables[index].kind else { return nil }
    return variable.call(values)
  }

  /// Renders the replacement for a trigger typed as `typed`, from its
  /// variables' values.
  func render(typed: some Collection<Unicode.Scalar>, values: [VariableValue?]) -> RenderedSnippet {
    var text = replacement.render(values)
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

  /// What typing `typed` (one of the triggers) would type now in `world`,
  /// for listings (the cursor hint left out; session variables empty).
  public func preview(typed: String, world: EngineWorld, nested: (String) -> Snippet?) -> String {
    let values = evaluate(world.variableInputs(), nested: nested).values
    return String(scalars: render(typed: typed.unicodeScalars, values: values).text)
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

/// A small seeded generator (SplitMix64): the same seed picks the same
/// `random` choices (and the tests' random cases replay).
public struct SplitMix64: RandomNumberGenerator {
  private var state: UInt64
  public init(seed: UInt64) { state = seed }
  public mutating func next() -> UInt64 {
    state &+= 0x9E37_79B9_7F4A_7C15
    var z = state
    z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
    z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
    return z ^ (z >> 31)
  }
}
