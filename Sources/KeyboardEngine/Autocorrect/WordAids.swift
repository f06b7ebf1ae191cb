/// Autocorrect and smart punctuation at the keys (DESIGN 9): at the end of
/// a word, the correction of a word no dictionary knows; for a quote, a
/// dash or a third period, its typographic form. Each fires as a snippet
/// does (through the ``Expander``), so the next Backspace undoes it; the
/// undo of a correction teaches the word. Their state is their own.
final class WordAids {
  var spelling: Spelling?
  /// The words the user taught (in lowercase), never corrected.
  var learned: Set<String> = []
  /// The words of the user's own snippets (in lowercase), never corrected
  /// (``SnippetTable/ownWords(limit:)``).
  var ownWords: Set<String> = []
  /// The names of the user's own programs (in lowercase), never corrected,
  /// nor the word after one (the system's are ``Spelling/technical``).
  var programs: Set<String> = []
  /// Where a word the user just taught goes (the daemon gives it to the
  /// user's session agent, which keeps it).
  var onLearned: ((String) -> Void)?
  /// The unknown word the last word end left as typed (no correction
  /// stood out): kept, if it still stands there when the next word ends.
  private var unsure: [Unicode.Scalar]?
  /// Unknown words the user kept, in lowercase, by how often: at the
  /// second time a word is learned, as a phone learns. In memory only,
  /// at most ``largestKept``.
  private var kept: [String: Int] = [:]
  static let largestKept = 1024
  /// Whether a field report that agreed with none of the model's recent
  /// states replaced it since the last word end or reset: the word may hold
  /// what a late report said rather than what was typed (a slow desktop
  /// lags more edits than the model keeps), and is left alone.
  var doubtsWord = false
  /// The layout's neighbouring keys, for the layout and group they are of.
  private var neighbours: (layout: ObjectIdentifier, group: Int, keys: KeyNeighbours)?

  /// The longest text before the cursor read as one word.
  static let longestToken = 64

  /// Handles `character`'s key going down: true when it corrected or
  /// punctuated (the key is then swallowed).
  func keyDown(
    _ code: UInt16, character: Unicode.Scalar, at time: Instant, engine host: Engine, into output: inout KeyOutput
  ) -> Bool {
    let configuration = host.configuration
    let expander = host.expander
    switch character {
    case " ", "\n":
      guard configuration.autocorrect, let spelling else { return false }
      guard !doubtsWord else {
        doubtsWord = false
        unsure = nil
        return false
      }
      noteKept(in: host.text)
      guard let (length, replacement) = correction(in: host.text, spelling: spelling, host: host) else {
        return false
      }
      let original = Self.last(length, of: host.text)
      return expander.replace(
        deleting: length, typed: original + [character], with: replacement + [character],
        learns: Self.core(of: original), key: code, at: time, host: host, into: &output)
    case "\"", "'", "-", ".":
      guard configuration.smartPunctuation,
        let (length, replacement) = Self.punctuation(character, after: host.text, quotes: configuration.quotes)
      else { return false }
      return expander.replace(
        deleting: length, typed: Self.last(length, of: host.text) + [character], with: [replacement],
        learns: nil, key: code, at: time, host: host, into: &output)
    default:
      return false
    }
  }

  /// At a word's end: whether the unknown word the last one left still
  /// stands before it, as typed. Kept twice, it is learned.
  private func noteKept(in text: TextModel) {
    guard let word = unsure else { return }
    unsure = nil
    var index = 0
    while index < text.count, !text[fromEnd: index].properties.isWhitespace { index += 1 }
    while index < text.count, text[fromEnd: index].properties.isWhitespace { index += 1 }
    var token: [Unicode.Scalar] = []
    while index < text.count, !text[fromEnd: index].properties.isWhitespace, token.count <= Self.longestToken {
      token.append(text[fromEnd: index])
      index += 1
    }
    guard Self.core(of: token.reversed()) == word else { return }
    let folded = String(String.UnicodeScalarView(word)).lowercased()
    if kept.count >= Self.largestKept && kept[folded] == nil { kept.removeAll() }
    kept[folded, default: 0] += 1
    if kept[folded]! >= 2 {
      kept[folded] = nil
      learn(word)
    }
  }

  /// The user undid a correction of `word`: it is theirs from now on.
  func learn(_ word: [Unicode.Scalar]) {
    let folded = String(String.UnicodeScalarView(word)).lowercased()
    if learned.insert(folded).inserted { onLearned?(folded) }
  }

  // MARK: - Autocorrect

  /// The correction of the word before the cursor: how many characters of
  /// the text it replaces, and with what; nil where rule 2 of DESIGN 9
  /// leaves the word alone or no correction stands out.
  private func correction(
    in text: TextModel, spelling: Spelling, host: Engine
  ) -> (Int, [Unicode.Scalar])? {
    // The token: back to the last blank, wholly inside the model.
    var length = 0
    while length < text.count, !text[fromEnd: length].properties.isWhitespace {
      length += 1
      if length > Self.longestToken { return nil }
    }
    guard length > 0, length < text.count || text.isFieldStart else { return nil }
    let token = Self.last(length, of: text)
    let range = Self.coreRange(of: token)
    guard !range.isEmpty else { return nil }
    let word = Array(token[range])
    // A word its apostrophe ends (`talkin'`, `goin'`) is written so on
    // purpose, where no quote opened it (`'wrold'` is corrected).
    if let after = token[range.upperBound...].first, after == "'" || after == "’",
      !token[..<range.lowerBound].contains(where: { $0 == "'" || $0 == "‘" })
    {
      return nil
    }
    let folded = String(String.UnicodeScalarView(word)).lowercased()
    guard !learned.contains(folded), !ownWords.contains(folded), !programs.contains(folded) else { return nil }
    let punctuated = { (corrected: [Unicode.Scalar]) in
      (length, Array(token[..<range.lowerBound]) + corrected + token[range.upperBound...])
    }
    // English's `i`, alone or contracted: its capital, wherever it stands
    // but in a list's `(i)` or `i)`.
    if let capital = spelling.capitalizedPronoun(word), token[range.upperBound...].first != ")" {
      return punctuated(capital)
    }
    // Letters alone (no digit, no URL…), no inner capital (nor all
    // capitals). A capital where no sentence starts is a name's, or in
    // German a noun's: only a noun corrects it.
    guard word.allSatisfy({ $0.properties.isAlphabetic }),
      !word.dropFirst().contains(where: { $0.properties.isUppercase })
    else { return nil }
    let capitalized = word[0].properties.isUppercase
    let nounsOnly = capitalized && !Self.startsSentence(text, before: length - range.lowerBound)
    if nounsOnly && !spelling.languages.contains(where: \.capitalizesNouns) { return nil }
    // The argument of a command (`sudo apt install rsync`) is no prose.
    if Self.followsCommand(text, before: length, spelling: spelling, programs: programs) { return nil }
    let group = host.keymapGroup
    if neighbours?.layout != ObjectIdentifier(host.layout) || neighbours?.group != group {
      neighbours = (ObjectIdentifier(host.layout), group, KeyNeighbours(layout: host.layout, group: group))
    }
    let verdict = spelling.verdict(
      word, neighbours: neighbours!.keys, nounsOnly: nounsOnly, previous: Self.previousWord(text, before: length))
    guard case .corrected(var corrected) = verdict else {
      // A word no dictionary knows and no correction beats: the user's,
      // if they keep it (lowercase only: a capital may be a name's).
      if verdict == .unsure && !capitalized { unsure = word }
      return nil
    }
    if capitalized, let capital = corrected[0].properties.uppercaseMapping.unicodeScalars.first,
      corrected[0].properties.uppercaseMapping.unicodeScalars.count == 1
    {
      corrected[0] = capital
    }
    // A contraction's apostrophe as smart punctuation would have typed it.
    if host.configuration.smartPunctuation {
      corrected = corrected.map { $0 == "'" ? "’" : $0 }
    }
    return punctuated(corrected)
  }

  /// Whether the token before the last `offset` characters (and the blanks
  /// before them) reads as a command or its option: a program's name no
  /// dictionary knows (`sudo`, `rsync`), an option (`-v`), a path, an
  /// assignment or a variable.
  static func followsCommand(
    _ text: TextModel, before offset: Int, spelling: Spelling, programs: Set<String> = []
  ) -> Bool {
    guard let (previous, _) = token(before: offset, in: text), let first = previous.last else { return false }
    if first == "-" || previous.contains(where: { "/=$_`|".unicodeScalars.contains($0) }) { return true }
    let letters = previous.reversed().map { $0.properties.lowercaseMapping.unicodeScalars.first ?? $0 }
    return letters.allSatisfy { $0.properties.isAlphabetic }
      && (spelling.isTechnical(letters) || programs.contains(String(String.UnicodeScalarView(letters))))
  }

  /// The token before the last `offset` characters and the blanks before
  /// them, newest first (at most ``longestToken`` and one), and whether
  /// the model holds all of it; nil where a line starts between.
  static func token(before offset: Int, in text: TextModel) -> ([Unicode.Scalar], whole: Bool)? {
    var index = offset
    while index < text.count, text[fromEnd: index].properties.isWhitespace {
      if text[fromEnd: index] == "\n" { return nil }
      index += 1
    }
    var token: [Unicode.Scalar] = []
    while index < text.count, !text[fromEnd: index].properties.isWhitespace, token.count <= longestToken {
      token.append(text[fromEnd: index])
      index += 1
    }
    let whole = index < text.count ? text[fromEnd: index].properties.isWhitespace : text.isFieldStart
    return (token, whole && token.count <= longestToken)
  }

  /// The word before the last `offset` characters in the same sentence,
  /// in lowercase: letters alone, all of it in the model, with no mark
  /// after it that ends a clause; nil where there is none.
  static func previousWord(_ text: TextModel, before offset: Int) -> [Unicode.Scalar]? {
    guard let (token, whole) = token(before: offset, in: text), whole, let last = token.first,
      last.properties.isAlphabetic
    else { return nil }
    guard let word = core(of: token.reversed()) else { return nil }
    return word.map { $0.properties.lowercaseMapping.unicodeScalars.first ?? $0 }
  }

  static let opening: Set<Unicode.Scalar> = ["(", "[", "{", "\"", "'", "“", "‘", "«", "„", "‚", "¿", "¡"]
  static let closing: Set<Unicode.Scalar> = [
    ".", ",", ";", ":", "!", "?", ")", "]", "}", "\"", "'", "”", "’", "»", "“", "‘", "…",
  ]

  /// The word of a token: without the quotes and brackets that open it and
  /// the punctuation that closes it; nil when nothing else is left or what
  /// is left is not letters alone (a URL, a path, an address, an option,
  /// code, a number, a contraction).
  static func core(of token: [Unicode.Scalar]) -> [Unicode.Scalar]? {
    let core = token[coreRange(of: token)]
    guard !core.isEmpty, core.allSatisfy({ $0.properties.isAlphabetic }) else { return nil }
    return Array(core)
  }

  /// Where a token's word is: after the quotes and brackets that open it,
  /// before the punctuation that closes it.
  static func coreRange(of token: [Unicode.Scalar]) -> Range<Int> {
    let leading = token.prefix { opening.contains($0) }.count
    var end = token.count
    while end > leading && closing.contains(token[end - 1]) { end -= 1 }
    return leading..<end
  }

  /// Whether a sentence starts `offset` characters before the cursor: the
  /// engine capitalized there, or walking back over blanks and opening
  /// marks reaches the field's start, a new line or `.`, `?`, `!`.
  static func startsSentence(_ text: TextModel, before offset: Int) -> Bool {
    if text.isAutoCapitalized(fromEnd: offset - 1) { return true }
    var index = offset
    while index < text.count {
      let character = text[fromEnd: index]
      if character == "\n" { return true }
      if !character.properties.isWhitespace && !opening.contains(character) {
        return character == "." || character == "?" || character == "!"
      }
      index += 1
    }
    return text.isFieldStart
  }

  /// Whether the last of `open` and `close` in the text is `open` (where
  /// they differ: English closes with the apostrophe's own ’).
  static func isOpen(_ open: Unicode.Scalar, closedBy close: Unicode.Scalar, in text: TextModel) -> Bool {
    guard close != "’" else { return true }
    for offset in 0..<text.count {
      let character = text[fromEnd: offset]
      if character == open { return true }
      if character == close { return false }
    }
    return false
  }

  /// The last `length` characters of the text, oldest first.
  static func last(_ length: Int, of text: TextModel) -> [Unicode.Scalar] {
    (0..<length).reversed().map { text[fromEnd: $0] }
  }

  // MARK: - Smart punctuation

  /// What `character` becomes after `text`: how many characters before
  /// the cursor it replaces with it, and the typographic character; nil
  /// when it stays as typed.
  static func punctuation(
    _ character: Unicode.Scalar, after text: TextModel, quotes: QuoteStyle
  ) -> (Int, Unicode.Scalar)? {
    let previous = text.count > 0 ? text[fromEnd: 0] : nil
    let opens = previous.map { $0.properties.isWhitespace || opening.contains($0) || $0 == "—" } ?? true
    switch character {
    case "\"": return (0, opens ? quotes.open : quotes.close)
    case "'":
      if opens { return (0, quotes.openSingle) }
      // After a word: the closing mark of a single quote still open, else
      // an apostrophe (’ in every language here).
      if let previous, previous.properties.isAlphabetic || previous.properties.numericType != nil {
        return (0, isOpen(quotes.openSingle, closedBy: quotes.closeSingle, in: text) ? quotes.closeSingle : "’")
      }
      return (0, quotes.closeSingle)
    case "-":
      guard previous == "-", text.count < 2 || text[fromEnd: 1] != "-" else { return nil }
      return (1, "—")
    case ".":
      guard text.count >= 2, previous == ".", text[fromEnd: 1] == ".", text.count < 3 || text[fromEnd: 2] != "."
      else { return nil }
      return (2, "…")
    default:
      return nil
    }
  }
}

extension Engine {
  /// The dictionaries autocorrect uses; nil: none loaded (yet), no correction.
  public var spelling: Spelling? {
    get { words.spelling }
    set { words.spelling = newValue }
  }

  /// The words the user taught by undoing their correction, in lowercase:
  /// never corrected (the session agent keeps them for the user).
  public var learnedWords: Set<String> {
    get { words.learned }
    set { words.learned = newValue }
  }

  /// The names of the user's own programs, in lowercase: never corrected,
  /// nor the word after one (the session agent sends them).
  public var userPrograms: Set<String> {
    get { words.programs }
    set { words.programs = newValue }
  }

  /// Where a word the user just taught goes.
  public var onLearned: ((String) -> Void)? {
    get { words.onLearned }
    set { words.onLearned = newValue }
  }
}
