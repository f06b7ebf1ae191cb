/// The files of word lists the build converts (scripts/wordfreq-convert,
/// scripts/wordpairs-convert): little-endian, a name of eight letters,
/// the format's version and a count, then the count's hashes (the
/// engine's ``WordHash``) and a byte for each, and what a kind adds after
/// them. A file that is not so is an error naming it and why.
enum WordListFile {
  /// A frequency file: "vkbdfreq", version 2, each word's rarity (see
  /// ``SpellingLanguage/frequencies``), then the common words' text (its
  /// size, then a word a line).
  static func frequencies(in file: SpellingFile) throws(SpellingError) -> (WordIndex<UInt32>, common: String) {
    let (index, end) = try table(in: file, name: "vkbdfreq", version: 2, kind: "frequency", entries: "words")
    let bytes = file.bytes
    guard bytes.count >= end + 4, bytes.count == end + 4 + Int(number(in: bytes, at: end, 4)) else {
      throw SpellingError(
        path: file.path, reason: "\(bytes.count) bytes where the words and their text take \(end + 4) and more")
    }
    guard let text = String(validating: bytes[(end + 4)...], as: UTF8.self) else {
      throw SpellingError(path: file.path, reason: "its common words are not UTF-8")
    }
    return (index, text)
  }

  /// A word-pair file: "vkbdpair", version 1, each pair's association
  /// (see ``SpellingLanguage/pairs``), and nothing after.
  static func pairs(in file: SpellingFile) throws(SpellingError) -> WordIndex<UInt32> {
    let (index, end) = try table(in: file, name: "vkbdpair", version: 1, kind: "word-pair", entries: "pairs")
    guard file.bytes.count == end else {
      throw SpellingError(path: file.path, reason: "\(file.bytes.count) bytes where its pairs take \(end)")
    }
    return index
  }

  /// The table of `file` (`name`, `version`, a count, the hashes, the
  /// bytes) and where it ends.
  private static func table(
    in file: SpellingFile, name: String, version: Int, kind: String, entries: String
  ) throws(SpellingError) -> (WordIndex<UInt32>, end: Int) {
    let (bytes, path) = (file.bytes, file.path)
    guard bytes.count >= 16, bytes[..<8].elementsEqual(name.utf8) else {
      throw SpellingError(path: path, reason: "not a \(kind) file of vkbd")
    }
    guard number(in: bytes, at: 8, 4) == version else {
      throw SpellingError(
        path: path, reason: "version \(number(in: bytes, at: 8, 4)) of the format, where vkbd reads \(version)")
    }
    let count = Int(number(in: bytes, at: 12, 4))
    let end = 16 + count * 9
    guard bytes.count >= end else {
      throw SpellingError(path: path, reason: "\(bytes.count) bytes where \(count) \(entries) take \(end)")
    }
    var hashes = [UInt64](repeating: 0, count: count)
    for index in 0..<count { hashes[index] = number(in: bytes, at: 16 + 8 * index, 8) & ~1 }
    return (WordIndex<UInt32>(hashes: hashes, values: Array(bytes[(16 + 8 * count)..<end]), valueBits: 8), end)
  }

  /// The little-endian number of `size` bytes at `offset`.
  private static func number(in bytes: [UInt8], at offset: Int, _ size: Int) -> UInt64 {
    (0..<size).reduce(0) { $0 | UInt64(bytes[offset + $1]) << (8 * $1) }
  }
}
