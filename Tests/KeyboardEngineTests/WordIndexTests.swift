import TestSupport
import Testing

@testable import KeyboardEngine

/// The index of a dictionary's word forms, with the filter in front of it.
struct WordIndexTests {
  @Test func everyWordIsFoundWithItsReadingAndNoOtherIs() {
    var generator = SplitMix64(seed: 41)
    let keys = (0..<50_000).map { _ in generator.next() }
    let index = WordIndex(keys: keys)
    for key in keys { #expect(index.value(hash: key & ~1) == UInt8(key & 1)) }
    // Words it lacks: the filter turns most away before the table, and
    // none is found (a shared fingerprint is one in billions).
    let absent = (0..<50_000).map { _ in generator.next() & ~1 }
    #expect(absent.allSatisfy { index.value(hash: $0) == nil })
    #expect(index.memoryBytes < 50_000 * 9)
  }
}
