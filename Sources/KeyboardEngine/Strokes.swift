/// Up to three modifier keys held, in order, while a key is tapped.
public struct ModifierKeys: Equatable, Hashable, Sendable, Sequence {
  private var codes: (UInt16, UInt16, UInt16) = (0, 0, 0)
  public private(set) var count = 0

  /// No modifier.
  public init() {}

  /// The given keys, at most three.
  public init(_ keys: [UInt16]) {
    precondition(keys.count <= 3, "a stroke holds at most three modifiers")
    for key in keys { append(key) }
  }

  mutating func append(_ key: UInt16) {
    precondition(count < 3, "a stroke holds at most three modifiers")
    switch count {
    case 0: codes.0 = key
    case 1: codes.1 = key
    default: codes.2 = key
    }
    count += 1
  }

  /// The key at `index` (0 first pressed).
  public subscript(index: Int) -> UInt16 {
    precondition(index < count)
    switch index {
    case 0: return codes.0
    case 1: return codes.1
    default: return codes.2
    }
  }

  public static func == (lhs: ModifierKeys, rhs: ModifierKeys) -> Bool {
    lhs.count == rhs.count && (0..<lhs.count).allSatisfy { lhs[$0] == rhs[$0] }
  }

  public func hash(into hasher: inout Hasher) {
    for key in self { hasher.combine(key) }
  }

  public struct Iterator: IteratorProtocol {
    let keys: ModifierKeys
    var index = 0
    public mutating func next() -> UInt16? {
      guard index < keys.count else { return nil }
      defer { index += 1 }
      return keys[index]
    }
  }

  public func makeIterator() -> Iterator { Iterator(keys: self) }
}

/// One chord: hold `modifiers` in order, tap `key`, with group `group` active.
public struct Stroke: Equatable, Hashable, Sendable {
  public var key: UInt16
  public var modifiers: ModifierKeys
  /// The XKB group (0 first) the stroke is meant for.
  public var group: Int

  /// Makes a stroke.
  public init(key: UInt16, modifiers: ModifierKeys = ModifierKeys(), group: Int = 0) {
    self.key = key
    self.modifiers = modifiers
    self.group = group
  }
}

/// How to type one character: a stroke, or a compose sequence (dead keys, or
/// the Compose key and the keys after it) ending in a stroke.
public struct Typing: Equatable, Sendable {
  /// The dead keys or Compose key and keys typed before `stroke`, when the
  /// character is reached only through a compose sequence.
  public var prefix: [Stroke]
  public var stroke: Stroke

  /// Makes a typing.
  public init(prefix: [Stroke] = [], stroke: Stroke) {
    self.prefix = prefix
    self.stroke = stroke
  }

  /// Strokes in the order they are typed.
  public var strokes: [Stroke] { prefix + [stroke] }
}
