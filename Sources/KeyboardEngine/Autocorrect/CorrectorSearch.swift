extension Corrector {
  /// One language's search around a typed word.
  struct Search {
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
    /// The letters each typed letter is with another accent or none.
    let typedMates: [[UInt8]]
    /// The typed letters' classes among the language's runs of three
    /// (``LetterTrigrams``), with two word edges before and one after.
    let typedClasses: [LetterTrigrams.Class]
    /// The language's tables, held here: read through the language (a
    /// class) each lookup would retain and release them.
    let forms: WordIndex<UInt16>
    let trigrams: LetterTrigrams
    /// The hash of each of the typed word's beginnings (``WordHash``
    /// before its last step): a slip's word is hashed from where it
    /// leaves the typed letters, and spelled out only when the index has it.
    let beginnings: [UInt64]

    init(typed: [Unicode.Scalar], language: SpellingLanguage, neighbours: KeyNeighbours) {
      self.typed = typed
      self.language = language
      self.neighbours = neighbours
      scratch.reserveCapacity(typed.count + 8)
      typedPlaces = typed.map(neighbours.place(of:))
      letterPlaces = language.letters.map(neighbours.place(of:))
      let typedIndexes = typed.map(language.trigrams.letterIndex)
      typedVowels = zip(typed, typedIndexes).map { $1.map { language.letterVowels[Int($0)] } ?? Self.isVowel($0) }
      typedMates = typedIndexes.map { $0.map { language.accentMates[Int($0)] } ?? [] }
      let edge = LetterTrigrams.edge
      typedClasses = [edge, edge] + typed.map(language.trigrams.letterClass) + [edge]
      forms = language.forms
      trigrams = language.trigrams
      var beginnings = [FNV1a.seed]
      beginnings.reserveCapacity(typed.count + 1)
      for scalar in typed { beginnings.append(WordHash.step(beginnings[beginnings.count - 1], scalar)) }
      self.beginnings = beginnings
    }

    /// The hash of the typed letters before `start`, then `first` and
    /// `second` where given, then the typed letters from `resume` on.
    func hash(
      keeping start: Int, then first: Unicode.Scalar? = nil, _ second: Unicode.Scalar? = nil, resumingAt resume: Int
    ) -> UInt64 {
      var hash = beginnings[start]
      if let first { hash = WordHash.step(hash, first) }
      if let second { hash = WordHash.step(hash, second) }
      for index in resume..<typed.count { hash = WordHash.step(hash, typed[index]) }
      return hash & ~1
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

    /// Whether each run of three letters of `scratch` that holds the one
    /// at `index` (the word's edges count as letters) is some form's.
    func scratchRunsExist(around index: Int) -> Bool {
      func letterClass(_ at: Int) -> LetterTrigrams.Class {
        at < 0 || at >= scratch.count ? LetterTrigrams.edge : trigrams.letterClass(scratch[at])
      }
      for start in (index - 2)...index where start <= scratch.count - 2 {
        guard trigrams.contains(letterClass(start), letterClass(start + 1), letterClass(start + 2)) else {
          return false
        }
      }
      return true
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
      guard let form = forms.value(hash: WordHash.of(scratch)) else { return }
      add(scratch, form: form, slip: slip)
    }

    /// Looks up the word of `hash`; where the index has it, `spell` writes
    /// it into `scratch`, which is then considered.
    mutating func consider(hash: UInt64, _ slip: Slip, spell: (inout [Unicode.Scalar]) -> Void) {
      guard let form = forms.value(hash: hash) else { return }
      consider(form: form, slip, spell: spell)
    }

    /// Considers the word `spell` writes into `scratch`, which the index
    /// has as `form`.
    mutating func consider(form: UInt8, _ slip: Slip, spell: (inout [Unicode.Scalar]) -> Void) {
      reset()
      spell(&scratch)
      add(scratch, form: form, slip: slip)
    }

    /// `word` as the index has it (`form`): as written, or with a capital, or both.
    mutating func add(_ word: [Unicode.Scalar], form: UInt8, slip: Slip) {
      if form != 1 { found.append(Candidate(word: word, slip: slip)) }
      if form != 0, let capital = language.capitals[word[0]] {
        var word = word
        word[0] = capital
        found.append(Candidate(word: word, slip: slip, capital: true))
      }
    }

    mutating func run() {
      let word = typed
      let count = word.count
      // The word itself with a capital: a name or a German noun.
      reset()
      if let form = forms.value(hash: WordHash.of(word)), form != 0 { consider(.none) }
      for index in 0..<count {
        // Swapped with the next letter.
        if index + 1 < count && word[index] != word[index + 1] {
          consider(hash: hash(keeping: index, then: word[index + 1], word[index], resumingAt: index + 2), .swapped) {
            $0.swapAt(index, index + 1)
          }
        }
        // Typed two places early or late: `knna` for `kann`.
        for place in stride(from: index - 2, through: index + 2, by: 4)
        where place >= 0 && place < count && word[place] != word[index] {
          reset()
          scratch.insert(scratch.remove(at: index), at: place)
          consider(.moved)
        }
        // One letter too many.
        if count > 1 {
          let letter = word[index]
          let slip: Slip =
            (index > 0 && word[index - 1] == letter) || (index + 1 < count && word[index + 1] == letter)
            ? .doubled
            : (index > 0 && KeyNeighbours.touch(typedPlaces[index - 1], typedPlaces[index]))
              || (index + 1 < count && KeyNeighbours.touch(typedPlaces[index + 1], typedPlaces[index]))
              ? .extraNeighbour : .extra
          consider(hash: hash(keeping: index, resumingAt: index + 1), slip) { $0.remove(at: index) }
        }
        // Another letter in its place.
        for (letterIndex, letter) in language.letters.enumerated() where letter != word[index] {
          guard mayHave(language.letterClasses[letterIndex], before: index, resumingAt: index + 1) else { continue }
          guard let form = forms.value(hash: hash(keeping: index, then: letter, resumingAt: index + 1)) else { continue }
          let slip: Slip =
            typedMates[index].contains(UInt8(letterIndex))
            ? .accent
            : KeyNeighbours.touch(typedPlaces[index], letterPlaces[letterIndex])
              ? .neighbourKey : language.letterVowels[letterIndex] && typedVowels[index] ? .vowel : .otherKey
          consider(form: form, slip) { $0[index] = letter }
        }
      }
      // A letter missing.
      for index in 0...count {
        for (letterIndex, letter) in language.letters.enumerated() {
          guard mayHave(language.letterClasses[letterIndex], before: index, resumingAt: index) else { continue }
          let doubled = (index > 0 && word[index - 1] == letter) || (index < count && word[index] == letter)
          consider(hash: hash(keeping: index, then: letter, resumingAt: index), doubled ? .doubled : .missing) {
            $0.insert(letter, at: index)
          }
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

    /// The word with two of its letters each with another accent or none
    /// (`deja` is `déjà`), at most ``mostAccentPairs`` spellings, each
    /// only where every run of three it makes is some form's.
    mutating func accentTwice() {
      var tried = 0
      for first in typed.indices where !typedMates[first].isEmpty {
        for second in (first + 1)..<typed.count where !typedMates[second].isEmpty {
          for firstMate in typedMates[first] {
            for secondMate in typedMates[second] {
              guard tried < Self.mostAccentPairs else { return }
              tried += 1
              reset()
              scratch[first] = language.letters[Int(firstMate)]
              scratch[second] = language.letters[Int(secondMate)]
              if scratchRunsExist(around: first) && scratchRunsExist(around: second) { consider(.accents) }
            }
          }
        }
      }
    }
    static let mostAccentPairs = 256

    /// The common words two slips from the typed word, each costing what
    /// its two slips cost (``slips(typed:meant:costs:table:)``). A word
    /// that costs more than the ceiling and the margin together could be
    /// neither the correction nor a rival to one: it is left out here.
    mutating func runTwoSlips(costs: Costs) {
      guard let common = language.common else { return }
      var typedLetters: [UInt8] = []
      for scalar in typed {
        guard let index = trigrams.letterIndex(scalar) else { return }
        typedLetters.append(index)
      }
      var walk = CommonWords.Scratch()
      var table: [Double] = []
      let unlikely = costs.ceiling + costs.margin
      // The second letter as typed, or the third (the second left out or
      // swapped), or any vowel for a vowel: nearly every real misspelling
      // two slips away keeps its first two letters so.
      var second = CommonWords.LetterSet()
      for letter in typedLetters.dropFirst().prefix(2) { second.insert(letter) }
      if typedLetters.count > 1 && language.letterVowels[Int(typedLetters[1])] {
        for (letter, isVowel) in language.letterVowels.prefix(255).enumerated() where isVowel {
          second.insert(UInt8(letter))
        }
      }
      // What a word of the commonest (which costs nothing for its rarity) would cost.
      let cheapest = costs.of(Candidate(word: [], slip: .two(0)))
      common.searchTwoSlips(typedLetters, second: second, scratch: &walk) { word, reading in
        let both = slips(typed: typedLetters, meant: word, costs: costs, table: &table)
        guard cheapest + both <= unlikely else { return }
        let slip = Slip.two(both)
        scratch.removeAll(keepingCapacity: true)
        for letter in word { scratch.append(language.letters[Int(letter)]) }
        let rarity = language.rarity(of: scratch)
        func likely(capital: Bool) -> Bool {
          costs.of(Candidate(word: [], slip: slip, capital: capital, rarity: rarity)) <= unlikely
        }
        if reading != 1, likely(capital: false) { found.append(Candidate(word: scratch, slip: slip)) }
        if reading != 0, likely(capital: true), let capital = language.capitals[scratch[0]] {
          scratch[0] = capital
          found.append(Candidate(word: scratch, slip: slip, capital: true))
        }
      }
    }

    /// What the cheapest slips that make `typed` of `word` cost (both as
    /// indexes of the language's letters), each priced as the one-slip
    /// search prices it: an edit distance weighed by the keys' places.
    /// `table`: the work's scratch space, reused between words.
    func slips(typed: [UInt8], meant word: [UInt8], costs: Costs, table: inout [Double]) -> Double {
      let width = word.count + 1
      let size = (typed.count + 1) * width
      if table.count < size { table = [Double](repeating: 0, count: size) }
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
            : language.accentMates[Int(letter)].contains(meant)
              ? costs.accent
              : KeyNeighbours.touch(place(letter), place(meant))
                ? costs.neighbourKey
                : language.letterVowels[Int(letter)] && language.letterVowels[Int(meant)] ? costs.vowel : costs.otherKey
          var cost = min(
            table[(row - 1) * width + column] + extra, table[row * width + column - 1] + missing,
            table[(row - 1) * width + column - 1] + other)
          if row > 1, column > 1, typed[row - 2] == meant, letter == word[column - 2], letter != meant {
            cost = min(cost, table[(row - 2) * width + column - 2] + costs.swapped)
          }
          table[row * width + column] = cost
        }
      }
      return table[size - 1]
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

extension Corrector {
  /// How far from the typed word ``candidates(of:neighbours:nounsOnly:reach:previous:)`` looks.
  enum Reach {
    /// One slip away.
    case oneSlip
    /// Two slips away: two accents at any length; the common words two
    /// slips away from ``shortestForTwoSlips`` letters on.
    case twoSlips
    /// The common words that sound as typed (English's).
    case sounds
  }

  /// The words within `reach` of `typed` that the indexes hold, each
  /// with its cheapest slip, cheapest first; `nounsOnly`: the nouns of the
  /// languages that write them with a capital; `previous`: the word
  /// before, which makes a candidate likelier as the pair is.
  func candidates(
    of typed: [Unicode.Scalar], neighbours: KeyNeighbours, nounsOnly: Bool = false, reach: Reach = .oneSlip,
    previous: [Unicode.Scalar]? = nil
  ) -> [Candidate] {
    var found: [Candidate] = []
    // A word is looked up in the languages whose alphabet it is written in.
    for language in languages where typed.allSatisfy(language.hasLetter) {
      if nounsOnly && !language.capitalizesNouns { continue }
      var search = Search(typed: typed, language: language, neighbours: neighbours)
      switch reach {
      case .oneSlip:
        search.run()
      case .twoSlips:
        search.accentTwice()
        if typed.count >= Self.shortestForTwoSlips { search.runTwoSlips(costs: costs) }
      case .sounds:
        search.runSoundsAlike()
      }
      for var candidate in search.found where !nounsOnly || candidate.capital {
        // A noun's capital costs nothing where the user typed it.
        if nounsOnly { candidate.capital = false }
        candidate.rarity = language.rarity(of: candidate.word)
        candidate.cost = costs.of(candidate)
        if let previous, language.pairs != nil {
          let association = language.association(of: previous, with: candidate.word)
          candidate.favoured = association > 0
          candidate.context = Double(min(association, costs.contextLimit)) * costs.context
          candidate.cost -= candidate.context
        }
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
}
