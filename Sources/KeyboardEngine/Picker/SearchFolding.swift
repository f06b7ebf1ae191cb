/// How the picker compares text: lower case, accents off, as UTF-8 bytes,
/// cut into words (runs of letters and digits).
enum SearchFolding {
  /// The folded form of one scalar: empty for a combining mark, the base
  /// letter for a Latin letter with a diacritic (its Unicode name says which:
  /// "LATIN SMALL LETTER E WITH ACUTE" is e, "LATIN CAPITAL LETTER AE" ae),
  /// else its lower case.
  static func fold(_ scalar: Unicode.Scalar, into bytes: inout [UInt8]) {
    let value = scalar.value
    if value < 0x80 {
      bytes.append(UInt8(value >= 0x41 && value <= 0x5A ? value + 0x20 : value))
      return
    }
    let properties = scalar.properties
    switch properties.generalCategory {
    case .nonspacingMark, .enclosingMark: return
    default: break
    }
    if let base = latinBase(properties.name) {
      bytes.append(contentsOf: base)
      return
    }
    for lower in properties.lowercaseMapping.unicodeScalars { bytes.append(contentsOf: Array(String(lower).utf8)) }
  }

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
    if scalar.value < 0x80 {
      let value = scalar.value
      return (value >= 0x30 && value <= 0x39) || (value >= 0x41 && value <= 0x5A) || (value >= 0x61 && value <= 0x7A)
    }
    let properties = scalar.properties
    return properties.isAlphabetic || properties.numericType != nil
      || properties.generalCategory == .nonspacingMark
  }

  /// The folded words of `text`, at most `limit` scalars of it read.
  static func words(_ text: some StringProtocol, limit: Int = .max, into words: inout [[UInt8]]) {
    var word: [UInt8] = []
    var read = 0
    for scalar in text.unicodeScalars {
      read += 1
      if read > limit { break }
      if isWordCharacter(scalar) {
        fold(scalar, into: &word)
      } else if !word.isEmpty {
        words.append(word)
        word.removeAll(keepingCapacity: true)
      }
    }
    if !word.isEmpty { words.append(word) }
  }

  /// The folded text, every character kept (a trigger as a whole).
  static func whole(_ text: some StringProtocol) -> [UInt8] {
    var bytes: [UInt8] = []
    for scalar in text.unicodeScalars { fold(scalar, into: &bytes) }
    return bytes
  }
}
