/// A regex trigger (espanso's `regex`), in the syntax of Rust's `regex`
/// crate that espanso uses: literals and escapes, `.`, classes (`[a-z]`,
/// `[^…]`, `[[:alpha:]]`, `\d \w \s` and their negations), groups (named
/// `(?P<name>…)` or `(?<name>…)`, `(?:…)`), alternation, the quantifiers
/// `* + ? {n} {n,} {n,m}` and their lazy forms, `^ $ \b \B`, and the flags
/// `i` and `s`.
///
/// It is searched at the end of the recent text, as espanso does: a match
/// must end at the cursor. The search is a bounded backtracker (each
/// instruction at each position is tried once), so its cost is at most the
/// program's size times the text's length, and it allocates nothing.
public struct TriggerRegex: Sendable {
  /// The pattern as written.
  public let pattern: String
  /// The names of the capture groups, by group number (1 first); nil for an
  /// unnamed group.
  public let groupNames: [String?]
  let program: [Instruction]
  let classes: [CharacterClass]
  /// What the last character of a match may be (the prefilter).
  let lastCharacter: LastCharacter
  /// The second prefilter: characters every match holds, all of them, and
  /// characters one of which it starts with (empty when unknown). The
  /// recent text must have them for a search to be worth it.
  let required: (all: CharacterBits, any: CharacterBits)

  /// The most instructions a compiled pattern may have (counted
  /// repetitions are written out).
  public static let maximumProgram = 4096

  /// A pattern that does not compile, with the character offset of the
  /// problem.
  public struct Error: Swift.Error, Equatable, CustomStringConvertible {
    public var message: String
    public var offset: Int
    /// Valid in espanso's syntax, but not supported here.
    public var isUnsupported = false
    public var description: String { "\(message) (at character \(offset + 1))" }
  }

  /// Compiles `pattern`. Throws when it does not parse, uses what vkbd does
  /// not support, or can match the empty string (it would fire on every key).
  public init(_ pattern: String) throws(Error) {
    var parser = RegexParser(Array(pattern.unicodeScalars))
    let tree = try parser.parse()
    if tree.isNullable { throw Error(message: "the regex can match the empty string", offset: 0) }
    var compiler = RegexCompiler(classes: parser.classes)
    compiler.compile(.group(tree, capture: 0))
    compiler.program.append(.match)
    guard compiler.program.count <= Self.maximumProgram else {
      throw Error(message: "the regex is too large (over \(Self.maximumProgram) steps)", offset: 0)
    }
    self.pattern = pattern
    groupNames = parser.groupNames
    program = compiler.program
    classes = compiler.classes
    lastCharacter = tree.lastCharacter
    required = (tree.requiredLiterals, tree.startCharacters(classes: compiler.classes))
  }

  /// Whether a match may end with `character`: cheaper than a search, and
  /// never false when a search would succeed.
  func mayEnd(with character: Unicode.Scalar) -> Bool { lastCharacter.contains(character, classes: classes) }

  /// Searches `text` for the leftmost match that ends at its end. Returns
  /// where it starts, with each group's range in `scratch.slots`.
  func search(_ text: UnsafeBufferPointer<Unicode.Scalar>, scratch: RegexScratch) -> Int? {
    let length = text.count
    scratch.prepare(program: program.count, length: length, groups: groupNames.count + 1)
    for start in 0...length {
      if run(text, from: start, scratch: scratch) { return start }
    }
    return nil
  }

  private func run(_ text: UnsafeBufferPointer<Unicode.Scalar>, from start: Int, scratch: RegexScratch) -> Bool {
    let length = text.count
    scratch.push(.visit(pc: 0, position: start))
    while let job = scratch.pop() {
      guard case .visit(var pc, var position) = job else {
        if case .restore(let slot, let value) = job { scratch.slots[slot] = value }
        continue
      }
      while true {
        guard scratch.markVisited(pc: pc, position: position) else { break }
        switch program[pc] {
        case .match:
          if position == length {
            scratch.clear()
            return true
          }
        case .character(let expected):
          guard position < length, text[position] == expected else { break }
          pc += 1
          position += 1
          continue
        case .caseless(let expected):
          guard position < length, RegexCase.fold(text[position]) == expected else { break }
          pc += 1
          position += 1
          continue
        case .any(let newline):
          guard position < length, newline || text[position] != "\n" else { break }
          pc += 1
          position += 1
          continue
        case .set(let index):
          guard position < length, classes[index].contains(text[position]) else { break }
          pc += 1
          position += 1
          continue
        case .split(let preferred, let other):
          scratch.push(.visit(pc: other, position: position))
          pc = preferred
          continue
        case .jump(let target):
          pc = target
          continue
        case .save(let slot):
          scratch.push(.restore(slot: slot, value: scratch.slots[slot]))
          scratch.slots[slot] = position
          pc += 1
          continue
        case .assert(let assertion):
          guard assertion.holds(in: text, at: position) else { break }
          pc += 1
          continue
        }
        break
      }
    }
    return false
  }

  /// The named groups of the last successful ``search(_:scratch:)``, with
  /// what they matched (a group that took no part matches "").
  func captures(_ text: UnsafeBufferPointer<Unicode.Scalar>, scratch: RegexScratch) -> [String: String] {
    var result: [String: String] = [:]
    for (index, name) in groupNames.enumerated() {
      guard let name else { continue }
      let (start, end) = (scratch.slots[2 * (index + 1)], scratch.slots[2 * (index + 1) + 1])
      guard start >= 0, end >= start else {
        result[name] = ""
        continue
      }
      result[name] = String(String.UnicodeScalarView(text[start..<end]))
    }
    return result
  }
}

/// The working memory of regex searches, allocated once and reused: the
/// backtracking stack, the visited bits, the group slots.
public final class RegexScratch {
  enum Job {
    case visit(pc: Int, position: Int)
    case restore(slot: Int, value: Int)
  }

  private var stack: [Job] = []
  private var visited: [UInt64] = []
  private var width = 0
  var slots: [Int] = []
  /// The recent text searched.
  var text: [Unicode.Scalar] = []

  public init() {
    stack.reserveCapacity(256)
    text.reserveCapacity(SnippetMatcher.regexWindow)
  }

  func prepare(program: Int, length: Int, groups: Int) {
    width = length + 1
    let words = (program * width + 63) / 64
    if visited.count < words {
      visited = [UInt64](repeating: 0, count: words)
    } else {
      for index in 0..<words { visited[index] = 0 }
    }
    if slots.count < 2 * groups { slots = [Int](repeating: -1, count: 2 * groups) }
    for index in slots.indices { slots[index] = -1 }
    stack.removeAll(keepingCapacity: true)
  }

  func push(_ job: Job) { stack.append(job) }
  func pop() -> Job? { stack.popLast() }
  func clear() { stack.removeAll(keepingCapacity: true) }

  /// Marks (pc, position) visited; false when it already was (a state that
  /// failed once fails again).
  func markVisited(pc: Int, position: Int) -> Bool {
    let bit = pc * width + position
    let mask = UInt64(1) << UInt64(bit & 63)
    if visited[bit >> 6] & mask != 0 { return false }
    visited[bit >> 6] |= mask
    return true
  }
}

/// One step of a compiled regex.
enum Instruction: Sendable {
  case character(Unicode.Scalar)
  /// A character compared case-folded (`(?i)`).
  case caseless(Unicode.Scalar)
  /// Any character; `newline` when `\n` counts (`(?s)`).
  case any(newline: Bool)
  case set(Int)
  /// Try `preferred` first, then `other`.
  case split(Int, Int)
  case jump(Int)
  case save(Int)
  case assert(RegexAssertion)
  case match
}

enum RegexAssertion: Sendable {
  case start, end, wordBoundary, notWordBoundary

  func holds(in text: UnsafeBufferPointer<Unicode.Scalar>, at position: Int) -> Bool {
    switch self {
    case .start: return position == 0
    case .end: return position == text.count
    case .wordBoundary, .notWordBoundary:
      let before = position > 0 && CharacterClass.isWord(text[position - 1])
      let after = position < text.count && CharacterClass.isWord(text[position])
      return (before != after) == (self == .wordBoundary)
    }
  }
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

/// A set of characters: ranges and named classes, maybe negated.
struct CharacterClass: Sendable {
  enum Named: Sendable { case digit, word, space }
  var ranges: [ClosedRange<UInt32>] = []
  var named: [(Named, negated: Bool)] = []
  var negated = false
  var caseless = false

  func contains(_ character: Unicode.Scalar) -> Bool {
    var found = containsExactly(character)
    if !found && caseless {
      let lower = RegexCase.fold(character)
      let upper = character.properties.uppercaseMapping.unicodeScalars
      found = containsExactly(lower) || (upper.count == 1 && containsExactly(upper.first!))
    }
    return found != negated
  }

  private func containsExactly(_ character: Unicode.Scalar) -> Bool {
    for range in ranges where range.contains(character.value) { return true }
    for (name, negated) in named where Self.isIn(name, character) != negated { return true }
    return false
  }

  static func isIn(_ name: Named, _ character: Unicode.Scalar) -> Bool {
    switch name {
    case .digit: return character.properties.numericType == .decimal
    case .word: return isWord(character)
    case .space: return character.properties.isWhitespace
    }
  }

  /// Rust's `\w`: letters, marks, decimal digits, connector punctuation.
  static func isWord(_ character: Unicode.Scalar) -> Bool {
    if character.isASCII {
      let value = character.value
      return (48...57).contains(value) || (65...90).contains(value) || (97...122).contains(value) || value == 95
    }
    let properties = character.properties
    if properties.isAlphabetic || properties.numericType == .decimal || properties.isJoinControl { return true }
    switch properties.generalCategory {
    case .nonspacingMark, .spacingMark, .enclosingMark, .connectorPunctuation: return true
    default: return false
    }
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

/// A parsed regex.
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
      guard !set.negated, !set.caseless, set.named.isEmpty, set.ranges.reduce(0, { $0 + $1.count }) <= 8 else {
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

/// Reads a pattern into a ``RegexNode``.
struct RegexParser {
  private let pattern: [Unicode.Scalar]
  private var position = 0
  private var caseless = false
  private var dotNewline = false
  var classes: [CharacterClass] = []
  var groupNames: [String?] = []

  init(_ pattern: [Unicode.Scalar]) { self.pattern = pattern }

  private func error(_ message: String, at offset: Int? = nil) -> TriggerRegex.Error {
    TriggerRegex.Error(message: message, offset: offset ?? position)
  }

  private func unsupported(_ message: String) -> TriggerRegex.Error {
    TriggerRegex.Error(message: message, offset: position, isUnsupported: true)
  }

  private var next: Unicode.Scalar? { position < pattern.count ? pattern[position] : nil }

  mutating func parse() throws(TriggerRegex.Error) -> RegexNode {
    let tree = try alternation()
    if position < pattern.count { throw error("unmatched ')'") }
    return tree
  }

  private mutating func alternation() throws(TriggerRegex.Error) -> RegexNode {
    var branches = [try sequence()]
    while next == "|" {
      position += 1
      branches.append(try sequence())
    }
    return branches.count == 1 ? branches[0] : .alternation(branches)
  }

  private mutating func sequence() throws(TriggerRegex.Error) -> RegexNode {
    var items: [RegexNode] = []
    while let character = next, character != "|", character != ")" {
      let start = position
      guard let atom = try atom() else { continue }
      items.append(try quantified(atom, start: start))
    }
    return items.count == 1 ? items[0] : items.isEmpty ? .empty : .sequence(items)
  }

  private mutating func quantified(_ atom: RegexNode, start: Int) throws(TriggerRegex.Error) -> RegexNode {
    var node = atom
    while let character = next {
      var minimum = 0
      var maximum: Int?
      switch character {
      case "*": position += 1
      case "+":
        minimum = 1
        position += 1
      case "?":
        maximum = 1
        position += 1
      case "{":
        guard let bounds = try counted() else { return node }
        (minimum, maximum) = bounds
      default: return node
      }
      if case .assert = atom { throw error("a quantifier after an assertion", at: start) }
      var greedy = true
      if next == "?" {
        greedy = false
        position += 1
      }
      node = .repetition(node, minimum: minimum, maximum: maximum, greedy: greedy)
    }
    return node
  }

  /// `{n}`, `{n,}`, `{n,m}`; nil (and nothing read) when the brace is a literal.
  private mutating func counted() throws(TriggerRegex.Error) -> (Int, Int?)? {
    let start = position
    position += 1
    func number(_ parser: inout RegexParser) -> Int? {
      var value: Int?
      while let digit = parser.next, let figure = Int(String(digit)), digit.isASCII {
        value = min((value ?? 0) * 10 + figure, 100_000)
        parser.position += 1
      }
      return value
    }
    guard let minimum = number(&self) else {
      position = start
      return nil
    }
    var maximum: Int? = minimum
    if next == "," {
      position += 1
      maximum = number(&self)
    }
    guard next == "}" else { throw error("an unclosed repetition {…}", at: start) }
    position += 1
    if let maximum, maximum < minimum { throw error("a repetition {n,m} with m below n", at: start) }
    if max(minimum, maximum ?? 0) > 1000 { throw error("a repetition over 1000", at: start) }
    return (minimum, maximum)
  }

  private mutating func atom() throws(TriggerRegex.Error) -> RegexNode? {
    let character = pattern[position]
    position += 1
    switch character {
    case "(": return try group()
    case "[": return .set(try bracketClass())
    case ".": return .any(newline: dotNewline)
    case "^": return .assert(.start)
    case "$": return .assert(.end)
    case "\\": return try escape()
    case "*", "+", "?": throw error("a quantifier with nothing before it", at: position - 1)
    default: return .character(character, caseless: caseless)
    }
  }

  private mutating func group() throws(TriggerRegex.Error) -> RegexNode? {
    let start = position - 1
    var capture: Int?
    let outerFlags = (caseless, dotNewline)
    if next == "?" {
      position += 1
      if next == "P"
        || (next == "<" && position + 1 < pattern.count && pattern[position + 1] != "=" && pattern[position + 1] != "!")
      {
        if next == "P" { position += 1 }
        guard next == "<" else { throw error("expected '<' after '(?P'") }
        position += 1
        var name = ""
        while let character = next, character != ">" {
          guard CharacterClass.isWord(character) else { throw error("a group name may have only word characters") }
          name.unicodeScalars.append(character)
          position += 1
        }
        guard next == ">", !name.isEmpty else { throw error("an unclosed or empty group name", at: start) }
        position += 1
        if groupNames.contains(name) { throw error("the group name '\(name)' is used twice", at: start) }
        groupNames.append(name)
        capture = groupNames.count
      } else {
        // Flags: (?i) for the rest of the group, (?i:…) for its own.
        var enable = true
        while let character = next, character != ")", character != ":" {
          switch character {
          case "-": enable = false
          case "i": caseless = enable
          case "s": dotNewline = enable
          case "m", "u", "x", "U", "R":
            throw unsupported("the flag '\(character)' is not supported")
          default: throw error("an unknown group kind '(?\(character)'")
          }
          position += 1
        }
        guard let end = next else { throw error("an unclosed group", at: start) }
        position += 1
        if end == ")" { return nil }  // flags for the rest of the enclosing group
      }
    } else {
      groupNames.append(nil)
      capture = groupNames.count
    }
    let inner = try alternation()
    guard next == ")" else { throw error("an unclosed group", at: start) }
    position += 1
    (caseless, dotNewline) = outerFlags
    return .group(inner, capture: capture)
  }

  private mutating func escape() throws(TriggerRegex.Error) -> RegexNode {
    guard let character = next else { throw error("a pattern that ends with '\\'") }
    position += 1
    switch character {
    case "b": return .assert(.wordBoundary)
    case "B": return .assert(.notWordBoundary)
    case "A": return .assert(.start)
    case "z": return .assert(.end)
    case "d", "D", "w", "W", "s", "S":
      var set = CharacterClass()
      set.named = [Self.named(character)]
      classes.append(set)
      return .set(classes.count - 1)
    default:
      return .character(try escapedCharacter(character), caseless: caseless)
    }
  }

  private static func named(_ letter: Unicode.Scalar) -> (CharacterClass.Named, negated: Bool) {
    let lower = RegexCase.fold(letter)
    let name: CharacterClass.Named = lower == "d" ? .digit : lower == "w" ? .word : .space
    return (name, lower != letter)
  }

  /// The character an escape stands for (after the backslash).
  private mutating func escapedCharacter(_ character: Unicode.Scalar) throws(TriggerRegex.Error) -> Unicode.Scalar {
    switch character {
    case "n": return "\n"
    case "t": return "\t"
    case "r": return "\r"
    case "f": return "\u{0C}"
    case "v": return "\u{0B}"
    case "0": return "\0"
    case "x":
      var digits = ""
      if next == "{" {
        position += 1
        while let digit = next, digit != "}" {
          digits.unicodeScalars.append(digit)
          position += 1
        }
        position += 1
      } else {
        for _ in 0..<2 {
          guard let digit = next else { break }
          digits.unicodeScalars.append(digit)
          position += 1
        }
      }
      guard let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
        throw error("a bad \\x escape")
      }
      return scalar
    case "p", "P": throw unsupported("Unicode classes (\\p{…}) are not supported")
    default:
      if character.properties.isAlphabetic || ("0"..."9").contains(character) {
        throw error("an unknown escape '\\\(character)'")
      }
      return character  // \. \\ \( and other punctuation stand for themselves
    }
  }

  private static let posixClasses: [String: [ClosedRange<UInt32>]] = [
    "alpha": [65...90, 97...122], "digit": [48...57], "alnum": [48...57, 65...90, 97...122],
    "upper": [65...90], "lower": [97...122], "space": [9...13, 32...32],
    "punct": [33...47, 58...64, 91...96, 123...126],
    "xdigit": [48...57, 65...70, 97...102], "word": [48...57, 65...90, 95...95, 97...122], "blank": [9...9, 32...32],
    "cntrl": [0...31, 127...127], "print": [32...126], "graph": [33...126], "ascii": [0...127],
  ]

  /// `[…]` after its `[`: the index of the class made.
  private mutating func bracketClass() throws(TriggerRegex.Error) -> Int {
    let start = position - 1
    var set = CharacterClass()
    set.caseless = caseless
    if next == "^" {
      set.negated = true
      position += 1
    }
    var first = true
    while true {
      guard let character = next else { throw error("an unclosed class [", at: start) }
      if character == "]" && !first { break }
      first = false
      position += 1
      var low: Unicode.Scalar
      if character == "[" && next == ":" {
        guard let close = (position..<pattern.count).first(where: { pattern[$0] == "]" }) else {
          throw error("an unclosed class [", at: start)
        }
        var name = String(String.UnicodeScalarView(pattern[(position + 1)..<max(close - 1, position + 1)]))
        let negated = name.hasPrefix("^")
        if negated { name.removeFirst() }
        guard let ranges = Self.posixClasses[name], pattern[close - 1] == ":" else {
          throw error("an unknown class [:\(name):]")
        }
        if negated { throw unsupported("a negated [:^…:] class is not supported") }
        set.ranges += ranges
        position = close + 1
        continue
      } else if character == "\\" {
        guard let escaped = next else { throw error("an unclosed class [", at: start) }
        position += 1
        if "dDwWsS".unicodeScalars.contains(escaped) {
          set.named.append(Self.named(escaped))
          continue
        }
        low = try escapedCharacter(escaped)
      } else {
        low = character
      }
      var high = low
      if next == "-", position + 1 < pattern.count, pattern[position + 1] != "]" {
        position += 1
        var end = pattern[position]
        position += 1
        if end == "\\" {
          guard let escaped = next else { throw error("an unclosed class [", at: start) }
          position += 1
          end = try escapedCharacter(escaped)
        }
        guard end.value >= low.value else { throw error("a class range out of order") }
        high = end
      }
      set.ranges.append(low.value...high.value)
    }
    position += 1
    classes.append(set)
    return classes.count - 1
  }
}

/// Writes a ``RegexNode`` out as instructions.
struct RegexCompiler {
  var program: [Instruction] = []
  var classes: [CharacterClass]

  init(classes: [CharacterClass]) { self.classes = classes }

  mutating func compile(_ node: RegexNode) {
    guard program.count <= TriggerRegex.maximumProgram else { return }  // refused by the caller
    switch node {
    case .empty: break
    case .character(let character, let caseless):
      program.append(caseless ? .caseless(RegexCase.fold(character)) : .character(character))
    case .any(let newline): program.append(.any(newline: newline))
    case .set(let index): program.append(.set(index))
    case .assert(let assertion): program.append(.assert(assertion))
    case .group(let inner, let capture):
      if let capture { program.append(.save(2 * capture)) }
      compile(inner)
      if let capture { program.append(.save(2 * capture + 1)) }
    case .sequence(let items): for item in items { compile(item) }
    case .alternation(let items):
      var jumps: [Int] = []
      for (index, item) in items.enumerated() {
        if index < items.count - 1 {
          let split = program.count
          program.append(.split(split + 1, 0))
          compile(item)
          jumps.append(program.count)
          program.append(.jump(0))
          program[split] = .split(split + 1, program.count)
        } else {
          compile(item)
        }
      }
      for jump in jumps { program[jump] = .jump(program.count) }
    case .repetition(let inner, let minimum, let maximum, let greedy):
      for _ in 0..<minimum { compile(inner) }
      if let maximum {
        // Each optional copy: split into it or past all that follow.
        var splits: [Int] = []
        for _ in minimum..<maximum {
          splits.append(program.count)
          program.append(.split(0, 0))
          compile(inner)
        }
        for split in splits { program[split] = choice(split + 1, program.count, greedy: greedy) }
      } else {
        let loop = program.count
        program.append(.split(0, 0))
        compile(inner)
        program.append(.jump(loop))
        program[loop] = choice(loop + 1, program.count, greedy: greedy)
      }
    }
  }

  private func choice(_ into: Int, _ past: Int, greedy: Bool) -> Instruction {
    greedy ? .split(into, past) : .split(past, into)
  }
}
