/// A regex parsed from espanso's syntax (``RegexParser``): what it matches,
/// for PCRE2 to compile (``PCRE2Writer``) and for the engine's prefilters to
/// read (what a match may end with, which characters it must hold).
indirect enum RegexNode {
  case empty
  case character(Unicode.Scalar, caseless: Bool)
  case any(newline: Bool)
  case set(Int)
  case assert(RegexAssertion)
  case group(RegexNode, capture: Int?)
  case sequence([RegexNode])
  case alternation([RegexNode])
  case repetition(RegexNode, minimum: Int, maximum: Int?, greedy: Bool)

  /// Whether it can match the empty string.
  var isNullable: Bool {
    switch self {
    case .empty, .assert: return true
    case .character, .any, .set: return false
    case .group(let inner, _): return inner.isNullable
    case .sequence(let items): return items.allSatisfy(\.isNullable)
    case .alternation(let items): return items.contains(where: \.isNullable)
    case .repetition(let inner, let minimum, _, _): return minimum == 0 || inner.isNullable
    }
  }

  /// The characters every match holds: the literals of its top-level
  /// sequence (and of groups and required repetitions in it).
  var requiredLiterals: CharacterBits {
    var bits = CharacterBits()
    func collect(_ node: RegexNode) {
      switch node {
      case .character(let character, caseless: false): bits.insert(character)
      case .group(let inner, _): collect(inner)
      case .repetition(let inner, let minimum, _, _) where minimum > 0: collect(inner)
      case .sequence(let items): for item in items { collect(item) }
      default: break
      }
    }
    collect(self)
    return bits
  }

  /// The characters one of which a match starts with, when they are a few
  /// literals; empty otherwise.
  func startCharacters(classes: [CharacterClass]) -> CharacterBits {
    var bits = CharacterBits()
    guard let first = firstCharacters(classes: classes), first.count <= 8 else { return bits }
    for character in first { bits.insert(character) }
    return bits
  }

  /// The characters a match may start with, when they are literals only.
  func firstCharacters(classes: [CharacterClass]) -> [Unicode.Scalar]? {
    switch self {
    case .character(let character, let caseless):
      guard caseless else { return [character] }
      let upper = character.properties.uppercaseMapping.unicodeScalars
      return [RegexCase.fold(character)] + (upper.count == 1 ? [upper.first!] : [])
    case .set(let index):
      let set = classes[index]
      guard !set.negated, !set.caseless, set.named.isEmpty, set.properties.isEmpty,
        set.ranges.reduce(0, { $0 + $1.count }) <= 8
      else {
        return nil
      }
      return set.ranges.flatMap { $0.compactMap(Unicode.Scalar.init) }
    case .empty, .any, .assert: return nil
    case .group(let inner, _): return inner.firstCharacters(classes: classes)
    case .repetition(let inner, let minimum, _, _): return minimum > 0 ? inner.firstCharacters(classes: classes) : nil
    case .alternation(let items):
      var result: [Unicode.Scalar] = []
      for item in items {
        guard let first = item.firstCharacters(classes: classes) else { return nil }
        result += first
      }
      return result
    case .sequence(let items):
      var result: [Unicode.Scalar] = []
      for item in items {
        if case .assert = item { continue }
        guard let first = item.firstCharacters(classes: classes) else { return nil }
        result += first
        if !item.isNullable { return result }
      }
      return nil
    }
  }

  /// The characters a non-empty match of it may end with.
  var lastCharacter: LastCharacter {
    var result = LastCharacter()
    switch self {
    case .empty, .assert: break
    case .character(let character, let caseless):
      if caseless {
        result.caselessCharacters.insert(RegexCase.fold(character).value)
      } else {
        result.characters.insert(character.value)
      }
    case .any: result.any = true
    case .set(let index): result.classes = [index]
    case .group(let inner, _), .repetition(let inner, _, _, _): result = inner.lastCharacter
    case .alternation(let items): for item in items { result.formUnion(item.lastCharacter) }
    case .sequence(let items):
      for item in items.reversed() {
        result.formUnion(item.lastCharacter)
        if !item.isNullable { break }
      }
    }
    return result
  }
}

/// A zero-width assertion.
enum RegexAssertion: Sendable {
  /// `^` and `\A`: the start of the text; `^` under `(?m)`: a line's start.
  case start, lineStart
  /// `$` and `\z`: the end of the text; `$` under `(?m)`: a line's end.
  case end, lineEnd
  case wordBoundary, notWordBoundary
}

enum RegexCase {
  /// A simple case folding: the lowercase of a character that has one of
  /// one scalar.
  static func fold(_ character: Unicode.Scalar) -> Unicode.Scalar {
    if character.isASCII {
      return character.value >= 65 && character.value <= 90 ? Unicode.Scalar(character.value + 32)! : character
    }
    let lower = character.properties.lowercaseMapping.unicodeScalars
    return lower.count == 1 ? lower.first! : character
  }
}

/// What a match's last character may be: some characters, some classes,
/// or any character at all.
struct LastCharacter: Sendable {
  var characters: Set<UInt32> = []
  var caselessCharacters: Set<UInt32> = []
  var classes: [Int] = []
  var any = false

  func contains(_ character: Unicode.Scalar, classes table: [CharacterClass]) -> Bool {
    if any || characters.contains(character.value) { return true }
    if !caselessCharacters.isEmpty && caselessCharacters.contains(RegexCase.fold(character).value) { return true }
    return classes.contains { table[$0].contains(character) }
  }

  mutating func formUnion(_ other: LastCharacter) {
    characters.formUnion(other.characters)
    caselessCharacters.formUnion(other.caselessCharacters)
    classes += other.classes
    any = any || other.any
  }
}

/// A set of characters as bits: ASCII exactly, any other character by one
/// shared bit (so a test may say yes wrongly, never no).
public struct CharacterBits: Sendable, Equatable {
  var low: UInt64 = 0
  var high: UInt64 = 0
  var other = false

  public init() {}

  var isEmpty: Bool { low == 0 && high == 0 && !other }

  public mutating func insert(_ character: Unicode.Scalar) { insert(value: character.value) }

  /// Inserts the character of code point `value`.
  mutating func insert(value: UInt32) {
    switch value {
    case 0..<64: low |= 1 << UInt64(value)
    case 64..<128: high |= 1 << UInt64(value - 64)
    default: other = true
    }
  }

  func intersects(_ other: CharacterBits) -> Bool {
    low & other.low != 0 || high & other.high != 0 || (self.other && other.other)
  }

  func contains(_ other: CharacterBits) -> Bool {
    low & other.low == other.low && high & other.high == other.high && (self.other || !other.other)
  }
}

/// A pattern that does not compile, with the character offset of the
/// problem.
public struct RegexError: Error, Equatable, CustomStringConvertible, Sendable {
  public var message: String
  public var offset: Int
  /// Valid in espanso's syntax, but not supported here.
  public var isUnsupported = false

  public init(message: String, offset: Int, isUnsupported: Bool = false) {
    self.message = message
    self.offset = offset
    self.isUnsupported = isUnsupported
  }

  public var description: String { "\(message) (at character \(offset + 1))" }
}
