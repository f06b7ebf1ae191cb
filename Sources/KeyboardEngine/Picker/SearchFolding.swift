/// How the picker compares text: lower case, accents off, as UTF-8 bytes,
/// cut into words (runs of letters and digits).
enum SearchFolding {
  /// Appends the folded form of one scalar: nothing for a combining mark,
  /// the base letters for a Latin letter with a diacritic (its Unicode name
  /// says which: "LATIN SMALL LETTER E WITH ACUTE" is e, "LATIN CAPITAL
  /// LETTER AE" ae), else its lower case.
  static func fold(_ scalar: Unicode.Scalar, into bytes: inout [UInt8]) {
    let value = scalar.value
    if value < 0x80 {
      bytes.append(UInt8(value >= 0x41 && value <= 0x5A ? value + 0x20 : value))
      return
    }
    if isCJKIdeograph(value) {  // a letter without case: its own bytes, without the tables
      bytes.append(contentsOf: UTF8.encode(scalar)!)
      return
    }
    if isLatinBlock(value), let base = latinBases[value] {
      bytes.append(contentsOf: base)
      return
    }
    let properties = scalar.properties
    switch properties.generalCategory {
    case .nonspacingMark, .enclosingMark: return
    default: break
    }
    guard properties.changesWhenLowercased else {
      bytes.append(contentsOf: UTF8.encode(scalar)!)
      return
    }
    for lower in properties.lowercaseMapping.unicodeScalars { bytes.append(contentsOf: UTF8.encode(lower)!) }
  }

  /// The CJK Unified Ideographs' main block: letters (alphabetic), of no
  /// case, the most of Chinese text.
  private static func isCJKIdeograph(_ value: UInt32) -> Bool { value >= 0x4E00 && value <= 0x9FFF }

  /// The blocks whose letters have names that begin "LATIN": only these
  /// are worth the name's lookup.
  private static func isLatinBlock(_ value: UInt32) -> Bool {
    value >= 0xC0 && latinBlocks.contains { $0.contains(value) }
  }

  /// The base letters of every Latin letter that has them (``latinBase(_:)``),
  /// looked up once: a name is slow to read.
  private static let latinBases: [UInt32: [UInt8]] = {
    var bases: [UInt32: [UInt8]] = [:]
    for block in latinBlocks {
      for value in block {
        if let scalar = Unicode.Scalar(value), let base = latinBase(scalar.properties.name) { bases[value] = base }
      }
    }
    return bases
  }()

  private static let latinBlocks: [ClosedRange<UInt32>] = [
    0xC0...0x2AF, 0x1D00...0x1DBF, 0x1E00...0x1EFF, 0x2C60...0x2C7F, 0xA720...0xA7FF, 0xAB30...0xAB6F,
    0x1DF00...0x1DFFF,
  ]

  /// The ASCII base letters of a Latin letter, from its Unicode name.
  private static func latinBase(_ name: String?) -> [UInt8]? {
    guard let name else { return nil }
    let words = name.split(separator: " ")
    guard words.count >= 4, words[0] == "LATIN", words[1] == "SMALL" || words[1] == "CAPITAL",
      words[2] == "LETTER", words.count == 4 || words[4] == "WITH"
    else { return nil }
    let base = words[3]
    guard base.count <= 2, base.utf8.allSatisfy({ $0 >= 0x41 && $0 <= 0x5A }) else { return nil }
    return base.utf8.map { $0 + 0x20 }
  }

  /// Whether a scalar belongs to a word.
  static func isWordCharacter(_ scalar: Unicode.Scalar) -> Bool {
    let value = scalar.value
    if value < 0x80 {
      return (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
    }
    if isCJKIdeograph(value) { return true }
    let properties = scalar.properties
    return properties.isAlphabetic || properties.numericType != nil
      || properties.generalCategory == .nonspacingMark
  }

  /// Calls `body` with each folded word of `scalars`, at most `limit` of
  /// them read; `scratch` holds the word (the caller keeps it between
  /// calls, so that no word allocates).
  static func forEachWord(
    of scalars: some Sequence<Unicode.Scalar>, limit: Int = .max, scratch: inout [UInt8],
    _ body: ([UInt8]) -> Void
  ) {
    scratch.removeAll(keepingCapacity: true)
    var read = 0
    for scalar in scalars {
      read += 1
      if read > limit { break }
      if isWordCharacter(scalar) {
        fold(scalar, into: &scratch)
      } else if !scratch.isEmpty {
        body(scratch)
        scratch.removeAll(keepingCapacity: true)
      }
    }
    if !scratch.isEmpty { body(scratch) }
  }

  /// The folded words of `text`.
  static func words(_ text: some StringProtocol, into words: inout [[UInt8]]) {
    var scratch: [UInt8] = []
    forEachWord(of: text.unicodeScalars, scratch: &scratch) { words.append($0) }
  }

  /// The folded text, every character kept (a trigger as a whole).
  static func whole(_ scalars: some Sequence<Unicode.Scalar>, into bytes: inout [UInt8]) {
    bytes.removeAll(keepingCapacity: true)
    for scalar in scalars { fold(scalar, into: &bytes) }
  }

  /// The folded text, every character kept.
  static func whole(_ text: some StringProtocol) -> [UInt8] {
    var bytes: [UInt8] = []
    whole(text.unicodeScalars, into: &bytes)
    return bytes
  }
}

/// The scalars of UTF-8 text in a buffer (valid UTF-8: the table's texts).
struct UTF8Scalars: Sequence {
  let bytes: UnsafeBufferPointer<UInt8>

  func makeIterator() -> Iterator { Iterator(bytes: bytes.makeIterator()) }

  struct Iterator: IteratorProtocol {
    var bytes: UnsafeBufferPointer<UInt8>.Iterator
    var decoder = UTF8()
    mutating func next() -> Unicode.Scalar? {
      if case .scalarValue(let scalar) = decoder.decode(&bytes) { return scalar }
      return nil
    }
  }
}
