/// The picker's search over every snippet (DESIGN 8), built once with the
/// snippets: the folded words of each snippet's triggers, label, search
/// terms and replacement, as a sorted vocabulary with, for each word, the
/// snippets that have it and where.
///
/// A query is cut into words, matched in any order; every one must match a
/// word of the snippet. A query word matches a word that it equals (whole),
/// starts (word start), is one typo away from, or a prefix of it is (a
/// letter missing, extra, wrong or two swapped; 3 letters or more), or whose
/// letters it has in order from the first one on (scattered). The first
/// letter is taken as typed, except where a typo swapped it with the second
/// or typed an extra one before it: so a word is looked for among the words
/// that start with one of its first two letters, a fraction of the
/// vocabulary.
///
/// Ranked: a query that is a whole trigger first, then by the sum over the
/// query's words of how each matched (whole over start over typo over
/// scattered; in a trigger, label or search term over the replacement),
/// then shorter over longer, then load order.
public struct SnippetSearch: Sendable {
  /// The vocabulary, sorted: word `i` is `bytes[starts[i]..<starts[i + 1]]`.
  private var bytes: [UInt8] = []
  private var starts: [UInt32] = [0]
  /// The snippets of word `i`: `postings[postingStarts[i]..<postingStarts[i + 1]]`,
  /// each a snippet index in the low 27 bits and where the word is in the high 5.
  private var postings: [UInt32] = []
  private var postingStarts: [UInt32] = [0]
  /// Where the words starting with each byte are in the vocabulary.
  private var byteRanges = [Range<Int>](repeating: 0..<0, count: 256)
  /// Each snippet's length for ranking (its label's, else its replacement's).
  private var lengths: [UInt32] = []
  public var count: Int { lengths.count }
  /// Every snippet the picker lists, in load order: all but those whose
  /// trigger opens it.
  private var listed: [Int] = []

  /// The bytes the index's arrays hold (`vkbd status`).
  public var storageBytes: Int {
    bytes.count + (starts.count + postings.count + postingStarts.count + lengths.count) * 4
      + listed.count * MemoryLayout<Int>.size + byteRanges.count * MemoryLayout<Range<Int>>.size
  }

  /// Where a word is in a snippet (the high bits of a posting).
  private static let wholeTrigger: UInt32 = 1 << 27
  private static let inTrigger: UInt32 = 1 << 28
  private static let inLabel: UInt32 = 1 << 29
  private static let inTerms: UInt32 = 1 << 30
  private static let inReplacement: UInt32 = 1 << 31
  private static let primary = inTrigger | inLabel | inTerms | wholeTrigger
  private static let snippetMask: UInt32 = (1 << 27) - 1

  /// How much of a replacement is searched, in characters.
  public static let replacementSearched = 1_000
  /// The longest query taken, in characters; the rest is left out.
  public static let maximumQuery = 256
  /// The most snippets an index holds (27 bits of a posting).
  public static let maximumSnippets = 1 << 27

  /// Builds the index of `snippets`.
  public init(_ snippets: SnippetTable) {
    precondition(snippets.count < Self.maximumSnippets)
    var vocabulary = WordPool()
    var pairs: [UInt64] = []  // a word's id in the high half, its posting in the low
    var mine: [UInt64] = []  // this snippet's words: an id in the high half, where it is in the low
    var scratch: [UInt8] = []
    var folded: [UInt8] = []
    lengths.reserveCapacity(snippets.count)
    for index in snippets.indices {
      mine.removeAll(keepingCapacity: true)
      func add(_ word: [UInt8], _ place: UInt32) {
        guard !word.isEmpty else { return }
        mine.append(UInt64(UInt32(vocabulary.id(of: word))) << 32 | UInt64(place))
      }
      lengths.append(UInt32(clamping: snippets.displayLength(at: index)))
      let flags = snippets.flags(at: index)
      guard !flags.contains(.opensSearch) else { continue }
      listed.append(index)
      snippets.forEachTrigger(at: index) { trigger in
        SearchFolding.whole(UTF8Scalars(bytes: trigger), into: &folded)
        add(folded, Self.wholeTrigger)
        SearchFolding.forEachWord(of: UTF8Scalars(bytes: trigger), scratch: &scratch) { add($0, Self.inTrigger) }
      }
      snippets.forEachText(at: index) { text, isLabel in
        SearchFolding.forEachWord(of: UTF8Scalars(bytes: text), limit: Self.replacementSearched, scratch: &scratch) {
          add($0, isLabel ? Self.inLabel : Self.inReplacement)
        }
      }
      if flags.contains(.whole), let whole = snippets.whole(at: index) {
        for term in whole.searchTerms {
          SearchFolding.forEachWord(of: term.unicodeScalars, limit: Self.replacementSearched, scratch: &scratch) {
            add($0, Self.inTerms)
          }
        }
      }
      // One posting a word, with every place it has in the snippet.
      mine.sort()
      var next = 0
      while next < mine.count {
        let id = mine[next] >> 32
        var places: UInt32 = 0
        while next < mine.count && mine[next] >> 32 == id {
          places |= UInt32(truncatingIfNeeded: mine[next])
          next += 1
        }
        pairs.append(id << 32 | UInt64(UInt32(index) | places))
      }
    }
    // The vocabulary sorted, and the postings grouped by word in that order.
    let wordCount = vocabulary.count
    let order = vocabulary.sortedIDs()
    var rank = [Int32](repeating: 0, count: wordCount)
    for (position, id) in order.enumerated() { rank[Int(id)] = Int32(position) }
    var counts = [UInt32](repeating: 0, count: wordCount + 1)
    for pair in pairs { counts[Int(rank[Int(pair >> 32)]) + 1] += 1 }
    for index in 0..<wordCount { counts[index + 1] += counts[index] }
    postingStarts = counts
    var filled = counts
    postings = [UInt32](repeating: 0, count: pairs.count)
    for pair in pairs {
      let position = Int(rank[Int(pair >> 32)])
      postings[Int(filled[position])] = UInt32(truncatingIfNeeded: pair)
      filled[position] += 1
    }
    pairs = []
    for position in 0..<wordCount {
      postings[Int(postingStarts[position])..<Int(postingStarts[position + 1])].sort()
    }
    (bytes, starts) = vocabulary.concatenated(in: order)
    var position = 0
    for byte in 0..<256 {
      let start = position
      while position < order.count && Int(bytes[Int(starts[position])]) == byte { position += 1 }
      byteRanges[byte] = start..<position
    }
  }

  /// The index of `snippets`.
  public init(_ snippets: [Snippet]) { self.init(SnippetTable(snippets)) }

  /// The result of a search: the best `limit` snippets, best first, and
  /// how many matched in all.
  public struct Result: Equatable, Sendable {
    public var snippets: [Int]
    public var total: Int
  }

  /// The snippets that match `query`, among `scope` (every snippet when
  /// nil), ranked. An empty query matches every snippet of the scope, in
  /// load order.
  public func search(_ query: some StringProtocol, limit: Int, in scope: [Int]? = nil) -> Result {
    var queryWords: [[UInt8]] = []
    var clipped = Substring(query)
    if let end = query.unicodeScalars.index(
      query.unicodeScalars.startIndex, offsetBy: Self.maximumQuery, limitedBy: query.unicodeScalars.endIndex)
    {
      clipped = Substring(query)[..<end]
    }
    for piece in clipped.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }) {
      let folded = SearchFolding.whole(piece)
      // A word with signs in it (":$" of ":$:") is looked for whole among
      // triggers; when none has it, its words are looked for.
      if folded.contains(where: { $0 < 0x80 && !SearchFolding.isWordCharacter(Unicode.Scalar($0)) })
        && !hasMatch(folded)
      {
        SearchFolding.words(piece, into: &queryWords)
      } else if !folded.isEmpty {
        queryWords.append(folded)
      }
    }
    let members = scope ?? listed
    guard !queryWords.isEmpty else {
      return Result(snippets: Array(members.prefix(limit)), total: members.count)
    }
    var total = [UInt16](repeating: 0, count: count)
    var matchedWords = [UInt8](repeating: 0, count: count)
    var exact = [Bool](repeating: false, count: count)
    var best = [UInt8](repeating: 0, count: count)
    var touched: [Int32] = []
    for (number, word) in queryWords.enumerated() {
      touched.removeAll(keepingCapacity: true)
      visitMatches(of: word) { id, kind in
        for posting in postings[Int(postingStarts[id])..<Int(postingStarts[id + 1])] {
          let snippet = Int(posting & Self.snippetMask)
          let score = kind * 2 + (posting & Self.primary != 0 ? 1 : 0)
          if best[snippet] == 0 { touched.append(Int32(snippet)) }
          if score > best[snippet] { best[snippet] = UInt8(score) }
          if kind == 4 && posting & Self.wholeTrigger != 0 && queryWords.count == 1 { exact[snippet] = true }
        }
      }
      for snippet in touched {
        let index = Int(snippet)
        if Int(matchedWords[index]) == number {
          matchedWords[index] += 1
          total[index] += UInt16(best[index])
        }
        best[index] = 0
      }
    }
    // The best `limit`, kept sorted best first; the key packs the rank.
    var top: [(key: UInt64, snippet: Int)] = []
    var matched = 0
    let needed = UInt8(queryWords.count)
    for snippet in members where matchedWords[snippet] == needed {
      matched += 1
      let key =
        (exact[snippet] ? 1 << 63 : 0) | UInt64(total[snippet]) << 44
        | UInt64((1 << 20 - 1) - min(lengths[snippet], 1 << 20 - 1)) << 24
        | UInt64((1 << 24 - 1) - min(snippet, 1 << 24 - 1))
      guard top.count < limit || key > top[top.count - 1].key else { continue }
      var low = 0
      var high = top.count
      while low < high {
        let middle = (low + high) / 2
        if top[middle].key > key { low = middle + 1 } else { high = middle }
      }
      top.insert((key, snippet), at: low)
      if top.count > limit { top.removeLast() }
    }
    return Result(snippets: top.map(\.snippet), total: matched)
  }

  /// Whether some word of the vocabulary is `word` or starts with it.
  private func hasMatch(_ word: [UInt8]) -> Bool {
    byteRanges[Int(word[0])].contains { isPrefix(word, of: $0) }
  }

  private func isPrefix(_ word: [UInt8], of id: Int) -> Bool {
    let start = Int(starts[id])
    let length = Int(starts[id + 1]) - start
    guard length >= word.count else { return false }
    for offset in 0..<word.count where bytes[start + offset] != word[offset] { return false }
    return true
  }

  /// Calls `visit` with each vocabulary word that `word` matches and how:
  /// 4 whole, 3 start, 2 one typo, 1 scattered.
  private func visitMatches(of word: [UInt8], _ visit: (Int, UInt32) -> Void) {
    let typos = word.count >= 3
    bytes.withUnsafeBufferPointer { bytes in
      word.withUnsafeBufferPointer { query in
        for id in byteRanges[Int(query[0])] {
          let start = Int(starts[id])
          let candidate = UnsafeBufferPointer(rebasing: bytes[start..<Int(starts[id + 1])])
          if let kind = Self.kind(of: query, in: candidate, typos: typos) { visit(id, kind) }
        }
        // A typo at the first letter: swapped with the second, or an extra
        // one typed first (the word starts with the query's second letter).
        guard typos, query[1] != query[0] else { return }
        for id in byteRanges[Int(query[1])] {
          let start = Int(starts[id])
          let candidate = UnsafeBufferPointer(rebasing: bytes[start..<Int(starts[id + 1])])
          if Self.isOneTypo(query, fromStartOf: candidate) { visit(id, 2) }
        }
      }
    }
  }

  /// How `query` matches `word` (both start with the same byte), or nil.
  private static func kind(
    of query: UnsafeBufferPointer<UInt8>, in word: UnsafeBufferPointer<UInt8>, typos: Bool
  ) -> UInt32? {
    var common = 0
    let shorter = min(query.count, word.count)
    while common < shorter && query[common] == word[common] { common += 1 }
    if common == query.count { return common == word.count ? 4 : 3 }
    if typos && isOneTypo(query, fromStartOf: word) { return 2 }
    guard query.count >= 2 else { return nil }
    var position = common
    var next = common
    while next < query.count && position < word.count {
      if word[position] == query[next] { next += 1 }
      position += 1
    }
    return next == query.count ? 1 : nil
  }

  /// Whether `query` is one edit (a letter missing, extra, wrong, or two
  /// neighbours swapped) from `word` or from a prefix of it.
  static func isOneTypo(_ query: UnsafeBufferPointer<UInt8>, fromStartOf word: UnsafeBufferPointer<UInt8>) -> Bool {
    var common = 0
    while common < query.count && common < word.count && query[common] == word[common] { common += 1 }
    if common == query.count { return true }  // the word starts with it: no typo needed
    // The rest after the edit must start the rest of the word.
    func rest(_ queryFrom: Int, _ wordFrom: Int) -> Bool {
      let length = query.count - queryFrom
      guard word.count - wordFrom >= length else { return false }
      for offset in 0..<length where query[queryFrom + offset] != word[wordFrom + offset] { return false }
      return true
    }
    return rest(common + 1, common + 1)  // wrong letter
      || rest(common + 1, common)  // extra letter typed
      || rest(common, common + 1)  // letter missing
      || (common + 1 < query.count && common + 1 < word.count && query[common] == word[common + 1]
        && query[common + 1] == word[common] && rest(common + 2, common + 2))  // swapped
  }
}

/// The words of an index being built: each stored once, in one byte array,
/// found again by its hash (open addressing).
struct WordPool {
  private var bytes: [UInt8] = []
  private var starts: [UInt32] = [0]
  /// Word ids by hash slot, -1 where free.
  private var slots = [Int32](repeating: -1, count: 1024)

  var count: Int { starts.count - 1 }

  /// The id of `word`, stored when new.
  mutating func id(of word: [UInt8]) -> Int32 {
    var slot = FNV1a.slot(FNV1a.hash(word), count: slots.count)
    while true {
      let id = slots[slot]
      if id < 0 { break }
      if matches(Int(id), word) { return id }
      slot = (slot + 1) & (slots.count - 1)
    }
    let id = Int32(count)
    bytes.append(contentsOf: word)
    starts.append(UInt32(bytes.count))
    slots[slot] = id
    if count * 2 > slots.count { grow() }
    return id
  }

  /// The ids in the words' byte order.
  func sortedIDs() -> [Int32] {
    bytes.withUnsafeBufferPointer { bytes in
      (0..<Int32(count)).sorted { first, second in
        word(Int(first), in: bytes).lexicographicallyPrecedes(word(Int(second), in: bytes))
      }
    }
  }

  /// The words in `order`, end to end, and where each starts (and the end).
  func concatenated(in order: [Int32]) -> (bytes: [UInt8], starts: [UInt32]) {
    var result: [UInt8] = []
    result.reserveCapacity(bytes.count)
    var resultStarts: [UInt32] = [0]
    resultStarts.reserveCapacity(order.count + 1)
    bytes.withUnsafeBufferPointer { bytes in
      for id in order {
        result.append(contentsOf: word(Int(id), in: bytes))
        resultStarts.append(UInt32(result.count))
      }
    }
    return (result, resultStarts)
  }

  private func word(_ id: Int, in bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
    UnsafeBufferPointer(rebasing: bytes[Int(starts[id])..<Int(starts[id + 1])])
  }

  private func matches(_ id: Int, _ word: [UInt8]) -> Bool {
    let start = Int(starts[id])
    return Int(starts[id + 1]) - start == word.count && bytes[start..<start + word.count].elementsEqual(word)
  }

  private mutating func grow() {
    slots = [Int32](repeating: -1, count: slots.count * 2)
    for id in 0..<count {
      let start = Int(starts[id])
      var slot = FNV1a.slot(FNV1a.hash(bytes[start..<Int(starts[id + 1])]), count: slots.count)
      while slots[slot] >= 0 { slot = (slot + 1) & (slots.count - 1) }
      slots[slot] = Int32(id)
    }
  }
}
