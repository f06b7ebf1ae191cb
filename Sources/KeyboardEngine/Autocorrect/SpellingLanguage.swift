/// One language's spelling dictionary (DESIGN 9): Debian's hunspell files
/// for it, read twice. libhunspell decides whether a word is spelled right
/// (it knows every affixed and compound form); vkbd's own index of the
/// dictionary's word forms (``WordIndex``) finds in a few microseconds
/// which of a typo's hundreds of neighbours are words at all, for
/// libhunspell to confirm. Where the `.aff` file holds nothing vkbd does
/// not read (Russian's: suffixes alone), the index lists every word
/// libhunspell would accept, and libhunspell is not opened: its tables
/// are most of a language's memory. wordfreq's list of the language
/// (converted at build time) says how common each word is in real use. The engine
/// reads no file: the daemon reads them and opens libhunspell
/// (HunspellFiles), and hands over their bytes and the checker.
public final class SpellingLanguage: @unchecked Sendable {
  /// The dictionary's name: `en_US`.
  public let name: String
  /// Word forms the index holds, and whether the dictionary had more than
  /// it keeps (``maximumForms``).
  public let formCount: Int
  public let isTruncated: Bool
  /// The bytes of vkbd's own tables (libhunspell's are not counted here).
  public let indexBytes: Int
  /// Each form with its first letter in lowercase: 0 for a word written
  /// so, 1 for one the dictionary has only with a capital (a name, a German
  /// noun). One lookup finds either.
  let forms: WordIndex<UInt16>
  /// The runs of three letters the forms have.
  let trigrams: LetterTrigrams
  /// How rare each word is in real use, as wordfreq's list of the
  /// language ranks it: 90 less ten times its Zipf value (0 for a word as
  /// common as "the", 80 for one in a hundred million words); nil: no list.
  let frequencies: WordIndex<UInt32>?
  /// The list's common words that the dictionary has, searched two slips
  /// around a typo; nil without a list.
  let common: CommonWords?
  /// English's common words by how they sound; nil for another language
  /// or without a list.
  let sounds: SoundsAlike?
  /// Why the language's frequency list is not in use, with its path.
  public let frequencyProblem: String?
  /// How much likelier a word is right after another than anywhere, for
  /// the pairs a list has (scripts/wordpairs-convert; English's): ten
  /// times the log10 of the ratio, by the hash of "first second". Nil: no
  /// list of pairs.
  let pairs: WordIndex<UInt32>?
  /// Why the language's list of word pairs is not in use, with its path.
  public let pairsProblem: String?
  /// Whether the language writes its nouns with a capital (German,
  /// Luxembourgish): a capital in mid-sentence may be a noun's, not a name's.
  public var capitalizesNouns: Bool { name.hasPrefix("de") || name.hasPrefix("lb") }
  /// The lowercase letters of the language, most frequent first, and the
  /// capital of each that has one of its own.
  let letters: [Unicode.Scalar]
  let capitals: [Unicode.Scalar: Unicode.Scalar]
  /// Whether each letter is a vowel, and its class among the runs of three.
  let letterVowels: [Bool]
  let letterClasses: [LetterTrigrams.Class]
  let replacements: [(typed: [Unicode.Scalar], meant: [Unicode.Scalar])]
  /// Two words its dictionary's list of misspellings says are written as
  /// one (`alot` for `a lot`).
  let splits: [(typed: [Unicode.Scalar], meant: [Unicode.Scalar])]
  /// For each letter, the others that are the same letter with another
  /// accent or none (`e`, `é`, `è`, `ê`; `е`, `ё`), or that the
  /// dictionary's `MAP` takes for it: typed for one another more often
  /// than any two keys (``accentMates(of:alike:)``).
  let accentMates: [[UInt8]]
  /// The language's own letters written without their keys, as its
  /// dictionary's list of misspellings gives them (German's `ss` for `ß`,
  /// `ae` for `ä`): the commonest slips of all where a keyboard lacks them.
  let transliterations: [(typed: [Unicode.Scalar], meant: Unicode.Scalar)]
  /// libhunspell, where vkbd's index cannot stand for it
  /// (``AffixFile/isReadWhole``, and the index whole): nil where it can.
  private let checker: (any WordChecker)?
  /// Whether libhunspell decides which words are spelled right (else
  /// vkbd's own index of the dictionary's forms does, and a correction
  /// must be in the frequency list too).
  public var usesLibhunspell: Bool { checker != nil }
  /// The UTF-8 of a word for libhunspell: written in place, never allocated.
  private let buffer: UnsafeMutablePointer<CChar>
  private static let bufferSize = 512

  /// How a letter is written on a keyboard without it.
  static let spellings: [Unicode.Scalar: [Unicode.Scalar]] = [
    "ß": ["s", "s"], "ä": ["a", "e"], "ö": ["o", "e"], "ü": ["u", "e"], "æ": ["a", "e"], "œ": ["o", "e"],
    "ø": ["o", "e"], "å": ["a", "a"],
  ]

  /// At most this many word forms are indexed (about 17 MB of table): a
  /// dictionary with more is used up to there, and says so.
  static let maximumForms = 3_000_000
  /// libhunspell's longest word (MAXWORDLEN).
  static let maximumWordLength = 100

  /// Builds `name` from its `.aff` and `.dic` files' bytes, with
  /// `checker` (libhunspell over the same files) made once they parsed,
  /// and the language's frequency list (scripts/wordfreq-convert) and
  /// word pairs (scripts/wordpairs-convert): nil where none is used, else
  /// the file or why it could not be read. A dictionary file that does not
  /// parse is an error naming it; a frequency or word-pair file that does
  /// not is ``frequencyProblem`` or ``pairsProblem``, and the language
  /// corrects without it.
  public init(
    name: String, affixes affixFile: SpellingFile, dictionary dictionaryFile: SpellingFile,
    frequencies frequencyFile: Result<SpellingFile, SpellingError>?,
    pairs pairsFile: Result<SpellingFile, SpellingError>? = nil,
    checker makeChecker: () throws(SpellingError) -> any WordChecker
  ) throws(SpellingError) {
    let affixes = try AffixFile(text: affixFile.text(), path: affixFile.path)
    (forms, trigrams, isTruncated) = Self.forms(
      of: try WordForms.lines(of: dictionaryFile.text(), path: dictionaryFile.path), affixes: affixes)
    checker = affixes.isReadWhole && !isTruncated ? nil : try makeChecker()
    formCount = forms.count
    letters = affixes.letters
    letterVowels = letters.map(Corrector.Search.isVowel)
    letterClasses = letters.map(trigrams.letterClass)
    if let frequencyFile {
      do throws(SpellingError) {
        let (list, text) = try WordListFile.frequencies(in: frequencyFile.get())
        frequencies = list
        let words = Self.commonWords(text, forms: forms, list: list, trigrams: trigrams)
        // The file lists its words sorted by their text: by the letters' scalars.
        common = CommonWords(words: words, weight: letters.prefix(255).map(\.value))
        sounds = name.hasPrefix("en") ? SoundsAlike(words: words, alphabet: letters) : nil
        frequencyProblem = nil
      } catch {
        frequencies = nil
        common = nil
        sounds = nil
        frequencyProblem = "\(error)"
      }
    } else {
      frequencies = nil
      common = nil
      sounds = nil
      frequencyProblem = nil
    }
    do throws(SpellingError) {
      pairs = try pairsFile.map { file throws(SpellingError) in try WordListFile.pairs(in: file.get()) }
      pairsProblem = nil
    } catch {
      pairs = nil
      pairsProblem = "\(error)"
    }
    indexBytes =
      forms.memoryBytes + (frequencies?.memoryBytes ?? 0) + (common?.memoryBytes ?? 0) + (sounds?.memoryBytes ?? 0)
      + (pairs?.memoryBytes ?? 0)
    self.name = name
    var capitals: [Unicode.Scalar: Unicode.Scalar] = [:]
    for letter in letters {
      let capital = letter.properties.uppercaseMapping.unicodeScalars
      if capital.count == 1, capital.first != letter { capitals[letter] = capital.first }
    }
    self.capitals = capitals
    replacements = affixes.replacements
    splits = affixes.splits
    accentMates = Self.accentMates(of: letters, alike: affixes.alike)
    transliterations = affixes.replacements.compactMap { typed, meant in
      guard meant.count == 1, let letter = meant.first, Self.spellings[letter]?.elementsEqual(typed) == true else {
        return nil
      }
      return (typed, letter)
    }
    buffer = .allocate(capacity: Self.bufferSize)
  }

  /// The accents a letter may be written with, or with none: grave, acute,
  /// circumflex, tilde, macron, dot, diaeresis, ring, double acute, caron,
  /// cedilla, ogonek. Not the breve: `й` is a key of its own, no `и`
  /// with an accent.
  private static let accents: [Unicode.Scalar] = [
    "\u{300}", "\u{301}", "\u{302}", "\u{303}", "\u{304}", "\u{307}", "\u{308}", "\u{30A}", "\u{30B}", "\u{30C}",
    "\u{327}", "\u{328}",
  ]

  /// For each of `letters`, the indexes of the others of its group: the
  /// letters that are one letter with an accent (Unicode's canonical
  /// equivalence decides: `é` is `e` and an acute), joined by the groups
  /// of the dictionary's `MAP`.
  static func accentMates(of letters: [Unicode.Scalar], alike: [[Unicode.Scalar]]) -> [[UInt8]] {
    let letters = Array(letters.prefix(255))
    var group = Array(letters.indices)
    func join(_ first: Int, _ second: Int) {
      let (kept, gone) = (group[first], group[second])
      guard kept != gone else { return }
      for index in group.indices where group[index] == gone { group[index] = kept }
    }
    for (index, letter) in letters.enumerated() where letter.value >= 0xC0 {
      let written = String(Character(letter))
      for (baseIndex, base) in letters.enumerated() where base.value < letter.value {
        if accents.contains(where: { String(String.UnicodeScalarView([base, $0])) == written }) {
          join(baseIndex, index)
        }
      }
    }
    for members in alike {
      let indexes = members.compactMap { letters.firstIndex(of: $0) }
      for index in indexes.dropFirst() { join(indexes[0], index) }
    }
    return letters.indices.map { index in
      letters.indices.filter { $0 != index && group[$0] == group[index] }.map { UInt8($0) }
    }
  }

  /// The index of the forms of the words of `lines`, and their runs of
  /// three letters.
  private static func forms(
    of lines: Substring.UnicodeScalarView, affixes: AffixFile
  ) -> (WordIndex<UInt16>, LetterTrigrams, isTruncated: Bool) {
    var keys = FormKeys(trigrams: LetterTrigrams(letters: affixes.letters))
    keys.isTruncated = WordForms.expand(lines, affixes: affixes) { keys.add($0, form: $1) }
    return (WordIndex(keys: keys.hashes), keys.trigrams, keys.isTruncated)
  }

  /// The keys of word forms (a hash, and in its lowest bit whether the
  /// word has a capital), at most ``maximumForms`` distinct, and the runs
  /// of three letters the forms have.
  private struct FormKeys {
    var hashes: [UInt64] = []
    /// The distinct keys before `unique`, sorted.
    var unique = 0
    var trigrams: LetterTrigrams
    var isTruncated = false

    /// Adds a form's key; false once there are as many as are kept.
    mutating func add(_ key: UInt64, form: [Unicode.Scalar]) -> Bool {
      hashes.append(key)
      trigrams.add(form)
      // Many forms come twice or more (from two flags): only distinct ones count.
      if hashes.count - unique >= SpellingLanguage.maximumForms { keepDistinct() }
      return unique < SpellingLanguage.maximumForms
    }

    private mutating func keepDistinct() {
      hashes.sort()
      var kept = 0
      // Sorted, a word's two readings (bit 0) stay side by side.
      for hash in hashes where kept == 0 || hashes[kept - 1] != hash {
        hashes[kept] = hash
        kept += 1
      }
      hashes.removeLast(hashes.count - kept)
      unique = kept
    }
  }

  deinit { buffer.deallocate() }

  /// Whether libhunspell accepts `word` as spelled (its affixed and
  /// compound forms included), or where it is not used, whether the index
  /// holds it (as written, or in lowercase but for its first letter).
  /// Words past libhunspell's length are not judged: false. One call at a
  /// time: libhunspell's handle and the word buffer are not shared safely
  /// (the daemon asks from its loop alone, tests and `vkbd simulate` from
  /// several threads).
  func spells(_ word: some Collection<Unicode.Scalar>) -> Bool {
    guard word.count <= Self.maximumWordLength, let first = word.first else { return false }
    guard let checker else {
      let lower = first.properties.lowercaseMapping.unicodeScalars
      guard lower.count == 1, let initial = lower.first else { return false }
      guard let reading = forms.value(hash: WordHash.of(CollectionOfOne(initial), then: word.dropFirst())) else {
        return false
      }
      // A word in lowercase is one the dictionary has so (0, or both: 2).
      return initial != first || reading != 1
    }
    return lock.withLock {
      var length = 0
      for scalar in word {
        for unit in UTF8.encode(scalar)! {
          guard length < Self.bufferSize - 1 else { return false }
          buffer[length] = CChar(bitPattern: unit)
          length += 1
        }
      }
      guard length > 0 else { return false }
      buffer[length] = 0
      return checker.spells(buffer)
    }
  }
  private let lock = Lock()

  /// Whether `word` may be typed as a correction: libhunspell accepts it,
  /// or where it is not used, the index holds it and the frequency list
  /// too, where there is one (two fingerprints of the word, where the
  /// index's alone matches a stranger once in about ten thousand lookups).
  func confirms(_ word: [Unicode.Scalar]) -> Bool {
    guard spells(word) else { return false }
    guard checker == nil, let value = rarity(of: word) else { return true }
    return value < Self.unlisted
  }

  /// Whether the index holds the word of `hash` (its first letter in
  /// lowercase): 0 as written, 1 with a capital; nil not at all. A fast,
  /// nearly always right answer, which ``spells(_:)`` confirms.
  func form(hash: UInt64) -> UInt8? { forms.value(hash: hash) }

  /// Whether `scalar` is one of the language's letters: a look-up in the
  /// trigrams' table, which holds the first 255 letters below U+0530; the
  /// list itself for a scalar the table cannot hold.
  func hasLetter(_ scalar: Unicode.Scalar) -> Bool {
    if trigrams.letterIndex(scalar) != nil { return true }
    return (scalar.value >= 0x530 || letters.count > 255) && letters.contains(scalar)
  }

  /// How rare the word of `hash` is (see ``frequencies``): ``unlisted``
  /// for a word the list does not have, nil without a list.
  func rarity(hash: UInt64) -> UInt8? {
    guard let frequencies else { return nil }
    return frequencies.value(hash: hash) ?? Self.unlisted
  }
  static let unlisted: UInt8 = 95

  /// How rare `word` is, its first letter taken in lowercase (the lists
  /// have words as written in running text: `zeit` for the noun `Zeit`)
  /// and `ß` as `ss` (wordfreq folds case so: `straße` is `strasse`).
  func rarity(of word: some Collection<Unicode.Scalar>) -> UInt8? {
    guard frequencies != nil, let first = word.first else { return nil }
    if word.contains("ß") { return rarity(of: word.flatMap { $0 == "ß" ? ["s", "s"] : [$0] }) }
    // The language's letters are lowercase: only another needs its mapping.
    guard trigrams.letterClass(first) == LetterTrigrams.other else { return rarity(hash: WordHash.of(word)) }
    let lower = first.properties.lowercaseMapping.unicodeScalars
    let hash =
      lower.count == 1 && lower.first != first
      ? WordHash.of(CollectionOfOne(lower.first!), then: word.dropFirst()) : WordHash.of(word)
    return rarity(hash: hash)
  }

  /// How much likelier `word` (its first letter taken in lowercase) is
  /// right after `previous` (in lowercase) than anywhere: ``pairs``' value,
  /// 0 for a pair the list does not have.
  func association(of previous: [Unicode.Scalar], with word: [Unicode.Scalar]) -> UInt8 {
    guard let pairs, let first = word.first else { return 0 }
    var hash = FNV1a.seed
    for scalar in previous { hash = (hash ^ UInt64(scalar.value)) &* FNV1a.prime }
    hash = (hash ^ UInt64(Unicode.Scalar(" ").value)) &* FNV1a.prime
    let lower = first.properties.lowercaseMapping.unicodeScalars
    hash = (hash ^ UInt64((lower.count == 1 ? lower.first! : first).value)) &* FNV1a.prime
    for scalar in word.dropFirst() { hash = (hash ^ UInt64(scalar.value)) &* FNV1a.prime }
    return pairs.value(hash: hash & ~1) ?? 0
  }

  /// The list's common words (`text`, a word a line) that the dictionary
  /// has (with their reading), in the letters the language is written in:
  /// one pass over the text, each word's hash made as its letters are read.
  private static func commonWords(
    _ text: String, forms: WordIndex<UInt16>, list: WordIndex<UInt32>, trigrams: LetterTrigrams
  ) -> [(letters: [UInt8], reading: UInt8)] {
    var words: [(letters: [UInt8], reading: UInt8)] = []
    var word: [UInt8] = []
    var hash = FNV1a.seed
    var writable = true
    for scalar in text.unicodeScalars {
      if scalar != "\n" {
        if writable, let index = trigrams.letterIndex(scalar), word.count < Corrector.longest {
          word.append(index)
        } else {
          writable = false
        }
        hash = (hash ^ UInt64(scalar.value)) &* FNV1a.prime
        continue
      }
      if writable, !word.isEmpty, let reading = forms.value(hash: hash & ~1),
        let rarity = list.value(hash: hash & ~1), rarity <= CommonWords.rarest
      {
        words.append((word, reading))
      }
      word.removeAll(keepingCapacity: true)
      hash = FNV1a.seed
      writable = true
    }
    return words
  }
}

/// A file of a spelling dictionary's, as the daemon read it: its path (for
/// messages) and its bytes.
public struct SpellingFile: Sendable {
  public let path: String
  public let bytes: [UInt8]

  public init(path: String, bytes: [UInt8]) {
    self.path = path
    self.bytes = bytes
  }

  /// Its text: hunspell's files are read in UTF-8 only.
  func text() throws(SpellingError) -> String {
    guard let text = String(validating: bytes, as: UTF8.self) else {
      throw SpellingError(path: path, reason: "not UTF-8")
    }
    return text
  }
}

/// What confirms that a word is spelled right, knowing every affixed and
/// compound form of the dictionary: libhunspell over the same files, which
/// the daemon opens (HunspellFiles). Asked one word at a time.
public protocol WordChecker: AnyObject, Sendable {
  /// Whether `word`, NUL-terminated UTF-8, is spelled right.
  func spells(_ word: UnsafePointer<CChar>) -> Bool
}
