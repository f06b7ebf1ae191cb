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
    var transliterated = 0.5  // the language's letters written without their keys: ss for ß
    var secondSlip = 0.3  // two slips in one word, beside what each costs
    var capital = 0.3  // the word is written with a capital (a name, a German noun)
    /// Per unit of rarity (``SpellingLanguage/frequencies``) past
    /// `commonRarity`: the commonest words cost nothing, a word the list
    /// does not have 1.6.
    var rarity = 0.028
    var commonRarity = 38.0
    /// What the typed word costs, beside its rarity, where the list has it:
    /// a word people write (`stdout`, `env`) stays unless a correction is
    /// clearly likelier.
    var keep = 1.0
    /// How much commoner (in tenths of Zipf) a contraction must be than
    /// the word without its apostrophe: `cant` becomes `can't`, `ill` stays.
    var contractionLead: UInt8 = 10
    /// How far the best correction must stand above the next.
    var margin = 0.38
    /// A space missed between two words, beside how rare they are; a
    /// word of one letter (`a`, `i`) costs more.
    var missedSpace = 0.9
    var letterWord = 0.5
    /// The rarest words a missed space may have run together: Zipf 4 (once
    /// in ten thousand words), or Zipf 6 where the list has the words run
    /// together (`ofthe`, but not `filename`).
    var splitRarity: UInt8 = 35
    var splitListedRarity: UInt8 = 30
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
        case .transliterated: transliterated
        case .two(let both): both + secondSlip
        case .missedSpace(let halves): missedSpace + halves
        }
      return slip + (candidate.capital ? capital : 0) + (candidate.rarity.map(cost(ofRarity:)) ?? 0)
    }

    func cost(ofRarity value: UInt8) -> Double { max(0, Double(value) - commonRarity) * rarity }
  }

  /// The slip that turns a word into what was typed.
  enum Slip: Equatable {
    /// Two words: each half is confirmed already.
    var isMissedSpace: Bool {
      if case .missedSpace = self { return true }
      return false
    }

    case none, swapped, doubled, neighbourKey, extraNeighbour, vowel, missing, extra, otherKey, listed, transliterated
    /// Two slips, which cost this much together.
    case two(Double)
    /// A space missed between two words, which cost this much more.
    case missedSpace(Double)
  }

  /// Words shorter or longer than these are never corrected.
  static let shortest = 2
  static let longest = 32
  /// Words shorter than this are never taken for two slips: too many
  /// words are two slips from a short one.
  static let shortestForTwoSlips = 6

  struct Candidate {
    var word: [Unicode.Scalar]
    var slip: Slip
    /// The word is the dictionary's with a capital the typed word lacks.
    var capital = false
    /// How rare it is, where a list ranks the language's words.
    var rarity: UInt8? = nil
    var cost = 0.0
  }

  let languages: [SpellingLanguage]
  let costs = Costs()

  /// The correction of `typed` (in lowercase), nil when none stands out.
  /// `neighbours` says which letters' keys touch on the layout;
  /// `nounsOnly`: only a noun of a language that writes nouns with a
  /// capital may be the correction.
  func correction(
    of typed: [Unicode.Scalar], neighbours: KeyNeighbours, nounsOnly: Bool = false
  ) -> [Unicode.Scalar]? {
    guard typed.count >= Self.shortest, typed.count <= Self.longest else { return nil }
    if !nounsOnly, let contraction = contraction(of: typed, known: false) { return contraction }
    var near = candidates(of: typed, neighbours: neighbours, nounsOnly: nounsOnly)
    if !nounsOnly {
      near += splits(of: typed)
      near.sort { $0.cost < $1.cost }
    }
    var best = choose(near)
    // Only where one slip finds nothing that stands out are two looked for.
    if best == nil && typed.count >= Self.shortestForTwoSlips {
      let far = candidates(of: typed, neighbours: neighbours, nounsOnly: nounsOnly, twoSlips: true)
      if !far.isEmpty { best = choose((near + far).sorted { $0.cost < $1.cost }) }
    }
    guard let best else { return nil }
    // A word people write (the list has it) stays unless the correction
    // is clearly likelier than the word as typed, or is the word with the
    // dictionary's own letters and at least as common: the list has the
    // Swiss `strasse` and `gruesse`, a German dictionary writes `Straße`.
    if let typedRarity = rarity(of: typed), typedRarity < SpellingLanguage.unlisted,
      best.cost + costs.margin > costs.keep + costs.cost(ofRarity: typedRarity),
      !(best.slip == .transliterated && (best.rarity ?? SpellingLanguage.unlisted) <= typedRarity)
    {
      return nil
    }
    return best.word
  }

  /// The best of `found` (cheapest first) that libhunspell confirms, when
  /// it stands out. The index may hold a form the dictionary forbids, or
  /// (rarely) a stranger with the same fingerprint. A word's other reading
  /// (`grüße`, the noun `Grüße`) is no rival: the cheaper stands for both.
  private func choose(_ found: [Candidate]) -> Candidate? {
    var confirmed: [Candidate] = []
    for candidate in found.prefix(6) where candidate.slip.isMissedSpace || spells(candidate.word) {
      if confirmed.contains(where: { Self.sameBeyondFirstCase($0.word, candidate.word) }) { continue }
      confirmed.append(candidate)
      if confirmed.count == 2 { break }
    }
    return costs.choose(confirmed)
  }

  /// `typed` as two words a missed space ran together (`thisis` is `this
  /// is`), at each place where both halves are common words a dictionary
  /// spells as written: where the list has `typed` itself (people write
  /// `filename`), only words as common as `this` and `is`.
  func splits(of typed: [Unicode.Scalar]) -> [Candidate] {
    guard typed.count >= 3, let typedRarity = rarity(of: typed) else { return [] }
    let limit = typedRarity < SpellingLanguage.unlisted ? costs.splitListedRarity : costs.splitRarity
    var found: [Candidate] = []
    for at in 1..<(typed.count - 1) {
      guard let leftRarity = rarity(of: typed[..<at]), leftRarity <= limit,
        let rightRarity = rarity(of: typed[at...]), rightRarity <= limit, spells(typed[..<at]), spells(typed[at...])
      else { continue }
      let left = Array(typed[..<at])
      let right = Array(typed[at...])
      let halves = costs.cost(ofRarity: leftRarity) + costs.cost(ofRarity: rightRarity) + (at == 1 ? costs.letterWord : 0)
      var candidate = Candidate(word: left + [" "] + right, slip: .missedSpace(halves))
      candidate.cost = costs.of(candidate)
      found.append(candidate)
    }
    return found
  }

  /// Whether a dictionary spells `word` as written.
  private func spells(_ word: some Collection<Unicode.Scalar>) -> Bool { languages.contains { $0.spells(word) } }

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
    if languages.contains(where: { $0.spells(word) }) { return word }
    guard let capital = languages.lazy.compactMap({ $0.capitals[word[0]] }).first else { return nil }
    var capitalized = word
    capitalized[0] = capital
    return languages.contains(where: { $0.spells(capitalized) }) ? capitalized : nil
  }

  /// The words one slip away from `typed` that the indexes hold, each
  /// with its cheapest slip, cheapest first; `nounsOnly`: the nouns of the
  /// languages that write them with a capital; `twoSlips`: the common
  /// words two slips away instead.
  func candidates(
    of typed: [Unicode.Scalar], neighbours: KeyNeighbours, nounsOnly: Bool = false, twoSlips: Bool = false
  ) -> [Candidate] {
    var found: [Candidate] = []
    // A word is looked up in the languages whose alphabet it is written in.
    for language in languages where typed.allSatisfy({ language.letters.contains($0) }) {
      if nounsOnly && !language.capitalizesNouns { continue }
      var search = Search(typed: typed, language: language, neighbours: neighbours)
      if twoSlips { search.runTwoSlips(costs: costs) } else { search.run() }
      for var candidate in search.found where !nounsOnly || candidate.capital {
        candidate.rarity = language.rarity(of: candidate.word)
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
    /// The typed letters' classes among the language's runs of three
    /// (``LetterTrigrams``), with two word edges before and one after.
    let typedClasses: [LetterTrigrams.Class]
    let letterClasses: [LetterTrigrams.Class]
    /// The language's tables, held here: read through the language (a
    /// class) each lookup would retain and release them.
    let forms: WordIndex
    let trigrams: LetterTrigrams

    init(typed: [Unicode.Scalar], language: SpellingLanguage, neighbours: KeyNeighbours) {
      self.typed = typed
      self.language = language
      self.neighbours = neighbours
      scratch.reserveCapacity(typed.count + 8)
      typedPlaces = typed.map(neighbours.place(of:))
      letterPlaces = language.letters.map(neighbours.place(of:))
      typedVowels = typed.map(Self.isVowel)
      letterVowels = language.letters.map(Self.isVowel)
      let edge = LetterTrigrams.edge
      typedClasses = [edge, edge] + typed.map(language.trigrams.letterClass) + [edge]
      letterClasses = language.letters.map(language.trigrams.letterClass)
      forms = language.forms
      trigrams = language.trigrams
    }

    /// The class of the typed letter at `index`: an edge before or after.
    func typedClass(_ index: Int) -> LetterTrigrams.Class {
      index < typed.count ? typedClasses[index + 2] : LetterTrigrams.edge
    }

    /// Whether a word may have `letter` (of class `middle`) between the
    /// typed letters before `index` and those from `next` on: each run of
    /// three it makes is one some form has.
    func mayHave(_ middle: LetterTrigrams.Class, before index: Int, resumingAt next: Int) -> Bool {
      trigrams.contains(typedClass(index - 2), typedClass(index - 1), middle)
        && trigrams.contains(typedClass(index - 1), middle, typedClass(next))
        && (next >= typed.count || trigrams.contains(middle, typedClass(next), typedClass(next + 1)))
    }

    static func isVowel(_ scalar: Unicode.Scalar) -> Bool {
      "aeiouyäöüéèêàâîôûаеёиоуыэюя".unicodeScalars.contains(scalar)
    }

    /// `scratch` set to the typed word.
    mutating func reset() {
      scratch.removeAll(keepingCapacity: true)
      scratch.append(contentsOf: typed)
    }

    /// Looks up `scratch`: as written, or with a capital first letter, or
    /// both (German's `grüße` and the noun `Grüße`).
    mutating func consider(_ slip: Slip) {
      guard let form = forms.value(hash: WordIndex.hash(scratch)) else { return }
      if form != 1 { found.append(Candidate(word: scratch, slip: slip)) }
      if form != 0, let capital = language.capitals[scratch[0]] {
        var word = scratch
        word[0] = capital
        found.append(Candidate(word: word, slip: slip, capital: true))
      }
    }

    mutating func run() {
      let word = typed
      let count = word.count
      // The word itself with a capital: a name or a German noun.
      reset()
      if let form = forms.value(hash: WordIndex.hash(word)), form != 0 { consider(.none) }
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
          guard mayHave(letterClasses[letterIndex], before: index, resumingAt: index + 1) else { continue }
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
        for (letterIndex, letter) in language.letters.enumerated() {
          guard mayHave(letterClasses[letterIndex], before: index, resumingAt: index) else { continue }
          scratch[index] = letter
          let doubled = (index > 0 && word[index - 1] == letter) || (index < count && word[index] == letter)
          consider(doubled ? .doubled : .missing)
        }
      }
      transliterate()
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

    /// The common words two slips from the typed word, each costing what
    /// its two slips cost (``slips(typed:meant:costs:)``).
    mutating func runTwoSlips(costs: Costs) {
      guard let common = language.common else { return }
      var typedLetters: [UInt8] = []
      for scalar in typed {
        guard let index = language.letters.firstIndex(of: scalar), index < 255 else { return }
        typedLetters.append(UInt8(index))
      }
      var words: [(word: [UInt8], reading: UInt8)] = []
      var rows: [UInt8] = []
      var word: [UInt8] = []
      common.searchTwoSlips(typedLetters, rows: &rows, word: &word) { words.append(($0, $1)) }
      for (word, reading) in words {
        let slip = Slip.two(slips(typed: typedLetters, meant: word, costs: costs))
        scratch.removeAll(keepingCapacity: true)
        for letter in word { scratch.append(language.letters[Int(letter)]) }
        if reading != 1 { found.append(Candidate(word: scratch, slip: slip)) }
        if reading != 0, let capital = language.capitals[scratch[0]] {
          scratch[0] = capital
          found.append(Candidate(word: scratch, slip: slip, capital: true))
        }
      }
    }

    /// What the cheapest slips that make `typed` of `word` cost (both as
    /// indexes of the language's letters), each priced as the one-slip
    /// search prices it: an edit distance weighed by the keys' places.
    func slips(typed: [UInt8], meant word: [UInt8], costs: Costs) -> Double {
      let width = word.count + 1
      var table = [Double](repeating: 0, count: (typed.count + 1) * width)
      func place(_ letter: UInt8) -> KeyNeighbours.Place? { letterPlaces[Int(letter)] }
      for column in 1..<width { table[column] = Double(column) * costs.missing }
      for row in 1...typed.count {
        let letter = typed[row - 1]
        // The typed letter as one too many: doubled, beside a key pressed, or stray.
        let extra =
          (row > 1 && typed[row - 2] == letter) || (row < typed.count && typed[row] == letter)
          ? costs.doubled
          : (row > 1 && KeyNeighbours.touch(place(typed[row - 2]), place(letter)))
            || (row < typed.count && KeyNeighbours.touch(place(typed[row]), place(letter)))
            ? costs.extraNeighbour : costs.extra
        table[row * width] = table[(row - 1) * width] + extra
        for column in 1..<width {
          let meant = word[column - 1]
          let missing =
            (row > 0 && typed[row - 1] == meant) || (row < typed.count && typed[row] == meant)
            ? costs.doubled : costs.missing
          let other =
            meant == letter
            ? 0
            : KeyNeighbours.touch(place(letter), place(meant))
              ? costs.neighbourKey
              : letterVowels[Int(letter)] && letterVowels[Int(meant)] ? costs.vowel : costs.otherKey
          var cost = min(
            table[(row - 1) * width + column] + extra, table[row * width + column - 1] + missing,
            table[(row - 1) * width + column - 1] + other)
          if row > 1, column > 1, typed[row - 2] == meant, letter == word[column - 2], letter != meant {
            cost = min(cost, table[(row - 2) * width + column - 2] + costs.swapped)
          }
          table[row * width + column] = cost
        }
      }
      return table[table.count - 1]
    }

    /// The word with the language's letters in place of how a keyboard
    /// without them writes them, at any of the places it does so (up to
    /// four: 15 spellings), as one slip: `gruesse` is `grüße`.
    mutating func transliterate() {
      guard !language.transliterations.isEmpty else { return }
      var places: [(start: Int, typed: Int, meant: Unicode.Scalar)] = []
      var index = 0
      while index < typed.count && places.count < 4 {
        if let (spelled, letter) = language.transliterations.first(where: { typed[index...].starts(with: $0.typed) }) {
          places.append((index, spelled.count, letter))
          index += spelled.count
        } else {
          index += 1
        }
      }
      guard !places.isEmpty else { return }
      for chosen in 1..<(1 << places.count) {
        scratch.removeAll(keepingCapacity: true)
        var next = 0
        for (bit, place) in places.enumerated() where chosen & (1 << bit) != 0 {
          scratch.append(contentsOf: typed[next..<place.start])
          scratch.append(place.meant)
          next = place.start + place.typed
        }
        scratch.append(contentsOf: typed[next...])
        consider(.transliterated)
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
