import TestSupport
import Testing

@testable import KeyboardEngine

/// The trie of common words searched two slips around a typo: checked
/// against the edit distance worked out the plain way, on random words.
struct CommonWordsTests {
  /// The optimal-string-alignment distance: letters added, dropped,
  /// replaced, and two neighbours swapped, each one edit.
  static func distance(_ a: [UInt8], _ b: [UInt8]) -> Int {
    var table = [[Int]](repeating: [Int](repeating: 0, count: b.count + 1), count: a.count + 1)
    for i in 0...a.count { table[i][0] = i }
    for j in 0...b.count { table[0][j] = j }
    for i in stride(from: 1, through: a.count, by: 1) {
      for j in stride(from: 1, through: b.count, by: 1) {
        table[i][j] = min(
          table[i - 1][j] + 1, table[i][j - 1] + 1, table[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
        if i > 1, j > 1, a[i - 1] == b[j - 2], a[i - 2] == b[j - 1] {
          table[i][j] = min(table[i][j], table[i - 2][j - 2] + 1)
        }
      }
    }
    return table[a.count][b.count]
  }

  @Test func findsExactlyTheWordsTwoSlipsAwayWithTheSameFirstLetterAndASecondAsked() {
    var generator = SplitMix64(seed: 39)
    func randomWord() -> [UInt8] {
      (0..<Int.random(in: 1...9, using: &generator)).map { _ in UInt8.random(in: 0..<5, using: &generator) }
    }
    var readings: [[UInt8]: UInt8] = [:]
    for _ in 0..<3000 { readings[randomWord()] = UInt8.random(in: 0...2, using: &generator) }
    // Each word given twice, the second time with another reading: the first stays.
    let given = readings.map { ($0.key, $0.value) } + readings.map { ($0.key, ($0.value + 1) % 3) }
    let common = CommonWords(words: given)
    #expect(common.count == readings.count)
    // Words already in another order of the letters (a list sorted by its
    // text) are taken as they are.
    let weight: [UInt32] = [4, 3, 2, 1, 0] + Array(repeating: 9, count: 251)
    let ordered = readings.map { ($0.key, $0.value) }.sorted {
      $0.0.map { weight[Int($0)] }.lexicographicallyPrecedes($1.0.map { weight[Int($0)] })
    }
    let reordered = CommonWords(words: ordered, weight: weight)
    #expect(reordered.count == readings.count)
    var scratch = CommonWords.Scratch()
    for _ in 0..<400 {
      let typed = randomWord()
      var second = CommonWords.LetterSet()
      let asked = (0..<5).filter { _ in Bool.random(using: &generator) }.map(UInt8.init)
      for letter in asked { second.insert(letter) }
      var found: [[UInt8]: UInt8] = [:]
      common.searchTwoSlips(typed, second: second, scratch: &scratch) { word, reading in
        #expect(found[word] == nil, "\(word) found twice")
        found[word] = reading
      }
      let expected = readings.filter {
        $0.key.first == typed.first && ($0.key.count < 2 || asked.contains($0.key[1]))
          && Self.distance(typed, $0.key) == 2
      }
      #expect(found == expected, "\(typed)")
      var again: [[UInt8]: UInt8] = [:]
      reordered.searchTwoSlips(typed, second: second, scratch: &scratch) { word, reading in again[word] = reading }
      #expect(again == expected, "\(typed)")
    }
  }

  @Test func anEmptyTrieFindsNothing() {
    var scratch = CommonWords.Scratch()
    var found = 0
    var every = CommonWords.LetterSet()
    for letter in 0...255 { every.insert(UInt8(letter)) }
    CommonWords(words: []).searchTwoSlips([1, 2, 3], second: every, scratch: &scratch) { _, _ in found += 1 }
    CommonWords(words: [([1, 2], 0)]).searchTwoSlips([], second: every, scratch: &scratch) { _, _ in found += 1 }
    #expect(found == 0)
  }
}
