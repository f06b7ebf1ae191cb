/// The spelling dictionaries the engine corrects with (DESIGN 9), loaded
/// by the daemon away from the keys and handed over whole.
public final class Spelling: @unchecked Sendable {
  public let languages: [SpellingLanguage]
  /// Words of the system that no dictionary has and no one means to
  /// correct (the names of its programs: `rsync`, `uname`), in lowercase.
  public let technical: Set<String>
  let corrector: Corrector

  public init(languages: [SpellingLanguage], technical: Set<String> = []) {
    self.languages = languages
    self.technical = technical
    corrector = Corrector(languages: languages)
  }

  /// What autocorrect decides for `word`, as typed, at the end of a word
  /// (after the rules that leave a word alone): nil when a dictionary
  /// knows it or no correction stands out, else the correction, in
  /// lowercase but for a capital its dictionary writes. `nounsOnly`: the
  /// word has a capital where no sentence starts, and only a language that
  /// writes its nouns so (German) may correct it, to a noun. `previous`:
  /// the word before it in its sentence, in lowercase, where there is one.
  public func decide(
    _ word: [Unicode.Scalar], neighbours: KeyNeighbours, nounsOnly: Bool = false, previous: [Unicode.Scalar]? = nil
  ) -> [Unicode.Scalar]? {
    if case .corrected(let correction) = verdict(
      word, neighbours: neighbours, nounsOnly: nounsOnly, previous: previous)
    {
      return correction
    }
    return nil
  }

  /// What autocorrect decides for a word, and why it leaves one alone.
  public enum Verdict: Equatable {
    /// A dictionary knows it (or it names a program of the system).
    case known
    case corrected([Unicode.Scalar])
    /// No dictionary knows it and no correction stands out.
    case unsure
  }

  /// ``decide(_:neighbours:nounsOnly:previous:)``, saying whether a word
  /// left alone is known: one look in the dictionaries either way.
  public func verdict(
    _ word: [Unicode.Scalar], neighbours: KeyNeighbours, nounsOnly: Bool = false,
    previous: @autoclosure () -> [Unicode.Scalar]? = nil
  ) -> Verdict {
    var folded: [Unicode.Scalar] = []
    folded.reserveCapacity(word.count)
    for scalar in word {
      let lower = scalar.properties.lowercaseMapping.unicodeScalars
      folded.append(lower.count == 1 ? lower.first! : scalar)
    }
    // A word a dictionary knows may still be a contraction far commoner
    // without its apostrophe (`cant`, `wont`).
    guard !knows(word) else {
      return nounsOnly ? .known : corrector.contraction(of: folded, known: true).map(Verdict.corrected) ?? .known
    }
    guard !isProgramName(folded) else { return .known }
    // The word before is looked for only where a correction is.
    return corrector.correction(of: folded, neighbours: neighbours, nounsOnly: nounsOnly, previous: previous())
      .map(Verdict.corrected)
      ?? .unsure
  }

  /// English's pronoun `i`, alone or contracted (`i'm`, `i’ll`), with its
  /// capital, when an English dictionary spells it so; nil for any other
  /// word. English's dictionaries know a lowercase `i` (the letter), so
  /// the corrector would leave it.
  public func capitalizedPronoun(_ word: [Unicode.Scalar]) -> [Unicode.Scalar]? {
    guard word.first == "i", word.count == 1 || word[1] == "'" || word[1] == "’" else { return nil }
    var capitalized = word
    capitalized[0] = "I"
    let asSpelled = capitalized.map { $0 == "’" ? "'" : $0 }
    return languages.contains { $0.name.hasPrefix("en") && $0.spells(asSpelled) } ? capitalized : nil
  }

  /// Whether any dictionary knows `word` as written.
  func knows(_ word: [Unicode.Scalar]) -> Bool { corrector.spells(word) }

  /// Whether `word` (in lowercase) is one of ``technical`` that no
  /// dictionary knows: a program's name, where a token names a command.
  func isTechnical(_ word: [Unicode.Scalar]) -> Bool { isProgramName(word) && !knows(word) }

  /// Whether `word` (in lowercase) is one of ``technical``.
  private func isProgramName(_ word: [Unicode.Scalar]) -> Bool {
    !technical.isEmpty && technical.contains(String(String.UnicodeScalarView(word)))
  }
}
