/// Reads a pattern in espanso's regex syntax (that of Rust's `regex`
/// crate) into a ``RegexNode``: literals and escapes (`\x{…}`, `\u{…}`),
/// `.`, classes (`[a-z]`, `[^…]`, `[[:alpha:]]`, `\d \w \s`, Unicode
/// properties `\pL`, `\p{Greek}`, `\p{Script=Greek}` and their negations),
/// groups (named `(?P<name>…)` or `(?<name>…)`, `(?:…)`), alternation, the
/// quantifiers `* + ? {n} {n,} {n,m}` and their lazy forms, `^ $ \A \z \b
/// \B`, and the flags `i m s x U`. What Rust's syntax does not have
/// (lookaround, back-references) is an error, as there; what it has and
/// vkbd does not (class set operations, `(?-u)`) is refused as unsupported.
struct RegexParser {
  private let pattern: [Unicode.Scalar]
  private var position = 0
  private var caseless = false
  private var dotNewline = false
  private var multiLine = false
  private var verbose = false
  private var swapGreed = false
  var classes: [CharacterClass] = []
  var groupNames: [String?] = []

  init(_ pattern: [Unicode.Scalar]) { self.pattern = pattern }

  private func error(_ message: String, at offset: Int? = nil) -> RegexError {
    RegexError(message: message, offset: offset ?? position)
  }

  private func unsupported(_ message: String, at offset: Int? = nil) -> RegexError {
    RegexError(message: message, offset: offset ?? position, isUnsupported: true)
  }

  private var next: Unicode.Scalar? { position < pattern.count ? pattern[position] : nil }

  /// The whole pattern; its classes are settled (their ASCII members known).
  mutating func parse() throws(RegexError) -> RegexNode {
    let tree = try alternation()
    if position < pattern.count { throw error("unmatched ')'") }
    for index in classes.indices { classes[index].settle() }
    return tree
  }

  private mutating func alternation() throws(RegexError) -> RegexNode {
    var branches = [try sequence()]
    while next == "|" {
      position += 1
      branches.append(try sequence())
    }
    return branches.count == 1 ? branches[0] : .alternation(branches)
  }

  private mutating func sequence() throws(RegexError) -> RegexNode {
    var items: [RegexNode] = []
    while true {
      skipVerbose()
      guard let character = next, character != "|", character != ")" else { break }
      let start = position
      guard let atom = try atom() else { continue }
      items.append(try quantified(atom, start: start))
    }
    return items.count == 1 ? items[0] : items.isEmpty ? .empty : .sequence(items)
  }

  /// In `(?x)`, white space and `#` comments to the end of the line are
  /// not part of the pattern.
  private mutating func skipVerbose() {
    guard verbose else { return }
    while let character = next {
      if character.properties.isWhitespace {
        position += 1
      } else if character == "#" {
        while let skipped = next, skipped != "\n" { position += 1 }
      } else {
        return
      }
    }
  }

  private mutating func quantified(_ atom: RegexNode, start: Int) throws(RegexError) -> RegexNode {
    var node = atom
    while true {
      skipVerbose()
      guard let character = next else { return node }
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
      node = .repetition(node, minimum: minimum, maximum: maximum, greedy: greedy != swapGreed)
    }
  }

  /// `{n}`, `{n,}`, `{n,m}`; nil (and nothing read) when the brace is a literal.
  private mutating func counted() throws(RegexError) -> (Int, Int?)? {
    let start = position
    position += 1
    func number(_ parser: inout RegexParser) -> Int? {
      var value: Int?
      while let digit = parser.next, digit.isASCII, let figure = Int(String(digit)) {
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

  private mutating func atom() throws(RegexError) -> RegexNode? {
    let character = pattern[position]
    position += 1
    switch character {
    case "(": return try group()
    case "[": return .set(try bracketClass())
    case ".": return .any(newline: dotNewline)
    case "^": return .assert(multiLine ? .lineStart : .start)
    case "$": return .assert(multiLine ? .lineEnd : .end)
    case "\\": return try escape()
    case "*", "+", "?": throw error("a quantifier with nothing before it", at: position - 1)
    default: return .character(character, caseless: caseless)
    }
  }

  private mutating func group() throws(RegexError) -> RegexNode? {
    let start = position - 1
    var capture: Int?
    let outerFlags = (caseless, dotNewline, multiLine, verbose, swapGreed)
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
          guard CharacterClass.isNameCharacter(character) else {
            throw error("a group name may have only word characters")
          }
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
          case "m": multiLine = enable
          case "x": verbose = enable
          case "U": swapGreed = enable
          case "R": break  // CRLF mode: the text vkbd reads has no \r
          case "u":
            guard enable else { throw unsupported("(?-u) is not supported: vkbd matches characters, not bytes") }
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
    (caseless, dotNewline, multiLine, verbose, swapGreed) = outerFlags
    return .group(inner, capture: capture)
  }

  private mutating func escape() throws(RegexError) -> RegexNode {
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
    case "p", "P":
      var set = CharacterClass()
      set.properties = [try property(negated: character == "P")]
      set.caseless = caseless
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

  /// A Unicode property after `\p` or `\P`: one letter, or a name in
  /// braces; PCRE2 must know it.
  private mutating func property(negated: Bool) throws(RegexError) -> (name: String, negated: Bool) {
    let start = position - 2
    var text = ""
    if next == "{" {
      guard let braced = bracedText() else { throw error("an unclosed \\p{…}", at: start) }
      text = braced
    } else if let letter = next {
      text.unicodeScalars.append(letter)
      position += 1
    }
    // Rust's \p{Name≠Value} and \p{Name!=Value} negate.
    var negated = negated
    for inequality in ["≠", "!="] where text.contains(inequality) {
      text = text.replacing(inequality, with: "=")
      negated.toggle()
    }
    let name = UnicodeProperty.pcre2Name(text)
    guard PCRE2Probe.knowsProperty(name) else {
      throw unsupported("the Unicode class '\(text)' is not one PCRE2 knows", at: start)
    }
    return (name, negated)
  }

  /// The text between `{` (at the position) and the next `}`, both passed;
  /// nil, with the rest passed, where no `}` closes it.
  private mutating func bracedText() -> String? {
    var text = ""
    position += 1
    while let character = next, character != "}" {
      text.unicodeScalars.append(character)
      position += 1
    }
    guard next == "}" else { return nil }
    position += 1
    return text
  }

  /// The character an escape stands for (after the backslash).
  private mutating func escapedCharacter(_ character: Unicode.Scalar) throws(RegexError) -> Unicode.Scalar {
    switch character {
    case "n": return "\n"
    case "t": return "\t"
    case "r": return "\r"
    case "f": return "\u{0C}"
    case "v": return "\u{0B}"
    case "a": return "\u{07}"
    case "0": return "\0"
    case "x", "u", "U":
      var digits = ""
      if next == "{" {
        digits = bracedText() ?? ""
      } else {
        for _ in 0..<(character == "x" ? 2 : character == "u" ? 4 : 8) {
          guard let digit = next else { break }
          digits.unicodeScalars.append(digit)
          position += 1
        }
      }
      guard let value = UInt32(digits, radix: 16), let scalar = Unicode.Scalar(value) else {
        throw error("a bad \\\(character) escape")
      }
      return scalar
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
  private mutating func bracketClass() throws(RegexError) -> Int {
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
      if position < pattern.count, ["&", "-", "~"].contains(character), pattern[position] == character,
        position + 1 < pattern.count, pattern[position + 1] != "]"
      {
        throw unsupported("class set operations (&&, --, ~~) are not supported", at: position - 1)
      }
      var low: Unicode.Scalar
      if character == "[" && next == ":" {
        guard let close = (position..<pattern.count).first(where: { pattern[$0] == "]" }) else {
          throw error("an unclosed class [", at: start)
        }
        var name = String(scalars: pattern[(position + 1)..<max(close - 1, position + 1)])
        let negated = name.hasPrefix("^")
        if negated { name.removeFirst() }
        guard let ranges = Self.posixClasses[name], pattern[close - 1] == ":" else {
          throw error("an unknown class [:\(name):]")
        }
        if negated { throw unsupported("a negated [:^…:] class is not supported") }
        set.ranges += ranges
        position = close + 1
        continue
      } else if character == "[" {
        throw unsupported("a class inside a class is not supported", at: position - 1)
      } else if character == "\\" {
        guard let escaped = next else { throw error("an unclosed class [", at: start) }
        position += 1
        if "dDwWsS".unicodeScalars.contains(escaped) {
          set.named.append(Self.named(escaped))
          continue
        }
        if escaped == "p" || escaped == "P" {
          set.properties.append(try property(negated: escaped == "P"))
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
