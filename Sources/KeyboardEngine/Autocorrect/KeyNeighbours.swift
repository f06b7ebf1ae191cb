/// Which letters' keys touch on a layout: the keys of the three letter
/// rows (and the digits above) at their places on a staggered keyboard,
/// with the letter each types in one group without modifiers.
public struct KeyNeighbours: Sendable {
  /// A key's place: its column (staggered) and row.
  struct Place: Sendable {
    var x: Double
    var y: Double
  }
  private var places: [Unicode.Scalar: Place] = [:]

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
    for (character, stroke) in layout.baseCharacters(in: group) {
      if let place = keyPlaces[stroke] { places[character] = place }
    }
  }

  func place(of letter: Unicode.Scalar) -> Place? { places[letter] }

  /// Whether the keys at two places are next to each other.
  static func touch(_ first: Place?, _ second: Place?) -> Bool {
    guard let first, let second else { return false }
    let dx = first.x - second.x
    let dy = first.y - second.y
    return dx * dx + dy * dy <= 1.6
  }
}
