/// A set of words kept as 32-bit fingerprints of their 64-bit hashes, in
/// one open-addressed table: 4 bytes a slot, about 5.6 bytes a word, and a
/// lookup is one or two cache misses. Two words may share a fingerprint
/// (about one lookup in a billion), so a hit is a candidate that the
/// dictionary itself confirms (``SpellingLanguage``), never a verdict.
/// Each word may carry a small value (a frequency class).
struct WordIndex: Sendable {
  private var slots: [UInt32]
  private var values: [UInt8]
  private(set) var count = 0
  /// Where a table is asked mostly for words it lacks (a typo's
  /// neighbours), a filter of 8 bits a word, two of them set for each: a
  /// word whose two bits are not both set is not in the table, and is known
  /// not to be without reaching the table, six times the filter's size and
  /// seldom in the processor's cache. A word's two bits are in one 64-bit
  /// word of the filter: one memory access, where the typo's hundreds of
  /// neighbours find the filter out of the cache. Empty: no filter.
  private var filter: [UInt64] = []

  /// The words of `hashes`, each with its value in `values` (0 when
  /// none is given); a word given twice keeps `merge` of its values (by
  /// default the smaller). The table is sized once, two thirds full at most.
  init(hashes: [UInt64], values given: [UInt8] = [], merge: (UInt8, UInt8) -> UInt8 = min) {
    let size = max(16, hashes.count + hashes.count / 2 + 1)
    slots = [UInt32](repeating: 0, count: size)
    values = [UInt8](repeating: 0, count: size)
    for (index, hash) in hashes.enumerated() {
      insert(hash: hash, value: given.isEmpty ? 0 : given[index], merge: merge)
    }
  }

  /// The 64-bit FNV-1a hash of the scalars, its lowest bit clear (a key
  /// of ``init(keys:)`` carries its value there).
  static func hash(_ word: some Collection<Unicode.Scalar>) -> UInt64 { hash(word, then: EmptyCollection()) }

  /// The hash of `first` followed by `second`, as if they were one word.
  static func hash(_ first: some Collection<Unicode.Scalar>, then second: some Collection<Unicode.Scalar>) -> UInt64 {
    var hash = seed
    for scalar in first { hash = mix(hash, scalar) }
    for scalar in second { hash = mix(hash, scalar) }
    return hash & ~1
  }

  static let seed = FNV1a.seed
  static func mix(_ hash: UInt64, _ scalar: Unicode.Scalar) -> UInt64 {
    (hash ^ UInt64(scalar.value)) &* FNV1a.prime
  }

  /// Words given as keys: a hash with its reading in the lowest bit (0: as
  /// written in lowercase, 1: with a capital); a word given with both
  /// (German's `grüße` and `Grüße`) has ``bothReadings``.
  init(keys: [UInt64]) {
    self.init(hashes: keys.map { $0 & ~1 }, values: keys.map { UInt8($0 & 1) }) { $0 == $1 ? $0 : Self.bothReadings }
    filter = [UInt64](repeating: 0, count: max(1, count / 8))
    for key in keys {
      let (word, bits) = filterBits(of: key & ~1)
      filter[word] |= bits
    }
  }

  /// The filter's word for `hash`, and its two bits there, from other bits
  /// of the hash than the slot's index.
  private func filterBits(of hash: UInt64) -> (word: Int, bits: UInt64) {
    let word = Int((UInt64(UInt32(truncatingIfNeeded: hash >> 32)) &* UInt64(filter.count)) >> 32)
    return (word, 1 << ((hash >> 20) & 63) | 1 << ((hash >> 26) & 63))
  }

  /// The value of a word of ``init(keys:)`` given in both readings.
  static let bothReadings: UInt8 = 2

  private func slot(of hash: UInt64) -> (index: Int, fingerprint: UInt32) {
    let fingerprint = UInt32(truncatingIfNeeded: hash >> 32) | 1
    let index = Int((UInt64(UInt32(truncatingIfNeeded: hash)) &* UInt64(slots.count)) >> 32)
    return (index, fingerprint)
  }

  private mutating func insert(hash: UInt64, value: UInt8, merge: (UInt8, UInt8) -> UInt8) {
    var (index, fingerprint) = slot(of: hash)
    while slots[index] != 0 {
      if slots[index] == fingerprint {
        values[index] = merge(values[index], value)
        return
      }
      index = index + 1 == slots.count ? 0 : index + 1
    }
    slots[index] = fingerprint
    values[index] = value
    count += 1
  }

  /// The value of the word of `hash`, nil when it is not in the set.
  func value(hash: UInt64) -> UInt8? {
    if !filter.isEmpty {
      let (word, bits) = filterBits(of: hash)
      guard filter[word] & bits == bits else { return nil }
    }
    var (index, fingerprint) = slot(of: hash)
    while true {
      let found = slots[index]
      if found == fingerprint { return values[index] }
      if found == 0 { return nil }
      index = index + 1 == slots.count ? 0 : index + 1
    }
  }

  /// The bytes the table holds.
  var memoryBytes: Int { slots.count * 5 + filter.count * 8 }
}
