/// The corrections of a word no dictionary knows (DESIGN 9, rule 3): its
/// neighbours one edit away that a dictionary has, weighed by an error
/// model of the user's real layout (a neighbouring key is a likelier slip
/// than a far one, a doubled or swapped letter likelier than a missing
/// one), by the dictionary's own table of common misspellings, and by how
/// common each word is where a list says. The best one is taken only when
/// it stands clearly above the next.
struct Corrector {
  /// What each kind of slip costs; a correction costs the sum of its slip
  /// and how rare its word is. (Tuned on the tuning parts of `make
  /// quality`'s sets: codespell's pairs at every 7th place, a third of the
  /// words of the other lists; docs/performance.md gives the figures on
  /// the rest.)
  struct Costs {
    var swapped = 0.45
    var moved = 1.2  // a letter typed two places early or late: knna for kann
    var doubled = 0.4  // a letter typed twice, or once for two
    var neighbourKey = 1.3  // a key beside the right one
    var extraNeighbour = 1.4  // a key beside the next or last one pressed too
    var vowel = 1.1  // one vowel for another
    var missing = 0.9
    var extra = 1.6
    var otherKey = 1.9
    var listed = 1.5  // the dictionary's list of misspellings (REP)
    var transliterated = 0.5  // the language's letters written without their keys: ss for ß
    var accent = 0.5  // a letter with another accent or none: e for é, е for ё
    var accents = 0.8  // two letters so: deja for déjà
    var secondSlip = 0.2  // two slips in one word, beside what each costs
    var soundsAlike = 1.6  // a word that sounds as typed: semetary for cemetery (English)
    var capital = 0.3  // the word is written with a capital (a name, a German noun)
    /// Per unit of rarity (``SpellingLanguage/frequencies``) past
    /// `commonRarity`: the commonest words cost nothing, a word the list
    /// does not have 1.6.
    var rarity = 0.028
    var commonRarity = 38.0
    /// A word people write (the list has it: `stdout`, `env`, but also
    /// the commonest misspellings) stays unless the correction is commoner
    /// by more than its slip and `keep` cost, at `commoner` a unit of
    /// rarity: `seperat` becomes `separat` (thirteen units commoner, past a
    /// vowel's 1.1), `env` stays (`envy` is no commoner).
    var keep = 0.3
    var commoner = 0.1
    /// Where the best correction one slip away costs more than this, the
    /// words two slips away are looked for too: one of them may be likelier.
    var farFrom = 1.5
    /// How much commoner (in tenths of Zipf) a contraction must be than
    /// the word without its apostrophe: `cant` becomes `can't`, `ill` stays.
    var contractionLead: UInt8 = 10
    /// The rarest word an `'s` contracts with: Zipf 6 (`he`, `that`, `what`).
    var contractedStemRarity: UInt8 = 30
    /// How far the best correction must stand above the next.
    var margin = 0.38
    /// A space missed between two words, beside how rare they are; a
    /// word of one letter (`a`, `i`) costs more.
    var missedSpace = 0.9
    var letterWord = 0.5
    /// Two words run together that the dictionary's list of misspellings
    /// names (`alot`).
    var listedSplit = 0.5
    /// The rarest words a missed space may have run together: Zipf 5.5
    /// (once in about 3,000 words), or Zipf 6 (once in a thousand) where the
    /// list has the words run together (`ofthe`, but not `filename`).
    var splitRarity: UInt8 = 35
    var splitListedRarity: UInt8 = 30
    /// A correction costing more is no correction.
    var ceiling = 3.0
    /// A correction costing more than this is made only where the word
    /// before favours it, when there is a word before and a list of pairs
    /// to ask: `very relavent` is `very relevant`, `quickly relavent` stays.
    var unsupported = 2.4
    /// What the word before takes off a correction, for each tenth of a
    /// log10 unit that the pair is likelier than chance (`can break`, not
    /// `can bark`), up to `contextLimit` tenths: 0.3 at most. It ranks the
    /// candidates and decides between near ones; it lets none past the
    /// ceiling or past the word as typed. (Tuned on the tuning parts'
    /// misspellings put into the fortunes of Debian's package at even
    /// places; 0.03 fixed a point more there, but changed `csh` to `cash`
    /// and `triager` to `trigger` in the technical prose.)
    var context = 0.015
    var contextLimit: UInt8 = 20

    /// The best of `candidates` (the dictionary's words, cheapest first)
    /// when it costs little enough and stands clearly above the next.
    func choose(_ candidates: some Collection<Candidate>) -> Candidate? {
      guard let best = candidates.first, best.cost + best.context <= ceiling else { return nil }
      if let next = candidates.dropFirst().first, next.cost - best.cost < margin { return nil }
      return best
    }

    /// What `candidate` costs: its slip, its capital, its rarity.
    func of(_ candidate: Candidate) -> Double {
      let slip: Double =
        switch candidate.slip {
        case .none: 0
        case .swapped: swapped
        case .moved: moved
        case .doubled: doubled
        case .neighbourKey: neighbourKey
        case .extraNeighbour: extraNeighbour
        case .vowel: vowel
        case .missing: missing
        case .extra: extra
        case .otherKey: otherKey
        case .listed: listed
        case .transliterated: transliterated
        case .accent: accent
        case .accents: accents
        case .two(let both): both + secondSlip
        case .soundsAlike: soundsAlike
        case .missedSpace(let halves): missedSpace + halves
        }
      return slip + (candidate.capital ? capital : 0) + (candidate.rarity.map(cost(ofRarity:)) ?? 0)
    }

    func cost(ofRarity value: UInt8) -> Double { max(0, Double(value) - commonRarity) * rarity }
  }

  /// The slip that turns a word into what was typed.
  enum Slip: Equatable {
    case none, swapped, doubled, neighbourKey, extraNeighbour, vowel, missing, extra, otherKey, listed, transliterated
    case accent, accents, moved
    /// Another spelling of the same sounds (``SoundsAlike``).
    case soundsAlike
    /// Two slips, which cost this much together.
    case two(Double)
    /// A space missed between two words, which cost this much more.
    case missedSpace(Double)

    /// The typed word in the dictionary's letters, accents or capital, or
    /// as its list of misspellings writes it.
    var isSpelling: Bool {
      self == .none || self == .transliterated || self == .accent || self == .accents || self == .listed
    }

    /// Two words (whose halves a dictionary confirmed already).
    var isMissedSpace: Bool {
      if case .missedSpace = self { return true }
      return false
    }
  }

  /// Words shorter or longer than these are never corrected.
  static let shortest = 2
  static let longest = 32
  /// Words shorter than this are never taken for two slips: too many
  /// words are two slips from a short one.
  static let shortestForTwoSlips = 6
  /// Words shorter than this are never taken for another spelling of
  /// their sounds: too many short words sound alike (Lisp's `defun` and
  /// `define`).
  static let shortestForSounds = 6

  struct Candidate {
    var word: [Unicode.Scalar]
    var slip: Slip
    /// The word is the dictionary's with a capital the typed word lacks.
    var capital = false
    /// How rare it is, where a list ranks the language's words.
    var rarity: UInt8? = nil
    /// What the word before took off the cost (``Costs/context``): it
    /// ranks the candidates, but lets none past the ceiling or the word as
    /// typed that would not pass alone.
    var context = 0.0
    /// Whether the word before favours it (the language's list of pairs
    /// has the two together): nil where there is no word before or no list.
    var favoured: Bool? = nil
    var cost = 0.0
  }

  let languages: [SpellingLanguage]
  let costs = Costs()

  /// The correction of `typed` (in lowercase), nil when none stands out.
  /// `neighbours` says which letters' keys touch on the layout;
  /// `nounsOnly`: only a noun of a language that writes nouns with a
  /// capital may be the correction; `previous`: the word before it in the
  /// sentence (in lowercase), where there is one.
  func correction(
    of typed: [Unicode.Scalar], neighbours: KeyNeighbours, nounsOnly: Bool = false, previous: [Unicode.Scalar]? = nil
  ) -> [Unicode.Scalar]? {
    guard typed.count >= Self.shortest, typed.count <= Self.longest else { return nil }
    if !nounsOnly, let contraction = contraction(of: typed, known: false) { return contraction }
    var near = candidates(of: typed, neighbours: neighbours, nounsOnly: nounsOnly, previous: previous)
    if !nounsOnly {
      near += splits(of: typed)
      near.sort { $0.cost < $1.cost }
    }
    var asked: [(word: [Unicode.Scalar], confirmed: Bool)] = []
    asked.reserveCapacity(12)
    var best = choose(near, asked: &asked)
    var nearby = near.contains { $0.cost + $0.context <= costs.ceiling }
    // Only where one slip finds nothing cheap that stands out are two looked for.
    if best.map({ $0.cost > costs.farFrom }) ?? true {
      let far = candidates(of: typed, neighbours: neighbours, nounsOnly: nounsOnly, reach: .twoSlips, previous: previous)
      if !far.isEmpty { best = choose((near + far).sorted { $0.cost < $1.cost }, asked: &asked) }
      nearby = nearby || far.contains { $0.cost + $0.context <= costs.ceiling }
    }
    // Only where no word is a slip or two away is one that sounds as typed
    // taken: `semetary` is `cemetery`, but `bouind` is `bound`, not `band`.
    if best == nil && !nearby && typed.count >= Self.shortestForSounds {
      best = choose(
        candidates(of: typed, neighbours: neighbours, nounsOnly: nounsOnly, reach: .sounds, previous: previous),
        asked: &asked)
    }
    guard let best else { return nil }
    if best.favoured == false && best.cost > costs.unsupported { return nil }
    // A word people write (the list has it) stays unless the correction is
    // commoner by more than its slip costs, or is the same word in the
    // dictionary's letters, accents or capital, or its list of misspellings'
    // word, and at least as common: the list has the Swiss `strasse` (a
    // German dictionary writes `Straße`), `connait` without its accent,
    // `wasser` for the noun `Wasser`, and `Entgeld` where its REP writes `Entgelt`.
    // (Two words run together have their own rule: ``splits(of:)``.)
    if !best.slip.isMissedSpace, let typedRarity = rarity(of: typed), typedRarity < SpellingLanguage.unlisted {
      let bestRarity = best.rarity ?? SpellingLanguage.unlisted
      let slip = best.cost + best.context - (best.rarity.map(costs.cost(ofRarity:)) ?? 0)
      let lead = (Double(typedRarity) - Double(bestRarity)) * costs.commoner
      if lead < costs.keep + slip && !(best.slip.isSpelling && bestRarity <= typedRarity) { return nil }
    }
    return best.word
  }

  /// The best of `found` (cheapest first) that a dictionary confirms, when
  /// it stands out. The index may hold a form the dictionary forbids, or
  /// (rarely) a stranger with the same fingerprint. A word's other reading
  /// (`grüße`, the noun `Grüße`) is no rival: the cheaper stands for both.
  /// `asked`: the words a dictionary was asked of already, and its answers
  /// (libhunspell's check of a long compound takes tens of microseconds).
  private func choose(_ found: [Candidate], asked: inout [(word: [Unicode.Scalar], confirmed: Bool)]) -> Candidate? {
    var confirmed: [Candidate] = []
    for candidate in found.prefix(6) {
      if !candidate.slip.isMissedSpace {
        if let answer = asked.first(where: { $0.word == candidate.word }) {
          guard answer.confirmed else { continue }
        } else {
          let answer = confirms(candidate.word)
          asked.append((candidate.word, answer))
          guard answer else { continue }
        }
      }
      if confirmed.contains(where: { Self.sameBeyondFirstCase($0.word, candidate.word) }) { continue }
      confirmed.append(candidate)
      if confirmed.count == 2 { break }
    }
    return costs.choose(confirmed)
  }

  /// `typed` as two words a missed space ran together: as its dictionary's
  /// list of misspellings writes it (`alot` is `a lot`), and (`thisis` is
  /// `this is`) at each place where both halves are common words a
  /// dictionary spells as written and that the list of pairs has
  /// together where there is one (not `an things`): where the list has
  /// `typed` itself (people write `filename`), only words as common as
  /// `this` and `is`.
  func splits(of typed: [Unicode.Scalar]) -> [Candidate] {
    // The dictionary's own: `alot` is `a lot`.
    var found: [Candidate] = []
    for language in languages {
      for (written, meant) in language.splits where written == typed {
        var candidate = Candidate(word: meant, slip: .missedSpace(costs.listedSplit - costs.missedSpace))
        candidate.cost = costs.of(candidate)
        found.append(candidate)
      }
    }
    guard typed.count >= 3, let typedRarity = rarity(of: typed) else { return found }
    let limit = typedRarity < SpellingLanguage.unlisted ? costs.splitListedRarity : costs.splitRarity
    for at in 1..<(typed.count - 1) {
      guard let leftRarity = rarity(of: typed[..<at]), leftRarity <= limit,
        let rightRarity = rarity(of: typed[at...]), rightRarity <= limit, spells(typed[..<at]), spells(typed[at...]),
        together(Array(typed[..<at]), Array(typed[at...])) ?? true
      else { continue }
      let halves =
        costs.cost(ofRarity: leftRarity) + costs.cost(ofRarity: rightRarity) + (at == 1 ? costs.letterWord : 0)
      var candidate = Candidate(word: typed[..<at] + [" "] + typed[at...], slip: .missedSpace(halves))
      candidate.cost = costs.of(candidate)
      found.append(candidate)
    }
    return found
  }

  /// Whether the languages' lists of pairs have `second` after `first`
  /// likelier than chance: nil where no language has a list.
  func together(_ first: [Unicode.Scalar], _ second: [Unicode.Scalar]) -> Bool? {
    var listed = false
    for language in languages where language.pairs != nil {
      if language.association(of: first, with: second) > 0 { return true }
      listed = true
    }
    return listed ? false : nil
  }

  /// Whether a dictionary spells `word` as written.
  func spells(_ word: some Collection<Unicode.Scalar>) -> Bool { languages.contains { $0.spells(word) } }

  /// Whether a dictionary lets `word` be typed as a correction
  /// (``SpellingLanguage/confirms(_:)``).
  func confirms(_ word: [Unicode.Scalar]) -> Bool { languages.contains { $0.confirms(word) } }

  /// Whether two words differ at most in their first letter's case.
  static func sameBeyondFirstCase(_ first: [Unicode.Scalar], _ second: [Unicode.Scalar]) -> Bool {
    guard first.count == second.count, let a = first.first, let b = second.first else { return false }
    return first.dropFirst().elementsEqual(second.dropFirst())
      && (a == b || a.properties.lowercaseMapping == b.properties.lowercaseMapping)
  }

  /// How rare `word` is in the languages' lists (the commonest reading):
  /// nil where no language has a list.
  func rarity(of word: some Collection<Unicode.Scalar>) -> UInt8? {
    var rarest: UInt8?
    for language in languages {
      if let value = language.rarity(of: word), value < rarest ?? .max { rarest = value }
    }
    return rarest
  }

  /// The contraction `typed` is without its apostrophe (`dont` → `don't`,
  /// `im` → `I'm`), where a dictionary spells one and it is commoner than
  /// `typed` by ``Costs/contractionLead`` (`known`: `typed` is a word, and
  /// the lists must say so; else a list that has `typed` must). Forms with
  /// an apostrophe are not in the indexes, so libhunspell is asked, once
  /// for each place in the word that the lists allow.
  func contraction(of typed: [Unicode.Scalar], known: Bool) -> [Unicode.Scalar]? {
    guard typed.count >= Self.shortest, typed.count <= Self.longest else { return nil }
    let typedRarity = rarity(of: typed)
    if known && typedRarity == nil { return nil }
    var best: (word: [Unicode.Scalar], rarity: UInt8)?
    var word = typed
    word.insert("'", at: 1)
    for place in 1..<typed.count {
      if place > 1 { word.swapAt(place - 1, place) }
      let value = rarity(of: word) ?? SpellingLanguage.unlisted
      // An `'s` is a contraction after the commonest words (`he's`,
      // `that's`); after another it would be a possessive, where `familys`
      // more likely meant `families`.
      if place == typed.count - 1 && typed[place] == "s" {
        guard let stem = rarity(of: typed[..<place]), stem <= costs.contractedStemRarity else { continue }
      }
      if let typedRarity {
        // With the lists, a contraction people write is in them: only
        // those places are asked of libhunspell.
        guard value < SpellingLanguage.unlisted else { continue }
        if typedRarity < SpellingLanguage.unlisted || known {
          guard Int(value) + Int(costs.contractionLead) <= Int(typedRarity) else { continue }
        }
      }
      guard best.map({ value < $0.rarity }) ?? true, let spelled = spelled(word) else { continue }
      best = (spelled, value)
    }
    return best?.word
  }

  /// `word` as a dictionary spells it: as written, or with a capital.
  private func spelled(_ word: [Unicode.Scalar]) -> [Unicode.Scalar]? {
    if spells(word) { return word }
    guard let capital = languages.lazy.compactMap({ $0.capitals[word[0]] }).first else { return nil }
    var capitalized = word
    capitalized[0] = capital
    return spells(capitalized) ? capitalized : nil
  }
}
