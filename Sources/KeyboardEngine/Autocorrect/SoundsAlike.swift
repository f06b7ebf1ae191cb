/// English's common words filed by how they sound (issue 39's phonetic
/// rewrites): a poor speller writes `semetary` for `cemetery` and `juise`
/// for `juice`, three or more edits from the word but the same sounds. A
/// word's sound is a key of its consonants as English spelling says them
/// (`c` before `e`, `i`, `y` is `s`; `ph` is `f`; `gh` before a consonant
/// is silent; a doubled letter is one), its vowels one mark a run (but a
/// first vowel, heard as itself), and a final silent `e` dropped. Words of
/// one key are side by side, found by a binary search of their keys' hashes.
struct SoundsAlike: Sendable {
  /// The entries' keys, ascending; an entry's word, as the language's
  /// letter indexes, is `letters[starts[i]..<starts[i + 1]]`.
  private var keys: [UInt64] = []
  private var starts: [UInt32] = [0]
  private var readings: [UInt8] = []
  private var letters: [UInt8] = []

  /// The index of `words` (each as indexes of `alphabet`, with its
  /// reading); a word with a letter outside a to z has no key.
  init(words: [(letters: [UInt8], reading: UInt8)], alphabet: [Unicode.Scalar]) {
    var keyed: [(key: UInt64, word: Int)] = []
    keyed.reserveCapacity(words.count)
    for (index, word) in words.enumerated() {
      if let key = Self.key(of: word.letters.lazy.map { alphabet[Int($0)] }) { keyed.append((key, index)) }
    }
    keyed.sort { $0.key < $1.key }
    keys = keyed.map(\.key)
    readings.reserveCapacity(keyed.count)
    starts.reserveCapacity(keyed.count + 1)
    for (_, index) in keyed {
      letters.append(contentsOf: words[index].letters)
      starts.append(UInt32(letters.count))
      readings.append(words[index].reading)
    }
  }

  var count: Int { keys.count }

  /// The bytes the index holds.
  var memoryBytes: Int { keys.count * 8 + starts.count * 4 + readings.count + letters.count }

  /// Each word that sounds as `typed` does (`typed` itself too, where it is
  /// one), with its reading.
  func forEachWord(soundingLike typed: some Collection<Unicode.Scalar>, _ body: (ArraySlice<UInt8>, UInt8) -> Void) {
    guard let key = Self.key(of: typed) else { return }
    var low = 0
    var high = keys.count
    while low < high {
      let middle = (low + high) / 2
      if keys[middle] < key { low = middle + 1 } else { high = middle }
    }
    while low < keys.count && keys[low] == key {
      body(letters[Int(starts[low])..<Int(starts[low + 1])], readings[low])
      low += 1
    }
  }

  /// The hash of `word`'s sound key: nil for a word with a letter outside
  /// a to z, or of fewer than two letters.
  static func key(of word: some Collection<Unicode.Scalar>) -> UInt64? {
    let text = Array(word)
    guard text.count >= 2, text.allSatisfy({ $0.value >= 0x61 && $0.value <= 0x7A }) else { return nil }
    var hash = FNV1a.seed
    var last: Unicode.Scalar = "\0"
    func sound(_ value: Unicode.Scalar) {
      if value != last { hash = (hash ^ UInt64(value.value)) &* FNV1a.prime }
      last = value
    }
    func at(_ index: Int) -> Unicode.Scalar { index < text.count ? text[index] : "\0" }
    func isVowel(_ letter: Unicode.Scalar) -> Bool { "aeiouy".unicodeScalars.contains(letter) }
    var index = 0
    // Silent first letters: knee, gnome, pneumatic, write, psalm.
    if ["kn", "gn", "pn", "wr", "ps"].contains(where: { $0.unicodeScalars.elementsEqual(text.prefix(2)) }) {
      index = 1
    }
    // A final e after a consonant is silent (juice, purple), once it has
    // said how the letter before it sounds.
    let end = text.count > 3 && text.last == "e" && !isVowel(text[text.count - 2]) ? text.count - 1 : text.count
    while index < end {
      let letter = text[index]
      let next = at(index + 1)
      defer { index += 1 }
      if isVowel(letter) && !(letter == "y" && index == 0 && isVowel(next)) {
        // A first vowel is heard as itself: accidetly is not excitedly.
        sound(index == 0 && letter != "y" ? letter : "A")
        continue
      }
      // A doubled consonant is one (but cc, as in accident, is k then s).
      if letter == next && letter != "c" { continue }
      switch letter {
      case "c":
        if next == "h" {
          sound("X")
          index += 1
        } else {
          sound(next == "e" || next == "i" || next == "y" ? "s" : "k")
        }
      case "d":
        if next == "g" && "eiy".unicodeScalars.contains(at(index + 2)) {
          sound("j")
          index += 1
        } else {
          sound("d")
        }
      case "g":
        if next == "h" {
          // ghost: hard; night, thought, though: silent.
          if index == 0 { sound("g") }
          index += 1
        } else if next == "e" || next == "i" || next == "y" {
          sound("j")
        } else if !(next == "n" && (index + 2 >= end || at(index + 2) == "s")) {
          sound("g")  // but sign, signs: silent
        }
      case "h":
        // Sounded before a vowel, silent after one (oh, ah).
        if isVowel(next) && (index == 0 || !isVowel(text[index - 1])) { sound("h") }
      case "p":
        if next == "h" {
          sound("f")
          index += 1
        } else {
          sound("p")
        }
      case "q":
        sound("k")
        if next == "u" {
          sound("w")
          index += 1
        }
      case "s", "t":
        if next == "h" {
          sound(letter == "s" ? "X" : "0")
          index += 1
        } else if next == "i" && (at(index + 2) == "o" || at(index + 2) == "a") {
          sound("X")  // mission, nation
        } else if !(letter == "t" && next == "c" && at(index + 2) == "h") {
          sound(letter)  // but watch: the ch says it
        }
      case "w":
        if isVowel(next) { sound("w") }
      case "x":
        if index > 0 { sound("k") }
        sound("s")
      case "z":
        sound("s")
      case "b":
        // climb, thumb: silent after m at the end.
        if !(index > 0 && text[index - 1] == "m" && index + 1 >= end) { sound("b") }
      default:
        sound(letter)
      }
    }
    return hash
  }
}

extension Corrector.Search {
    /// The common words that sound as `typed` does (English's), as the
    /// index has them.
    mutating func runSoundsAlike() {
      guard let sounds = language.sounds else { return }
      var alike: [(word: [Unicode.Scalar], reading: UInt8)] = []
      let editLimit = max(2, typed.count / 4)
      sounds.forEachWord(soundingLike: typed) { letters, reading in
        // Few edits away too: `semetary` is `cemetery`, `coalleces` is not `colossus`.
        let word = letters.map { language.letters[Int($0)] }
        guard word != typed, Self.edits(word, typed, atMost: editLimit) <= editLimit else { return }
        alike.append((word, reading))
      }
      for (word, reading) in alike { add(word, form: reading, slip: .soundsAlike) }
    }

    /// The edit distance (Levenshtein's) between `first` and `second`, or
    /// more than `limit` once it is sure to pass it.
    static func edits(_ first: [Unicode.Scalar], _ second: [Unicode.Scalar], atMost limit: Int) -> Int {
      guard abs(first.count - second.count) <= limit else { return limit + 1 }
      var row = Array(0...second.count)
      for (i, a) in first.enumerated() {
        var diagonal = row[0]
        row[0] = i + 1
        var smallest = row[0]
        for (j, b) in second.enumerated() {
          let next = min(row[j + 1] + 1, row[j] + 1, diagonal + (a == b ? 0 : 1))
          diagonal = row[j + 1]
          row[j + 1] = next
          smallest = min(smallest, next)
        }
        if smallest > limit { return limit + 1 }
      }
      return row[second.count]
    }
}
