/// Which letters' keys touch on a layout: the keys of the three letter
/// rows (and the digits above) at their places on a staggered keyboard,
/// with the letter each types in one group without modifiers.
public struct KeyNeighbours: Sendable {
  /// A key's place: its column (staggered) and row.
  struct Place: Sendable {
    var x: Double
    var y: Double
  }
  /// The keys' places, and for each scalar below `indexes.count` its
  /// key's among them (``none``: no key of the letter rows types it). Each
  /// typed letter and each of a language's letters is looked up twice a
  /// decision: hashed, the look-ups took 6 to 7 % of its instructions.
  /// A scalar above (no alphabet a dictionary uses) is in `others`.
  private var keys: [Place] = []
  private var indexes = [UInt8](repeating: Self.none, count: 0x530)
  private var others: [Unicode.Scalar: Place] = [:]
  private static let none = UInt8.max

  /// The places of the letters of `layout` in `group`.
  public init(layout: Layout, group: Int) {
    let rows: [(first: UInt16, last: UInt16, x: Double, y: Double)] = [
      (2, 13, 0.5, 0), (16, 27, 0, 1), (30, 40, 0.25, 2), (44, 53, 0.75, 3),
    ]
    var keyPlaces: [UInt16: Place] = [:]
    for row in rows {
      for code in row.first...row.last { keyPlaces[code] = Place(x: row.x + Double(code - row.first), y: row.y) }
    }
    keyPlaces[86] = Place(x: -0.25, y: 3)  // the ISO key left of Z
    var keyIndexes: [UInt16: UInt8] = [:]
    for (character, stroke) in layout.baseCharacters(in: group) {
      guard let place = keyPlaces[stroke] else { continue }
      guard Int(character.value) < indexes.count else {
        others[character] = place
        continue
      }
      if keyIndexes[stroke] == nil {
        keyIndexes[stroke] = UInt8(keys.count)
        keys.append(place)
      }
      indexes[Int(character.value)] = keyIndexes[stroke]!
    }
  }

  func place(of letter: Unicode.Scalar) -> Place? {
    guard Int(letter.value) < indexes.count else { return others[letter] }
    let index = indexes[Int(letter.value)]
    return index == Self.none ? nil : keys[Int(index)]
  }

  /// Whether the keys at two places are next to each other.
  static func touch(_ first: Place?, _ second: Place?) -> Bool {
    guard let first, let second else { return false }
    let dx = first.x - second.x
    let dy = first.y - second.y
    return dx * dx + dy * dy <= 1.6
  }
}
