/// A regex trigger (espanso's `regex`), in the syntax of Rust's `regex`
/// crate that espanso uses (``RegexParser``), compiled by PCRE2. It is
/// searched at the end of the recent text, as espanso does: a match must
/// end at the cursor. In front of the search stand two prefilters, read
/// off the parsed pattern: what a match's last character may be, and
/// characters every match holds.
public struct TriggerRegex: Sendable {
  /// The pattern as written.
  public let pattern: String
  /// The names of the capture groups, by group number (1 first); nil for an
  /// unnamed group.
  public let groupNames: [String?]
  let code: PCRE2Code
  let classes: [CharacterClass]
  /// What the last character of a match may be (the prefilter).
  let lastCharacter: LastCharacter
  /// The second prefilter: characters every match holds, all of them, and
  /// characters one of which it starts with (empty when unknown). The
  /// recent text must have them for a search to be worth it.
  let required: (all: CharacterBits, any: CharacterBits)

  public typealias Error = RegexError

  /// Compiles `pattern`. Throws when it does not parse, uses what vkbd does
  /// not support, or can match the empty string (it would fire on every key).
  public init(_ pattern: String) throws(RegexError) {
    let parsed = try ParsedPattern(pattern, endAnchored: true, refusingEmpty: true)
    self.pattern = pattern
    groupNames = parsed.groupNames
    code = parsed.code
    classes = parsed.classes
    lastCharacter = parsed.tree.lastCharacter
    required = (parsed.tree.requiredLiterals, parsed.tree.startCharacters(classes: parsed.classes))
  }

  /// Whether a match may end with `character`: cheaper than a search, and
  /// never false when a search would succeed.
  func mayEnd(with character: Unicode.Scalar) -> Bool { lastCharacter.contains(character, classes: classes) }

  /// Searches `text` for the leftmost match that ends at its end. Returns
  /// where it starts, with each group's range in `scratch`.
  func search(_ text: UnsafeBufferPointer<Unicode.Scalar>, scratch: RegexScratch) -> Int? {
    text.withMemoryRebound(to: UInt32.self) { code.search($0, data: scratch.data(groups: groupNames.count)) }
  }

  /// The named groups of the last successful ``search(_:scratch:)``, with
  /// what they matched (a group that took no part matches "").
  func captures(_ text: UnsafeBufferPointer<Unicode.Scalar>, scratch: RegexScratch) -> [String: String] {
    var result: [String: String] = [:]
    let data = scratch.data(groups: groupNames.count)
    for (index, name) in groupNames.enumerated() {
      guard let name else { continue }
      result[name] = data.range(index + 1).map { String(scalars: text[$0]) } ?? ""
    }
    return result
  }
}

/// The working memory of regex searches, allocated once and reused: the
/// recent text searched, and where PCRE2 puts what it found.
public final class RegexScratch {
  private var matchData = PCRE2MatchData(groups: 16)
  /// The recent text searched.
  var text: [Unicode.Scalar] = []

  public init() {
    text.reserveCapacity(SnippetMatcher.regexWindow)
  }

  /// The match data, with room for `groups` groups (made larger the first
  /// time a regex has more).
  func data(groups: Int) -> PCRE2MatchData {
    if matchData.groups < groups { matchData = PCRE2MatchData(groups: groups) }
    return matchData
  }
}
