/// Auto-capitalization (DESIGN 3.2), with the rules of AOSP LatinIME's
/// `CapsModeUtils` and the undo of Android's `QwertyKeyListener`.
struct AutoCapitalization {
  /// What the last emitted edits mean for the undo.
  private enum UndoState: Equatable {
    case idle
    /// The last character typed was capitalized by us; it was this letter.
    case capitalized(Unicode.Scalar)
    /// The user deleted the letter we capitalized: typing it again right
    /// here keeps it lowercase.
    case undone(Unicode.Scalar)
  }

  private var undo = UndoState.idle

  /// Whether caps is due at the end of `text`, walking back from the cursor.
  /// `capitalizeFieldStart`: the start of a field a session agent reported
  /// is where caps is due, as on a phone.
  static func isDue(in text: TextModel, capitalizeAfterReset: Bool, capitalizeFieldStart: Bool) -> Bool {
    let count = text.count
    // Rule 6: the start of the model is unknown, unless the agent said it is
    // the start of the field, or the option says so after a reset.
    let atStart = text.isFieldStart ? capitalizeFieldStart : capitalizeAfterReset && !text.isTruncated
    if count == 0 { return atStart }
    var offset = 0
    // Rule 1: skip opening quotes and brackets.
    while offset < count, isOpening(text[fromEnd: offset]) { offset += 1 }
    if offset == count { return text.isFieldStart && capitalizeFieldStart }
    // Rule 2: skip spaces and tabs; a newline capitalizes; no space, no caps.
    let spacesStart = offset
    while offset < count, text[fromEnd: offset] == " " || text[fromEnd: offset] == "\t" { offset += 1 }
    if offset < count, text[fromEnd: offset] == "\n" { return true }
    if offset == count { return text.isFieldStart && capitalizeFieldStart }
    if offset == spacesStart { return false }
    // Rule 3: skip closing quotes and brackets.
    while offset < count, isClosing(text[fromEnd: offset]) { offset += 1 }
    guard offset < count else { return false }  // rule 6: what came before is unknown
    // Rule 4: ? and ! capitalize; ; , : and everything else do not.
    switch text[fromEnd: offset] {
    case "?", "!": return true
    case ".": return isSentenceEndingPeriod(in: text, at: offset)
    default: return false
    }
  }

  /// Rule 5: whether the period `offset` places back ends a sentence.
  private static func isSentenceEndingPeriod(in text: TextModel, at offset: Int) -> Bool {
    let before = offset + 1
    guard before < text.count else { return false }  // unknown
    let previous = text[fromEnd: before]
    if previous.properties.isWhitespace { return false }
    if !previous.properties.isAlphabetic { return true }
    // A token of single letters with periods inside and at least two periods
    // (U.S., e.g., a.m.) is an abbreviation. Walking back from the period,
    // an abbreviation alternates period, letter, period, letter…
    var index = offset
    var periods = 0
    while index < text.count, !text[fromEnd: index].properties.isWhitespace {
      let character = text[fromEnd: index]
      let expectsPeriod = (index - offset) % 2 == 0
      if expectsPeriod ? character != "." : !character.properties.isAlphabetic {
        return true  // an ordinary word ends the sentence
      }
      if expectsPeriod { periods += 1 }
      index += 1
    }
    // A token that runs into the unknown start of the model may be longer.
    guard index < text.count else { return false }
    let endsWithLetter = (index - offset) % 2 == 0
    return !(endsWithLetter && periods >= 2)
  }

  /// Quotes and opening brackets: `"`, `'` and Unicode Ps, and the
  /// typographic quotes (Pi, Pf), which open in one language and close in
  /// another (German's “ closes), as `"` does both.
  static func isOpening(_ character: Unicode.Scalar) -> Bool {
    switch character {
    case "\"", "'", "¿", "¡", "(", "[", "{": return true
    // ASCII has no other Ps; the Unicode tables cost more than the rest of a key.
    case "\0"..."\u{7F}": return false
    default:
      let category = character.properties.generalCategory
      return category == .openPunctuation || category == .initialPunctuation || category == .finalPunctuation
    }
  }

  /// Quotes and closing brackets: `"`, `'`, Unicode Pe and the typographic quotes.
  static func isClosing(_ character: Unicode.Scalar) -> Bool {
    switch character {
    case "\"", "'", ")", "]", "}": return true
    case "\0"..."\u{7F}": return false  // ASCII has no other Pe
    default:
      let category = character.properties.generalCategory
      return category == .closePunctuation || category == .initialPunctuation || category == .finalPunctuation
    }
  }

  /// Whether the undo keeps `letter` lowercase here (it was just un-capitalized).
  func isUndone(_ letter: Unicode.Scalar) -> Bool { undo == .undone(letter) }

  /// Notes that we just typed `letter` capitalized.
  mutating func didCapitalize(_ letter: Unicode.Scalar) { undo = .capitalized(letter) }

  /// Follows the application's edits: a Backspace right after a capital we
  /// made arms the undo; anything else disarms it.
  mutating func observe(_ edit: TextEdit) {
    switch (edit, undo) {
    case (.none, _): break
    case (.backspace, .capitalized(let letter)): undo = .undone(letter)
    default: undo = .idle
    }
  }

  /// Forgets the undo (a reset, or the key that used it).
  mutating func cancel() { undo = .idle }
}
