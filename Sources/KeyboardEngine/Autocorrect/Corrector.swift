/// The corrections of a word no dictionary knows (DESIGN 9, rule 3): its
/// neighbours one edit away that a dictionary has, weighed by an error
/// model of the user's real layout (a neighbouring key is a likelier slip
/// than a far one, a doubled or swapped letter likelier than a missing
/// one), by the dictionary's own table of common misspellings, and by how
/// common each word is where a list says. The best one is taken only when
/// it stands clearly above the next.
struct Corrector {
  /// What each kind of slip costs; a correction costs the sum of its slip
  /// and how rare its word is. (Tuned on the codespell misspellings at
  /// every 7th place of its list; README gives the figures on others.)
  struct Costs {
    var swapped = 0.45
    var doubled = 0.4  // a letter typed twice, or once for two
    var neighbourKey = 1.3  // a key beside the right one
    var extraNeighbour = 1.4  // a key beside the next or last one pressed too
    var vowel = 1.1  // one vowel for another
    var missing = 0.9
    var extra = 1.6
    var otherKey = 1.9
    var listed = 1.5  // the dictionary's list of misspellings (REP)
    var capital = 0.3  // the word is written with a capital (a name, a German noun)
    /// Per SCOWL class: the commonest words cost nothing, rare ones 1.6.
    var rarity = 0.2
    /// How far the best correction must stand above the next.
    var margin = 0.38
    /// A correction costing more is no correction.
    var ceiling = 2.6

    /// The best of `candidates` (the dictionary's words, cheapest first)
    /// when it costs little enough and stands clearly above the next.
    func choose(_ candidates: some Collection<Candidate>) -> Candidate? {
      guard let best = candidates.first, best.cost <= ceiling else { return nil }
      if let next = candidates.dropFirst().first, next.cost - best.cost < margin { return nil }
      return best
    }

    /// What `candidate` costs: its slip, its capital, its rarity.
    func of(_ candidate: Candidate) -> Double {
      let slip: Double =
        switch candidate.slip {
        case .none: 0
        case .swapped: swapped
        case .doubled: doubled
        case .neighbourKey: neighbourKey
        case .extraNeighbour: extraNeighbour
        case .vowel: vowel
        case .missing: missing
        case .extra: extra
        case .otherKey: otherKey
        case .listed: listed
        }
      return slip + (candidate.capital ? capital : 0) + (candidate.rarity.map { Double($0) * rarity } ?? 0)
    }
  }

  /// The slip that turns a word into what was typed.
  enum Slip { case none, swapped, doubled, neighbourKey, extraNeighbour, vowel, missing, extra, otherKey, listed }

  /// Words shorter or longer than these are never corrected.
  static let shortest = 2
  static let longest = 32

  struct Candidate {
    var word: [Unicode.Scalar]
    var slip: Slip
    /// The word is the dictionary's with a capital the typed word lacks.
    var capital = false
    /// Its frequency class, where a list ranks the language's words.
    var rarity: UInt8? = nil
    var cost = 0.0
  }

  let languages: [SpellingLanguage]
  let costs = Costs()

  /// The correction of `typed` (in lowercase), nil when none stands out.
  /// `neighbours` says which letters' keys touch on the layout.
  func correction(of typed: [Unicode.Scalar], neighbours: KeyNeighbours) -> [Unicode.Scalar]? {
    guard typed.count >= Self.shortest, typed.count <= Self.longest else { return nil }
    let found = candidates(of: typed, neighbours: neighbours)
    // libhunspell confirms the leaders: the index may hold a form the
    // dictionary forbids, or (rarely) a stranger with the same fingerprint.
    var confirmed: [Candidate] = []
    for candidate in found.prefix(6) where languages.contains(where: { $0.spells(candidate.word) }) {
      confirmed.append(candidate)
      if confirmed.count == 2 { break }
    }
    return costs.choose(confirmed)?.word
  }

  /// The words one slip away from `typed` that the indexes hold, each
  /// with its cheapest slip, cheapest first.
  func candidates(of typed: [Unicode.Scalar], neighbours: KeyNeighbours) -> [Candidate] {
    var found: [Candidate] = []
    // A word is looked up in the languages whose alphabet it is written in.
    for language in languages where typed.allSatisfy({ language.letters.contains($0) }) {
      var search = Search(typed: typed, language: language, neighbours: neighbours)
      search.run()
      for var candidate in search.found {
        candidate.rarity = language.frequencyClass(hash: WordIndex.hash(candidate.word))
        candidate.cost = costs.of(candidate)
        if let index = found.firstIndex(where: { $0.word == candidate.word }) {
          if candidate.cost < found[index].cost { found[index] = candidate }
        } else {
          found.append(candidate)
        }
      }
    }
    found.sort { $0.cost < $1.cost }
    return found
  }

  /// One language's search around a typed word.
  private struct Search {
    let typed: [Unicode.Scalar]
    let language: SpellingLanguage
    let neighbours: KeyNeighbours
    var found: [Candidate] = []
    /// The candidate being looked up: written in place, never reallocated.
    var scratch: [Unicode.Scalar] = []
    /// Where the keys of the typed letters and of the language's letters are.
    let typedPlaces: [KeyNeighbours.Place?]
    let letterPlaces: [KeyNeighbours.Place?]
    let typedVowels: [Bool]
    let letterVowels: [Bool]

    init(typed: [Unicode.Scalar], language: SpellingLanguage, neighbours: KeyNeighbours) {
      self.typed = typed
      self.language = language
      self.neighbours = neighbours
      scratch.reserveCapacity(typed.count + 8)
      typedPlaces = typed.map(neighbours.place(of:))
      letterPlaces = language.letters.map(neighbours.place(of:))
      typedVowels = typed.map(Self.isVowel)
      letterVowels = language.letters.map(Self.isVowel)
    }

    static func isVowel(_ scalar: Unicode.Scalar) -> Bool {
      "aeiouyäöüéèêàâîôûаеёиоуыэюя".unicodeScalars.contains(scalar)
    }

    /// `scratch` set to the typed word.
    mutating func reset() {
      scratch.removeAll(keepingCapacity: true)
      scratch.append(contentsOf: typed)
    }

    /// Looks up `scratch`: as written, or with a capital first letter.
    mutating func consider(_ slip: Slip) {
      switch language.form(hash: WordIndex.hash(scratch)) {
      case 0?: found.append(Candidate(word: scratch, slip: slip))
      case 1?:
        guard let capital = language.capitals[scratch[0]] else { return }
        var word = scratch
        word[0] = capital
        found.append(Candidate(word: word, slip: slip, capital: true))
      default: return
      }
    }

    mutating func run() {
      let word = typed
      let count = word.count
      // The word itself with a capital: a name or a German noun.
      reset()
      if language.form(hash: WordIndex.hash(word)) == 1 { consider(.none) }
      for index in 0..<count {
        // Swapped with the next letter.
        if index + 1 < count && word[index] != word[index + 1] {
          reset()
          scratch.swapAt(index, index + 1)
          consider(.swapped)
        }
        // One letter too many.
        if count > 1 {
          reset()
          scratch.remove(at: index)
          let letter = word[index]
          let slip: Slip =
            (index > 0 && word[index - 1] == letter) || (index + 1 < count && word[index + 1] == letter)
            ? .doubled
            : (index > 0 && KeyNeighbours.touch(typedPlaces[index - 1], typedPlaces[index]))
              || (index + 1 < count && KeyNeighbours.touch(typedPlaces[index + 1], typedPlaces[index]))
              ? .extraNeighbour : .extra
          consider(slip)
        }
        // Another letter in its place.
        reset()
        for (letterIndex, letter) in language.letters.enumerated() where letter != word[index] {
          scratch[index] = letter
          let slip: Slip =
            KeyNeighbours.touch(typedPlaces[index], letterPlaces[letterIndex])
            ? .neighbourKey : letterVowels[letterIndex] && typedVowels[index] ? .vowel : .otherKey
          consider(slip)
        }
      }
      // A letter missing.
      for index in 0...count {
        reset()
        scratch.insert(language.letters.first ?? "a", at: index)
        for letter in language.letters {
          scratch[index] = letter
          let doubled = (index > 0 && word[index - 1] == letter) || (index < count && word[index] == letter)
          consider(doubled ? .doubled : .missing)
        }
      }
      // The dictionary's own misspellings.
      for (wrong, meant) in language.replacements where wrong.count <= count {
        for start in 0...(count - wrong.count) where word[start..<(start + wrong.count)].elementsEqual(wrong) {
          scratch.removeAll(keepingCapacity: true)
          scratch.append(contentsOf: word[..<start])
          scratch.append(contentsOf: meant)
          scratch.append(contentsOf: word[(start + wrong.count)...])
          if !scratch.isEmpty { consider(.listed) }
        }
      }
    }
  }
}

/// Which letters' keys touch on a layout: the keys of the three letter
/// rows (and the digits above) at their places on a staggered keyboard,
/// with the letter each types in one group without modifiers.
public struct KeyNeighbours: Sendable {
  /// A key's place: its column (staggered) and row.
  struct Place: Sendable {
    var x: Double
    var y: Double
  }
  private var places: [Unicode.Scalar: Place] = [:]

  /// The places of the letters of `layout` in `group`.
  public init(layout: Layout, group: Int) {
    let rows: [(first: UInt16, last: UInt16, x: Double, y: Double)] = [
      (2, 13, 0.5, 0), (16, 27, 0, 1), (30, 40, 0.25, 2), (44, 53, 0.75, 3),
    ]
    var keyPlaces: [UInt16: Place] = [:]
    for row in rows {
      for code in row.first...row.last { keyPlaces[code] = Place(x: row.x + Double(code - row.first), y: row.y) }
    }
    keyPlaces[86] = Place(x: -0.25, y: 3)  // the ISO key left of Z
    for (character, stroke) in layout.baseCharacters(in: group) {
      if let place = keyPlaces[stroke] { places[character] = place }
    }
  }

  func place(of letter: Unicode.Scalar) -> Place? { places[letter] }

  /// Whether the keys at two places are next to each other.
  static func touch(_ first: Place?, _ second: Place?) -> Bool {
    guard let first, let second else { return false }
    let dx = first.x - second.x
    let dy = first.y - second.y
    return dx * dx + dy * dy <= 1.6
  }
}
