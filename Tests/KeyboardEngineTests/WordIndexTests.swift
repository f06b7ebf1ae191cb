import TestSupport
import Testing

@testable import KeyboardEngine

/// The index of a dictionary's word forms, with the filter in front of it,
/// and the index of a frequency list's rarities.
struct WordIndexTests {
  @Test func everyFormIsFoundWithItsReadingAndFewOthersAre() {
    var generator = SplitMix64(seed: 41)
    let keys = (0..<50_000).map { _ in generator.next() }
    let index = WordIndex<UInt16>(keys: keys)
    // Every form is found, with its reading; where two forms share a slot's
    // run and a fingerprint (a few in 50,000), with both readings.
    let readings = keys.map { index.value(hash: $0 & ~1) }
    #expect(zip(keys, readings).allSatisfy { $1 == UInt8($0 & 1) || $1 == 2 })
    #expect(zip(keys, readings).count { $1 != UInt8($0 & 1) } <= 5)
    // A word given in both readings.
    let both = WordIndex<UInt16>(keys: [keys[0] & ~1, keys[0] | 1])
    #expect(both.value(hash: keys[0] & ~1) == 2)
    // Words it lacks: the filter turns most away before the table, and a
    // 14-bit fingerprint lets about one in 10,000 of the rest through
    // (libhunspell confirms every hit).
    let absent = (0..<50_000).map { _ in generator.next() & ~1 }
    #expect(absent.count { index.value(hash: $0) != nil } <= 5)
    #expect(index.memoryBytes <= 50_000 * 4 + 64)
  }

  @Test func everyRarityIsFoundAndNoOtherWord() {
    var generator = SplitMix64(seed: 42)
    let hashes = (0..<50_000).map { _ in generator.next() & ~1 }
    let values = hashes.map { UInt8(truncatingIfNeeded: $0 >> 40) }
    let index = WordIndex<UInt32>(hashes: hashes, values: values, valueBits: 8)
    #expect(zip(hashes, values).allSatisfy { index.value(hash: $0) == $1 })
    // A word listed twice keeps its commoner (smaller) rarity.
    let twice = WordIndex<UInt32>(hashes: [hashes[0], hashes[0]], values: [40, 30], valueBits: 8)
    #expect(twice.value(hash: hashes[0]) == 30)
    // A 24-bit fingerprint: a stranger is found once in millions.
    let absent = (0..<50_000).map { _ in generator.next() & ~1 }
    #expect(absent.allSatisfy { index.value(hash: $0) == nil })
    #expect(index.memoryBytes <= 50_000 * 6 + 64)
  }
}
