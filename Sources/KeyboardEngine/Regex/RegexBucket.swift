/// The regexes of one last character, filed by a character every match of
/// each holds (its rarest literal): a key visits only the lists of the
/// characters the recent text has, so a thousand regexes cost a key little
/// more than none.
struct RegexBucket: Sendable {
  /// Regexes without a literal every match holds: always visited.
  private var always: [Int32] = []
  /// By key character: ASCII ones, then one list for any other character.
  private var byKey: [[Int32]] = []
  private var keys = CharacterBits()

  var isEmpty: Bool { always.isEmpty && keys.isEmpty }

  mutating func add(_ regex: Int32, key: Unicode.Scalar?) {
    guard let key else {
      always.append(regex)
      return
    }
    if byKey.isEmpty { byKey = [[Int32]](repeating: [], count: 129) }
    byKey[Int(min(key.value, 128))].append(regex)
    keys.insert(key)
  }

  /// Calls `body` with every regex whose key character `present` has, and
  /// those without one.
  func visit(present: CharacterBits, _ body: (Int32) -> Void) {
    for regex in always { body(regex) }
    guard keys.intersects(present) else { return }
    var low = keys.low & present.low
    while low != 0 {
      for regex in byKey[low.trailingZeroBitCount] { body(regex) }
      low &= low - 1
    }
    var high = keys.high & present.high
    while high != 0 {
      for regex in byKey[64 + high.trailingZeroBitCount] { body(regex) }
      high &= high - 1
    }
    if keys.other && present.other { for regex in byKey[128] { body(regex) } }
  }

  /// The rarest of `characters` in typing: anything but a letter first,
  /// then letters from the least frequent in English text; nil when empty.
  static func keyCharacter(of characters: CharacterBits) -> Unicode.Scalar? {
    if characters.other { return "\u{80}" }
    var best: (rank: Int, character: Unicode.Scalar)?
    for value in 0..<128 {
      let character = Unicode.Scalar(UInt8(value))
      var single = CharacterBits()
      single.insert(character)
      guard characters.contains(single) else { continue }
      let lower = RegexCase.fold(character)
      let rank: Int
      if let letter = letterRarity.firstIndex(of: lower) {
        rank = 10 + letter + (lower == character ? 0 : 1)
      } else {
        rank = character == " " ? 100 : 0
      }
      if best == nil || rank < best!.rank { best = (rank, character) }
    }
    return best?.character
  }

  /// English letters from the least to the most frequent.
  private static let letterRarity = Array("zqxjkvbpygfwmucldrhsnioate".unicodeScalars)
}
