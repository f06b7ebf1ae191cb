import CPCRE2

/// A set of characters in a regex: ranges, the named classes `\d \w \s`
/// and Unicode properties (`\p{Greek}`), maybe negated, maybe without
/// regard to case. PCRE2 decides what a character is; the prefilters ask
/// ``contains(_:)``, which is exact for ASCII and may say yes wrongly, but
/// never no, beyond it.
struct CharacterClass: Sendable {
  enum Named: Sendable { case digit, word, space }
  var ranges: [ClosedRange<UInt32>] = []
  var named: [(Named, negated: Bool)] = []
  /// Unicode properties by PCRE2's name (`Lu`, `Greek`, `Alphabetic`).
  var properties: [(name: String, negated: Bool)] = []
  var negated = false
  var caseless = false
  /// The ASCII characters in it, worked out once it is whole
  /// (``settle()``).
  private var ascii = CharacterBits()

  func contains(_ character: Unicode.Scalar) -> Bool {
    if character.isASCII { return ascii.contains(single: character) }
    guard named.isEmpty && properties.isEmpty else { return true }
    var found = ranges.contains { $0.contains(character.value) }
    if !found && caseless {
      let lower = RegexCase.fold(character).value
      let upper = character.properties.uppercaseMapping.unicodeScalars
      found = ranges.contains { $0.contains(lower) || (upper.count == 1 && $0.contains(upper.first!.value)) }
    }
    return found != negated
  }

  /// Works out which ASCII characters are in it, the properties' through
  /// PCRE2 (once per class, when the pattern is compiled).
  mutating func settle() {
    var bits = CharacterBits()
    let propertySets = properties.map { (PCRE2Probe.asciiMembers(of: $0.name), $0.negated) }
    for value in UInt32(0)..<128 {
      let character = Unicode.Scalar(UInt8(value))
      var candidates = [value]
      if caseless, (65...90).contains(value) || (97...122).contains(value) { candidates.append(value ^ 0x20) }
      var found = false
      for candidate in candidates {
        let scalar = Unicode.Scalar(UInt8(candidate))
        if ranges.contains(where: { $0.contains(candidate) })
          || named.contains(where: { Self.isASCII(scalar, in: $0.0) != $0.negated })
          || propertySets.contains(where: { $0.0.contains(single: scalar) != $0.1 })
        {
          found = true
        }
      }
      if found != negated { bits.insert(character) }
    }
    ascii = bits
  }

  /// Whether an ASCII character is in a named class (Rust's and PCRE2's
  /// Unicode classes agree on ASCII).
  static func isASCII(_ character: Unicode.Scalar, in name: Named) -> Bool {
    let value = character.value
    switch name {
    case .digit: return (48...57).contains(value)
    case .space: return value == 32 || (9...13).contains(value)
    case .word: return isWordASCII(value)
    }
  }

  static func isWordASCII(_ value: UInt32) -> Bool {
    (48...57).contains(value) || (65...90).contains(value) || (97...122).contains(value) || value == 95
  }

  /// A group name's characters: letters, digits, `_` (Rust's rule).
  static func isNameCharacter(_ character: Unicode.Scalar) -> Bool {
    isWordASCII(character.value) || (!character.isASCII && character.properties.isAlphabetic)
  }
}

extension CharacterBits {
  /// Whether it holds `character` (for ASCII, exactly).
  func contains(single character: Unicode.Scalar) -> Bool {
    var bits = CharacterBits()
    bits.insert(character)
    return contains(bits)
  }
}

/// Unicode property names as espanso's syntax (Rust's regex) writes them,
/// and PCRE2's names for them; PCRE2 checks what it knows.
enum UnicodeProperty {
  /// The long names of the general categories, which PCRE2 does not read.
  static let categories: [String: String] = [
    "letter": "L", "casedletter": "LC", "uppercaseletter": "Lu", "lowercaseletter": "Ll", "titlecaseletter": "Lt",
    "modifierletter": "Lm", "otherletter": "Lo", "mark": "M", "combiningmark": "M", "nonspacingmark": "Mn",
    "spacingmark": "Mc", "enclosingmark": "Me", "number": "N", "decimalnumber": "Nd", "digit": "Nd",
    "letternumber": "Nl", "othernumber": "No", "punctuation": "P", "punct": "P", "connectorpunctuation": "Pc",
    "dashpunctuation": "Pd", "openpunctuation": "Ps", "closepunctuation": "Pe", "initialpunctuation": "Pi",
    "finalpunctuation": "Pf", "otherpunctuation": "Po", "symbol": "S", "mathsymbol": "Sm", "currencysymbol": "Sc",
    "modifiersymbol": "Sk", "othersymbol": "So", "separator": "Z", "spaceseparator": "Zs", "lineseparator": "Zl",
    "paragraphseparator": "Zp", "other": "C", "control": "Cc", "cntrl": "Cc", "format": "Cf", "surrogate": "Cs",
    "privateuse": "Co", "unassigned": "Cn",
  ]

  /// PCRE2's name for what `\p{text}` (or `\pX`) names in espanso's
  /// syntax: `Letter` and `gc=L` are `L`, `Script=Greek` is `sc:Greek`.
  static func pcre2Name(_ text: String) -> String {
    let loose = { (name: Substring) in
      String(name.lowercased().filter { $0 != "_" && $0 != " " && $0 != "-" })
    }
    if let separator = text.firstIndex(where: { $0 == "=" || $0 == ":" }) {
      let key = loose(text[..<separator])
      let value = text[text.index(after: separator)...]
      switch key {
      case "gc", "generalcategory": return categories[loose(value)] ?? String(value)
      case "sc", "script": return "sc:" + value
      case "scx", "scriptextensions": return "scx:" + value
      default: return text
      }
    }
    return categories[loose(text[...])] ?? text
  }
}
