/// A set of words kept as fingerprints of their 64-bit hashes, each with a
/// small value, in one open-addressed table of `Slot`s two thirds full: a
/// slot holds a word's fingerprint in its high bits and its value in the
/// low `valueBits`. The dictionary's forms take 16-bit slots (a 14-bit
/// fingerprint and a reading: 3 bytes a form), the frequency lists 32-bit
/// ones (a 24-bit fingerprint and a rarity: 6 bytes a word). Two words may
/// share a fingerprint: a form's hit is a candidate that the dictionary
/// itself confirms (``SpellingLanguage``), never a verdict; a rarity's is
/// one lookup in millions.
struct WordIndex<Slot: FixedWidthInteger & UnsignedInteger & Sendable>: Sendable {
  private var slots: [Slot]
  private let valueBits: Int
  private(set) var count = 0
  /// Where a table is asked mostly for words it lacks (a typo's
  /// neighbours), a filter of 8 bits a word, two of them set for each: a
  /// word whose two bits are not both set is not in the table, and is known
  /// not to be without reaching it. A word's two bits are in one 64-bit
  /// word of the filter: one memory access, where the typo's hundreds of
  /// neighbours find the filter out of the cache. Empty: no filter.
  private var filter: [UInt64] = []

  /// The words of `hashes`, each with its value in `values` (0 when none
  /// is given, each under `1 << valueBits`); a word given twice keeps
  /// `merge` of its values (by default the smaller).
  init(
    hashes: [UInt64], values given: [UInt8] = [], valueBits: Int, merge: (UInt8, UInt8) -> UInt8 = min
  ) {
    precondition(valueBits >= 1 && valueBits <= 8 && Slot.bitWidth - valueBits >= 14)
    self.valueBits = valueBits
    slots = [Slot](repeating: 0, count: max(16, hashes.count + hashes.count / 2 + 1))
    for (index, hash) in hashes.enumerated() {
      insert(hash: hash, value: given.isEmpty ? 0 : given[index], merge: merge)
    }
  }

  /// Words given as keys: a hash with its reading in the lowest bit (0: as
  /// written in lowercase, 1: with a capital); a word given with both
  /// (German's `grüße` and `Grüße`) has 2. A filter stands in front of
  /// the table.
  init(keys: [UInt64]) {
    self.init(hashes: keys.map { $0 & ~1 }, values: keys.map { UInt8($0 & 1) }, valueBits: 2) { $0 == $1 ? $0 : 2 }
    filter = [UInt64](repeating: 0, count: max(1, count / 8))
    for key in keys {
      let (word, bits) = filterBits(of: key & ~1)
      filter[word] |= bits
    }
  }

  /// The filter's word for `hash`, and its two bits there, from other bits
  /// of the hash than the slot's index and the fingerprint.
  private func filterBits(of hash: UInt64) -> (word: Int, bits: UInt64) {
    let word = Int((UInt64(UInt32(truncatingIfNeeded: hash >> 32)) &* UInt64(filter.count)) >> 32)
    return (word, 1 << ((hash >> 20) & 63) | 1 << ((hash >> 26) & 63))
  }

  /// The slot where `hash`'s word is looked for first (from the hash's low
  /// half), and the slot it would fill there, with a zero value (its
  /// fingerprint from the high half's low bits, never 0).
  private func slot(of hash: UInt64) -> (index: Int, filled: Slot) {
    let index = Int((UInt64(UInt32(truncatingIfNeeded: hash)) &* UInt64(slots.count)) >> 32)
    let fingerprint = Slot(truncatingIfNeeded: hash >> 32) & (Slot.max >> valueBits)
    return (index, (fingerprint == 0 ? 1 : fingerprint) << valueBits)
  }

  private mutating func insert(hash: UInt64, value: UInt8, merge: (UInt8, UInt8) -> UInt8) {
    precondition(Int(value) >> valueBits == 0)
    var (index, filled) = slot(of: hash)
    let valueMask = Slot(1) << valueBits - 1
    while slots[index] != 0 {
      if slots[index] & ~valueMask == filled {
        slots[index] = filled | Slot(merge(UInt8(truncatingIfNeeded: slots[index] & valueMask), value))
        return
      }
      index = index + 1 == slots.count ? 0 : index + 1
    }
    slots[index] = filled | Slot(value)
    count += 1
  }

  /// The value of the word of `hash`, nil when it is not in the set.
  func value(hash: UInt64) -> UInt8? {
    if !filter.isEmpty {
      let (word, bits) = filterBits(of: hash)
      guard filter[word] & bits == bits else { return nil }
    }
    var (index, filled) = slot(of: hash)
    let valueMask = Slot(1) << valueBits - 1
    while true {
      let found = slots[index]
      if found & ~valueMask == filled { return UInt8(truncatingIfNeeded: found & valueMask) }
      if found == 0 { return nil }
      index = index + 1 == slots.count ? 0 : index + 1
    }
  }

  /// The bytes the table holds.
  var memoryBytes: Int { slots.count * MemoryLayout<Slot>.stride + filter.count * 8 }
}

/// The hash a word is kept by in a ``WordIndex``: the 64-bit FNV-1a hash
/// of its scalars, its lowest bit clear (a key of
/// ``WordIndex/init(keys:)`` carries its reading there).
enum WordHash {
  static func of(_ word: some Collection<Unicode.Scalar>) -> UInt64 { of(word, then: EmptyCollection()) }

  /// The hash of `first` followed by `second`, as if they were one word.
  static func of(_ first: some Collection<Unicode.Scalar>, then second: some Collection<Unicode.Scalar>) -> UInt64 {
    var hash = FNV1a.seed
    for scalar in first { hash = step(hash, scalar) }
    for scalar in second { hash = step(hash, scalar) }
    return hash & ~1
  }

  /// The hash of a word's beginning, one letter further.
  @inline(__always)
  static func step(_ hash: UInt64, _ scalar: Unicode.Scalar) -> UInt64 { (hash ^ UInt64(scalar.value)) &* FNV1a.prime }
}
