/// The loaded snippets and a trie of their triggers, built once at load time
/// (DESIGN 3.5).
///
/// Triggers are stored reversed, so a match walks back from the cursor over
/// the text model and stops at the first character no trigger ends with. The
/// cost per key is the depth walked, at most the longest trigger, whatever
/// the number of snippets: each step is one probe of an open-addressing table.
public struct SnippetMatcher: Sendable {
  /// The snippets, in load order.
  public let snippets: SnippetTable
  /// The snippets that share a trigger, by the trie node where it ends:
  /// every one of them in load order (the first is the node's terminal).
  /// As in espanso, typing the trigger offers them in the picker.
  /// Each list is `shared[start..<start + count]`, by its node.
  private var sharedAt: [Int32: (start: Int32, count: Int32)] = [:]
  private var shared: [Int32] = []

  /// The triggers, reversed: each node's terminal is the snippet whose
  /// trigger ends there.
  private var trie = TriggerTrie()

  /// The regex triggers, in load order, with their snippets and the
  /// characters one of which every match holds (a plain array: the
  /// prefilter reads it without touching the regexes).
  private var regexes: [TriggerRegex] = []
  private var regexSnippets: [Int32] = []
  private var regexRequired: [(all: CharacterBits, any: CharacterBits)] = []
  /// The regexes whose match may end with each ASCII character (128
  /// buckets), and those whose match may end with some other character (the
  /// last bucket): a key looks in its own bucket only.
  private var regexBuckets: [RegexBucket] = []
  /// Each snippet's `left_word` and `right_word`, as bits: read while
  /// matching instead of the snippet (whose arrays a read would retain).
  private var wordSides: [UInt8] = []
  private static let leftSide: UInt8 = 1
  private static let rightSide: UInt8 = 2
  /// Whether any snippet has a regex trigger.
  public private(set) var hasRegexes = false

  /// The longest trigger a text model can hold.
  public static let maximumTriggerLength = TextModel.capacity / 2
  /// How much recent text a regex trigger is searched in, the key being
  /// pressed included (espanso's buffer).
  public static let regexWindow = 30

  /// The characters that end a word for `word`, `left_word` and `right_word`
  /// (espanso's separators: space, tab, newline and , ; : . ? ! ( ) { } [ ] < > ' ").
  public static func isSeparator(_ character: Unicode.Scalar) -> Bool {
    switch character {
    case " ", "\t", "\n", ",", ";", ":", ".", "?", "!", "(", ")", "{", "}", "[", "]", "<", ">", "'", "\"":
      return true
    default:
      return false
    }
  }

  /// Builds the trie. Triggers must be non-empty and at most
  /// ``maximumTriggerLength`` characters (the loader checks both).
  public init(_ snippets: SnippetTable) {
    self.snippets = snippets
    wordSides.reserveCapacity(snippets.count)
    var characters: [Unicode.Scalar] = []
    var sharing: [UInt64] = []  // a shared trigger's node in the high half, a snippet of it in the low
    for index in snippets.indices {
      let flags = snippets.flags(at: index)
      wordSides.append(
        (flags.contains(.leftWord) ? Self.leftSide : 0) | (flags.contains(.rightWord) ? Self.rightSide : 0))
      if flags.contains(.regex), let regex = snippets.whole(at: index)?.regex {
        addRegex(regex, snippet: Int32(index))
        continue
      }
      snippets.forEachTrigger(at: index) { utf8 in
        characters.removeAll(keepingCapacity: true)
        characters.append(contentsOf: UTF8Scalars(bytes: utf8))
        add(characters, snippet: index, sharing: &sharing)
        guard flags.contains(.propagateCase) else { return }
        if utf8.allSatisfy({ $0 < 0x80 }) {
          // In ASCII a letter's capital is one byte: no Unicode tables.
          for variant in Self.asciiVariants(of: characters) { add(variant, snippet: index, sharing: &sharing) }
          return
        }
        for variant in Self.variants(of: String(decoding: utf8, as: UTF8.self), propagateCase: true).dropFirst() {
          add(Array(variant.unicodeScalars), snippet: index, sharing: &sharing)
        }
      }
    }
    // The lists of shared triggers, each in load order.
    sharing.sort()
    var previous = UInt64.max
    for pair in sharing where pair != previous {
      let node = Int32(truncatingIfNeeded: pair >> 32)
      if previous == .max || previous >> 32 != pair >> 32 { sharedAt[node] = (Int32(shared.count), 0) }
      sharedAt[node]!.count += 1
      shared.append(Int32(truncatingIfNeeded: pair))
      previous = pair
    }
  }

  /// A table of `snippets`, and its trie.
  public init(_ snippets: [Snippet]) { self.init(SnippetTable(snippets)) }

  /// Adds a trigger's characters for `snippet`: the first snippet to have
  /// a trigger owns it; a later one shares it (the picker offers both).
  private mutating func add(_ trigger: [Unicode.Scalar], snippet index: Int, sharing: inout [UInt64]) {
    let node = trie.insert(trigger)
    let owner = trie.terminals[Int(node)]
    if owner < 0 {
      trie.terminals[Int(node)] = Int32(index)
    } else if owner != Int32(index) {
      sharing.append(UInt64(UInt32(node)) << 32 | UInt64(UInt32(owner)))
      sharing.append(UInt64(UInt32(node)) << 32 | UInt64(UInt32(index)))
    }
  }

  private mutating func addRegex(_ regex: TriggerRegex, snippet: Int32) {
    if !hasRegexes { regexBuckets = [RegexBucket](repeating: RegexBucket(), count: 129) }
    hasRegexes = true
    let index = Int32(regexes.count)
    regexes.append(regex)
    regexSnippets.append(snippet)
    regexRequired.append(regex.required)
    let key = RegexBucket.keyCharacter(of: regex.required.all)
    for value in 0..<128 where regex.mayEnd(with: Unicode.Scalar(UInt8(value))) {
      regexBuckets[value].add(index, key: key)
    }
    let last = regex.lastCharacter
    if last.any || !last.classes.isEmpty || last.characters.contains(where: { $0 >= 128 })
      || last.caselessCharacters.contains(where: { $0 >= 128 })
    {
      regexBuckets[128].add(index, key: key)
    }
  }

  /// The trigger and, with `propagate_case`, its capitalized and all-capitals
  /// forms (a trigger typed that way fires the snippet too).
  static func variants(of trigger: String, propagateCase: Bool) -> [String] {
    guard propagateCase else { return [trigger] }
    var capitalized = trigger
    if let index = trigger.firstIndex(where: \.isLetter) {
      capitalized = trigger[..<index] + trigger[index].uppercased() + trigger[trigger.index(after: index)...]
    }
    var result = [trigger]
    for variant in [capitalized, trigger.uppercased()] where !result.contains(variant) { result.append(variant) }
    return result
  }

  /// The forms ``variants(of:propagateCase:)`` adds to a trigger in ASCII
  /// (capitalized, in capitals), those that differ from it and each other.
  static func asciiVariants(of trigger: [Unicode.Scalar]) -> [[Unicode.Scalar]] {
    func isLower(_ scalar: Unicode.Scalar) -> Bool { scalar >= "a" && scalar <= "z" }
    func capital(_ scalar: Unicode.Scalar) -> Unicode.Scalar {
      isLower(scalar) ? Unicode.Scalar(scalar.value - 0x20)! : scalar
    }
    var result: [[Unicode.Scalar]] = []
    if let first = trigger.firstIndex(where: { isLower($0) || ($0 >= "A" && $0 <= "Z") }), isLower(trigger[first]) {
      var capitalized = trigger
      capitalized[first] = capital(trigger[first])
      result.append(capitalized)
    }
    let upper = trigger.map(capital)
    if upper != trigger && result.first != upper { result.append(upper) }
    return result
  }

  /// A match: the snippet, and how many characters of the trigger are already
  /// in the text model (the rest is the key being pressed).
  public struct Match: Equatable, Sendable {
    public var snippet: Int
    /// Trigger characters already typed and in the model.
    public var typedLength: Int
    /// The key being pressed is the separator after the trigger (`right_word`),
    /// not the trigger's last character.
    public var endsWithSeparator: Bool
    /// The regex that matched (its groups are in the scratch), or -1.
    /// Plain values only: a match is made and dropped on every key.
    var regex: Int32 = -1
    /// The trie node where the trigger ends, or 0 for a regex: how it was
    /// found, which equality leaves out.
    var node: Int32 = 0

    public static func == (one: Match, other: Match) -> Bool {
      one.snippet == other.snippet && one.typedLength == other.typedLength
        && one.endsWithSeparator == other.endsWithSeparator && one.regex == other.regex
    }

    public init(snippet: Int, typedLength: Int, endsWithSeparator: Bool) {
      self.snippet = snippet
      self.typedLength = typedLength
      self.endsWithSeparator = endsWithSeparator
    }
  }

  /// Whether a regex's match may end with `next`: a key for which none may
  /// looks no further (without reading the text).
  public func mayMatchRegex(endingWith next: Unicode.Scalar) -> Bool {
    hasRegexes && !regexBuckets[Int(min(next.value, 128))].isEmpty
  }

  /// Whether a regex whose match may end with `next` passes the prefilters
  /// on the characters `present` in the recent text (`next` included): only
  /// then is the text worth reading.
  public func mayMatchRegex(endingWith next: Unicode.Scalar, present: CharacterBits) -> Bool {
    var found = false
    regexBuckets[Int(min(next.value, 128))].visit(present: present) { regex in
      if !found && passesPrefilter(Int(regex), next: next, present: present) { found = true }
    }
    return found
  }

  private func passesPrefilter(_ regex: Int, next: Unicode.Scalar, present: CharacterBits) -> Bool {
    let required = regexRequired[regex]
    return present.contains(required.all) && (required.any.isEmpty || present.intersects(required.any))
      && (next.value < 128 || regexes[regex].mayEnd(with: next))
  }

  /// The first regex snippet (in load order) whose regex matches the recent
  /// text ending with `next`, the key being pressed. Searches only the
  /// regexes whose match may end with `next`; allocates nothing unless one
  /// matches.
  /// `present` are the characters of the recent text, `next` included
  /// (``TextModel/typedCharacterBits(last:)``).
  public func matchRegex(
    next: Unicode.Scalar, after text: TextModel, present: CharacterBits, scratch: RegexScratch
  ) -> Match? {
    guard hasRegexes else { return nil }
    let bucket = Int(min(next.value, 128))
    guard !regexBuckets[bucket].isEmpty else { return nil }
    let known = min(text.count, Self.regexWindow - 1)
    // The first in load order that matches: each list is in load order, the
    // lists of different key characters are not.
    var best = Int32.max
    var built = false
    func search(_ regex: Int32) {
      guard regex < best, passesPrefilter(Int(regex), next: next, present: present) else { return }
      if !built {
        scratch.text.removeAll(keepingCapacity: true)
        for offset in stride(from: known - 1, through: 0, by: -1) { scratch.text.append(text[typedFromEnd: offset]) }
        scratch.text.append(next)
        built = true
      }
      if scratch.text.withUnsafeBufferPointer({ regexes[Int(regex)].search($0, scratch: scratch) }) != nil {
        best = regex
      }
    }
    regexBuckets[bucket].visit(present: present, search)
    guard best != .max else { return nil }
    // Search it again: a later candidate's search may have reused the scratch.
    let start = scratch.text.withUnsafeBufferPointer { regexes[Int(best)].search($0, scratch: scratch) }!
    var found = Match(
      snippet: Int(regexSnippets[Int(best)]), typedLength: scratch.text.count - 1 - start, endsWithSeparator: false)
    found.regex = best
    return found
  }

  /// The named groups of a regex match ``matchRegex(next:after:scratch:)``
  /// just found, with what they matched.
  public func captures(of match: Match, scratch: RegexScratch) -> [String: String] {
    guard match.regex >= 0 else { return [:] }
    return scratch.text.withUnsafeBufferPointer { regexes[Int(match.regex)].captures($0, scratch: scratch) }
  }

  /// Whether a press typing `next` may complete a trigger, plain or regex:
  /// when not, the text before it need not be read.
  public func mayComplete(with next: Unicode.Scalar) -> Bool {
    (!trie.isEmpty && (trie.child(of: 0, next.value) > 0 || Self.isSeparator(next)))
      || (hasRegexes && mayMatchRegex(endingWith: next))
  }

  /// The longest trigger that a press typing `next` completes, at the end of
  /// `text`. Allocates nothing.
  public func match(next: Unicode.Scalar, after text: some MatchableText) -> Match? {
    guard !trie.isEmpty else { return nil }
    // A trigger that ends with this character…
    var best: Match?
    var node = trie.child(of: 0, next.value)
    var depth = 0  // characters taken from the model
    while node > 0 {
      let snippet = trie.terminals[Int(node)]
      if snippet >= 0 {
        let word = wordSides[Int(snippet)]
        if word & Self.rightSide == 0 && (word & Self.leftSide == 0 || Self.isBoundary(before: depth, in: text)) {
          best = Match(snippet: Int(snippet), typedLength: depth, endsWithSeparator: false)
          best!.node = node
        }
      }
      guard depth < text.count else { break }
      node = trie.child(of: node, text[typedFromEnd: depth].value)
      depth += 1
    }
    if best != nil || !Self.isSeparator(next) { return best }
    // …or, when it is a separator, a right-word trigger that ends before it.
    node = 0
    depth = 0
    while depth < text.count {
      node = trie.child(of: node, text[typedFromEnd: depth].value)
      guard node > 0 else { break }
      depth += 1
      let snippet = trie.terminals[Int(node)]
      if snippet >= 0 {
        let word = wordSides[Int(snippet)]
        if word & Self.rightSide != 0 && (word & Self.leftSide == 0 || Self.isBoundary(before: depth, in: text)) {
          best = Match(snippet: Int(snippet), typedLength: depth, endsWithSeparator: true)
          best!.node = node
        }
      }
    }
    return best
  }

  /// The snippet that `trigger` (or its case form, with `propagate_case`)
  /// fires, whatever the text around it.
  public func snippet(forTrigger trigger: String) -> Snippet? {
    var node: Int32 = 0
    for character in trigger.unicodeScalars.reversed() {
      node = trie.child(of: node, character.value)
      if node == 0 { return nil }
    }
    let index = trie.terminals[Int(node)]
    return index >= 0 ? snippets[Int(index)] : nil
  }

  /// Every snippet whose trigger `match` found, in load order, when
  /// several share it; nil when it is the only one.
  public func sharing(_ match: Match) -> [Int]? {
    guard match.node > 0, let list = sharedAt[match.node] else { return nil }
    return shared[Int(list.start)..<Int(list.start + list.count)].map(Int.init)
  }

  /// How many triggers several snippets share.
  public var sharedTriggerCount: Int { sharedAt.count }

  /// Whether the text before the last `length` characters of the model ends
  /// a word: a separator, or the start of the model (as in espanso, a click
  /// into a field then the trigger expands). A truncated model's start is not.
  static func isBoundary(before length: Int, in text: some MatchableText) -> Bool {
    length < text.count ? isSeparator(text[fromEnd: length]) : !text.isTruncated
  }
}
