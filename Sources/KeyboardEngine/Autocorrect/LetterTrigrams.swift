/// Which three letters in a row occur in a language's word forms (the
/// word's edges count as a letter): a neighbour of a typo with a run of
/// three no word has is no word, and is not looked up. Most of a typo's
/// neighbours are such (a `q` before a `z`), and the table (32 KiB) stays
/// in the processor's cache where the dictionary's index does not.
struct LetterTrigrams: Sendable {
  /// A letter's class: its place among the language's first 62 letters,
  /// ``other`` for any other scalar, ``edge`` for a word's either end.
  typealias Class = UInt8
  static let other: Class = 62
  static let edge: Class = 63
  private static let classCount = 64

  /// Each scalar below `indexes.count` with its place among the
  /// language's first 255 letters (``none``: no letter of it). The
  /// language's letters are Latin, Greek or Cyrillic: all below U+0530.
  private var indexes: [UInt8]
  private static let none = UInt8.max
  private var bits: [UInt64]

  init(letters: [Unicode.Scalar]) {
    indexes = [UInt8](repeating: Self.none, count: 0x530)
    for (index, letter) in letters.prefix(Int(Self.none)).enumerated() where Int(letter.value) < indexes.count {
      indexes[Int(letter.value)] = UInt8(index)
    }
    bits = [UInt64](repeating: 0, count: Self.classCount * Self.classCount * Self.classCount / 64)
  }

  /// `scalar`'s place among the language's letters; nil for another.
  func letterIndex(_ scalar: Unicode.Scalar) -> UInt8? {
    guard Int(scalar.value) < indexes.count, indexes[Int(scalar.value)] != Self.none else { return nil }
    return indexes[Int(scalar.value)]
  }

  func letterClass(_ scalar: Unicode.Scalar) -> Class {
    guard let index = letterIndex(scalar), index < Self.other else { return Self.other }
    return index
  }

  private static func bit(_ a: Class, _ b: Class, _ c: Class) -> Int {
    (Int(a) * classCount + Int(b)) * classCount + Int(c)
  }

  /// Notes the runs of `word`, with its edges.
  mutating func add(_ word: some Collection<Unicode.Scalar>) {
    var first = Self.edge
    var second = Self.edge
    for scalar in word {
      let third = letterClass(scalar)
      let index = Self.bit(first, second, third)
      bits[index >> 6] |= 1 << UInt64(index & 63)
      (first, second) = (second, third)
    }
    let index = Self.bit(first, second, Self.edge)
    bits[index >> 6] |= 1 << UInt64(index & 63)
  }

  /// Whether some form has `a`, `b`, `c` in a row; a run with a letter of
  /// class ``other`` may be anywhere.
  func contains(_ a: Class, _ b: Class, _ c: Class) -> Bool {
    if a == Self.other || b == Self.other || c == Self.other { return true }
    let index = Self.bit(a, b, c)
    return bits[index >> 6] & (1 << UInt64(index & 63)) != 0
  }
}
