/// The daemon's own Backspace repeat (DESIGN 3.4): characters at first, then
/// whole words of the text model, on deadlines the engine returns.
struct BackspaceRepeat {
  /// When the next repeat is due; nil when Backspace is not held.
  private(set) var deadline: Instant?
  /// Characters deleted by repeats since the press.
  private var repeatedCharacters = 0

  /// Backspace went down at `time`: the first repeat comes after the delay (rule 1).
  mutating func start(at time: Instant, configuration: BackspaceConfiguration) {
    deadline = time.adding(milliseconds: configuration.repeatDelayMilliseconds)
    repeatedCharacters = 0
  }

  /// Release, another key or a reset stops the repeat at once (rule 4).
  mutating func stop() {
    deadline = nil
  }

  /// One repeat is due: how many Backspace taps to emit, and the next deadline.
  /// Words after `wordsAfter` characters (rule 2), characters again when the
  /// model has no known word left (rule 3).
  mutating func tick(text: TextModel, configuration: BackspaceConfiguration) -> Int {
    guard let due = deadline else { return 0 }
    if repeatedCharacters >= configuration.wordsAfter {
      let length = Self.lastWordLength(in: text)
      guard length == 0 else {
        deadline = due.adding(milliseconds: configuration.wordIntervalMilliseconds)
        return length
      }
      // Rule 3: no known word left, so characters again.
      deadline = due.adding(milliseconds: configuration.repeatIntervalMilliseconds)
      return 1
    }
    repeatedCharacters += 1
    // Rule 2: the first word comes one word interval after the last character.
    let switchesToWords = repeatedCharacters >= configuration.wordsAfter
    deadline = due.adding(
      milliseconds: switchesToWords
        ? configuration.wordIntervalMilliseconds : configuration.repeatIntervalMilliseconds)
    return 1
  }

  /// The length of the model's last word: trailing separators plus the word
  /// before them. 0 when the model is empty.
  static func lastWordLength(in text: TextModel) -> Int {
    var offset = 0
    while offset < text.count, !isWordCharacter(text[fromEnd: offset]) { offset += 1 }
    while offset < text.count, isWordCharacter(text[fromEnd: offset]) { offset += 1 }
    return offset
  }

  static func isWordCharacter(_ character: Unicode.Scalar) -> Bool {
    let properties = character.properties
    return properties.isAlphabetic || properties.numericType != nil || character == "_"
      || properties.generalCategory == .nonspacingMark
  }
}
