import CPCRE2

/// A regex compiled by PCRE2 (libpcre2-32, matching UTF-32: the engine's
/// Unicode scalars as they are), from the pattern ``PCRE2Writer`` wrote
/// for a ``RegexNode``. Interpreted, not JIT-compiled: the daemon's unit
/// forbids writable executable memory (MemoryDenyWriteExecute). Immutable
/// once made; it frees its code with itself.
package final class PCRE2Code: @unchecked Sendable {
  private let code: OpaquePointer
  /// How many capture groups it has.
  let groups: Int

  /// The most backtracking one match may do: a pathological pattern
  /// fails to match instead of taking the key path's time.
  static let matchLimit: UInt32 = 20_000

  /// Compiles `pattern` (PCRE2's syntax), anchored at the end of the text
  /// when `endAnchored`. Throws PCRE2's message; the offset is in
  /// `pattern`.
  init(_ pattern: [UInt32], endAnchored: Bool) throws(RegexError) {
    var error: Int32 = 0
    var offset = 0
    let context = pcre2_compile_context_create_32(nil)
    defer { pcre2_compile_context_free_32(context) }
    pcre2_set_newline_32(context, UInt32(PCRE2_NEWLINE_LF))
    let options = UInt32(PCRE2_UTF | PCRE2_UCP | PCRE2_NO_UTF_CHECK) | (endAnchored ? UInt32(PCRE2_ENDANCHORED) : 0)
    guard let code = CPCRE2_compile(pattern, pattern.count, options, &error, &offset, context) else {
      throw RegexError(message: Self.message(error), offset: offset)
    }
    self.code = code
    var count: UInt32 = 0
    pcre2_pattern_info_32(code, UInt32(PCRE2_INFO_CAPTURECOUNT), &count)
    groups = Int(count)
  }

  deinit { pcre2_code_free_32(code) }

  /// PCRE2's words for an error.
  static func message(_ error: Int32) -> String {
    var buffer = [UInt32](repeating: 0, count: 256)
    let length = CPCRE2_errorMessage(error, &buffer, buffer.count)
    return String(scalars: buffer.prefix(max(0, Int(length))).lazy.compactMap(Unicode.Scalar.init))
  }

  /// Searches `text` for the leftmost match (that ends at its end, when
  /// anchored so); its start, with the groups' ranges in `data`. Nil
  /// when there is none, or the search passed the match limit.
  package func search(_ text: UnsafeBufferPointer<UInt32>, data: PCRE2MatchData) -> Int? {
    let found = pcre2_match_32(
      code, text.baseAddress ?? UnsafePointer(data.empty), text.count, 0, UInt32(PCRE2_NO_UTF_CHECK), data.data,
      data.context)
    // 0: a match, with more groups than the data has room for (a filter
    // asks only whether it matches).
    guard found >= 0 else { return nil }
    return data.range(0)?.lowerBound
  }
}

/// A pattern of espanso's syntax parsed and compiled: the one way a
/// trigger or a filter (the daemon's FilterRegex) is made.
package struct ParsedPattern {
  let tree: RegexNode
  let classes: [CharacterClass]
  let groupNames: [String?]
  package let code: PCRE2Code

  /// The longest PCRE2 pattern one becomes, in characters.
  static let maximumCompiled = 65_536

  /// Parses `pattern` and compiles it, anchored at the end of the text
  /// when `endAnchored`; refuses one that can match the empty string when
  /// `refusingEmpty`.
  package init(_ pattern: String, endAnchored: Bool, refusingEmpty: Bool) throws(RegexError) {
    var parser = RegexParser(Array(pattern.unicodeScalars))
    tree = try parser.parse()
    if refusingEmpty && tree.isNullable { throw RegexError(message: "the regex can match the empty string", offset: 0) }
    var writer = PCRE2Writer(classes: parser.classes)
    writer.write(tree)
    guard writer.pattern.count <= Self.maximumCompiled else {
      throw RegexError(message: "the regex is too large", offset: 0)
    }
    do {
      code = try PCRE2Code(writer.pattern, endAnchored: endAnchored)
    } catch {
      // The written pattern is the parser's; what PCRE2 refuses of it (a
      // repetition nested too deep) has no place in what was typed.
      throw RegexError(message: "PCRE2 refuses it: \(error.message)", offset: 0, isUnsupported: true)
    }
    classes = parser.classes
    groupNames = parser.groupNames
  }
}

/// Where matches put what they found, made once and reused (a search
/// allocates nothing once the backtracking memory PCRE2 keeps in it has
/// grown to what the patterns need), with the match limit.
package final class PCRE2MatchData: @unchecked Sendable {
  fileprivate let data: OpaquePointer
  fileprivate let context: OpaquePointer
  /// A text of no characters still needs an address.
  fileprivate let empty = UnsafeMutablePointer<UInt32>.allocate(capacity: 1)

  /// Room for `groups` groups besides the whole match.
  package init(groups: Int) {
    data = pcre2_match_data_create_32(UInt32(groups + 1), nil)!
    context = pcre2_match_context_create_32(nil)!
    pcre2_set_match_limit_32(context, PCRE2Code.matchLimit)
  }

  deinit {
    pcre2_match_data_free_32(data)
    pcre2_match_context_free_32(context)
    empty.deallocate()
  }

  /// How many groups it has room for.
  var groups: Int { Int(pcre2_get_ovector_count_32(data)) - 1 }

  /// The range of group `index` (0: the whole match) in the last match;
  /// nil for a group that took no part in it.
  func range(_ index: Int) -> Range<Int>? {
    guard index <= groups, let vector = pcre2_get_ovector_pointer_32(data) else { return nil }
    let start = vector[2 * index]
    let end = vector[2 * index + 1]
    // PCRE2_UNSET, all ones as size_t, reads as -1 here (size_t is Int).
    guard start >= 0, end >= start else { return nil }
    return start..<end
  }
}

/// Writes a ``RegexNode`` as a PCRE2 pattern that matches the same: every
/// literal escaped, every flag explicit, the named classes as Unicode
/// properties (Rust's `\w` is letters, marks, decimal digits, connector
/// punctuation and joiners). Groups keep their numbers; their names are
/// the caller's.
struct PCRE2Writer {
  let classes: [CharacterClass]
  private(set) var pattern: [UInt32] = []

  init(classes: [CharacterClass]) { self.classes = classes }

  private mutating func write(_ text: String) { pattern += text.unicodeScalars.map(\.value) }

  private mutating func write(literal character: Unicode.Scalar) {
    write("\\x{" + String(character.value, radix: 16) + "}")
  }

  private static let wordProperties = ["Alphabetic", "M", "Nd", "Pc", "Join_Control"]

  mutating func write(_ node: RegexNode) {
    switch node {
    case .empty: write("(?:)")
    case .character(let character, let caseless):
      write(caseless ? "(?i:" : "(?-i:")
      write(literal: character)
      write(")")
    case .any(let newline): write(newline ? "(?s:.)" : "(?-s:.)")
    case .set(let index): write(set: classes[index])
    case .assert(let assertion):
      switch assertion {
      case .start: write("\\A")
      case .end: write("\\z")
      case .lineStart: write("(?m:^)")
      case .lineEnd: write("(?m:$)")
      case .wordBoundary: write("\\b")
      case .notWordBoundary: write("\\B")
      }
    case .group(let inner, let capture):
      // Named or not, a group has its number; the names stay here.
      write(capture == nil ? "(?:" : "(")
      write(inner)
      write(")")
    case .sequence(let items): for item in items { write(item) }
    case .alternation(let items):
      write("(?:")
      for (index, item) in items.enumerated() {
        if index > 0 { write("|") }
        write(item)
      }
      write(")")
    case .repetition(let inner, let minimum, let maximum, let greedy):
      write("(?:")
      write(inner)
      write("){\(minimum),\(maximum.map(String.init) ?? "")}")
      if !greedy { write("?") }
    }
  }

  /// A class as one PCRE2 class. A negated `\W`, `\D`, `\S` inside
  /// brackets with other items is PCRE2's own (whose `\W` differs from
  /// Rust's only beyond letters, digits and marks).
  private mutating func write(set: CharacterClass) {
    write(set.caseless ? "(?i:[" : "(?-i:[")
    if set.negated { write("^") }
    for range in set.ranges {
      write(literal: Unicode.Scalar(range.lowerBound)!)
      if range.upperBound > range.lowerBound {
        write("-")
        write(literal: Unicode.Scalar(range.upperBound)!)
      }
    }
    let alone = set.ranges.isEmpty && set.named.count + set.properties.count == 1 && !set.negated
    for (name, negated) in set.named {
      switch (name, negated) {
      case (.digit, false): write("\\p{Nd}")
      case (.digit, true): write("\\P{Nd}")
      case (.space, false): write("\\p{White_Space}")
      case (.space, true): write("\\P{White_Space}")
      case (.word, false): for property in Self.wordProperties { write("\\p{\(property)}") }
      case (.word, true):
        if alone {
          write("^")
          for property in Self.wordProperties { write("\\p{\(property)}") }
        } else {
          write("\\W")
        }
      }
    }
    for (name, negated) in set.properties { write((negated ? "\\P{" : "\\p{") + name + "}") }
    write("])")
  }
}

/// What PCRE2 knows of Unicode properties, asked once per name.
enum PCRE2Probe {
  /// Whether `\p{name}` compiles.
  static func knowsProperty(_ name: String) -> Bool {
    (try? PCRE2Code(Array("\\p{\(name)}".unicodeScalars.map(\.value)), endAnchored: false)) != nil
  }

  /// The ASCII characters that have the property.
  static func asciiMembers(of name: String) -> CharacterBits {
    var bits = CharacterBits()
    guard let code = try? PCRE2Code(Array("\\p{\(name)}".unicodeScalars.map(\.value)), endAnchored: true) else {
      return bits
    }
    let data = PCRE2MatchData(groups: 0)
    for value in UInt32(0)..<128 {
      let found = [value].withUnsafeBufferPointer { code.search($0, data: data) }
      if found != nil { bits.insert(value: value) }
    }
    return bits
  }
}
