/// The FNV-1a hash of bytes: what the tables built at load time (the
/// snippets' texts, the picker's words) find their entries by, and a
/// stable name for a URL.
public enum FNV1a {
  public static let seed: UInt64 = 0xcbf2_9ce4_8422_2325
  public static let prime: UInt64 = 0x100_0000_01b3

  /// The hash of `bytes`.
  @inlinable
  public static func hash(_ bytes: some Sequence<UInt8>) -> UInt64 {
    var hash = seed
    for byte in bytes { hash = (hash ^ UInt64(byte)) &* prime }
    return hash
  }

  /// A slot of a table of `count` slots (a power of two) for `hash`: its
  /// high bits folded into the low ones.
  @inlinable
  public static func slot(_ hash: UInt64, count: Int) -> Int {
    Int(truncatingIfNeeded: hash ^ hash >> 32) & (count - 1)
  }
}
