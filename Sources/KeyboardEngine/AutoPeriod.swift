/// The double-space period (DESIGN 3.3), with the rules and the 1100 ms
/// window of AOSP LatinIME (`InputLogic`, `config_double_space_period_timeout`).
struct AutoPeriod {
  /// When the first Space went down, while its window is open (rule 1).
  private var windowStart: Instant?
  /// True right after a conversion, so that Backspace undoes it (rule 5).
  private(set) var justConverted = false
  /// True after an undo: the next Space does not convert again (rule 5).
  private var suppressNext = false

  /// Whether a Space going down at `time` should turn the Space before it
  /// into ". " (rule 3), given the text before the cursor.
  func shouldConvert(at time: Instant, text: TextModel, timeoutMilliseconds: Int64) -> Bool {
    guard let windowStart, !suppressNext,
      time.microseconds - windowStart.microseconds < timeoutMilliseconds * 1000,
      text.count >= 2, text[fromEnd: 0] == " "
    else { return false }
    return Self.allowsPeriod(after: text[fromEnd: 1])
  }

  /// Rules 3 and 4: the characters after which a double space types a period.
  static func allowsPeriod(after character: Unicode.Scalar) -> Bool {
    switch character {
    case "'", "\"", ")", "]", "}", ">", "+", "%": return true
    case ".", ",", "?", "!", ";", ":", "(", "-", " ": return false
    default:
      let properties = character.properties
      return properties.isAlphabetic || properties.numericType == .decimal
        || properties.generalCategory == .otherSymbol
    }
  }

  /// A Space went out as typed at `time`: its window opens (rule 1).
  mutating func spaceTyped(at time: Instant) {
    windowStart = suppressNext ? nil : time
    suppressNext = false
    justConverted = false
  }

  /// The Space was converted to ". ".
  mutating func converted() {
    windowStart = nil
    justConverted = true
  }

  /// Backspace undid the conversion: the next Space stays a space.
  mutating func undone() {
    justConverted = false
    suppressNext = true
  }

  /// Any other key closes the window (rule 2) and ends the chance to undo.
  mutating func otherKey() {
    windowStart = nil
    justConverted = false
  }

  /// A reset forgets everything.
  mutating func cancel() {
    self = AutoPeriod()
  }
}
