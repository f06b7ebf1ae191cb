/// A language's common words in a trie, for the corrections two slips
/// from a typo (issue 39): the one-slip search looks each neighbour up in
/// the whole dictionary, but two slips make hundreds of thousands of
/// neighbours, so the trie is walked instead, with the edit distance to
/// the typed word carried down it and every branch left where it passes
/// two, or where no word below is of a length within two of it. Letters
/// are indexes into the language's letters; the nodes are laid out so that
/// a node's children are side by side, 8 bytes each: the walk reads a
/// node's children from one or two lines of the processor's cache.
struct CommonWords: Sendable {
  /// The rarest words the trie holds (``SpellingLanguage/frequencies``):
  /// Zipf 2.5, once in three million words.
  static let rarest: UInt8 = 65
  private var nodes: [Node] = []
  private(set) var count = 0

  /// A node: the letter it adds, where its children start and how many
  /// there are, whether a word ends there (0: none; else 1 plus the word's
  /// reading, as ``SpellingLanguage/form(hash:)`` gives it), and the
  /// lengths of the shortest and the longest word at or below it.
  private struct Node {
    let bits: UInt64
    init(letter: UInt8, childCount: UInt8, end: UInt8, shortest: UInt8, longest: UInt8, firstChild: Int) {
      bits =
        UInt64(letter) | UInt64(childCount) << 8 | UInt64(shortest) << 16 | UInt64(longest) << 24
        | UInt64(end & 3) << 32 | UInt64(firstChild) << 34
    }
    var letter: UInt8 { UInt8(truncatingIfNeeded: bits) }
    var children: Range<Int> {
      let first = Int(bits >> 34)
      return first..<(first + Int((bits >> 8) & 0xFF))
    }
    var shortest: Int { Int((bits >> 16) & 0xFF) }
    var longest: Int { Int((bits >> 24) & 0xFF) }
    var end: UInt8 { UInt8((bits >> 32) & 3) }
  }

  /// The trie of `words` (each its letters' indexes and its reading).
  /// Any order of the letters serves, a word before those it begins
  /// (`weight`: each letter's place in it; by default its index): words
  /// already in that order (a list sorted by its text) are not sorted again.
  init(words: [(letters: [UInt8], reading: UInt8)], weight: [UInt32] = Array(0...255)) {
    var words = words
    let precedes = { (first: [UInt8], second: [UInt8]) in
      first.lazy.map { weight[Int($0)] }.lexicographicallyPrecedes(second.lazy.map { weight[Int($0)] })
    }
    if zip(words, words.dropFirst()).contains(where: { precedes($1.letters, $0.letters) }) {
      words.sort { precedes($0.letters, $1.letters) }
    }
    // The root, then each node's children appended together as the node
    // is reached: (node, the range of words below it, its depth).
    var letters: [UInt8] = []
    var firstChild: [Int] = []
    var childCount: [UInt8] = []
    var ends: [UInt8] = []
    func append(letter: UInt8) {
      letters.append(letter)
      firstChild.append(0)
      childCount.append(0)
      ends.append(0)
    }
    append(letter: 0)
    var pending = [(node: 0, range: 0..<words.count, depth: 0)]
    while let (node, range, depth) = pending.popLast() {
      var start = range.lowerBound
      if start < range.upperBound && words[start].letters.count == depth {
        if ends[node] == 0 { count += 1 }
        ends[node] = words[start].reading + 1
        start += 1
        // The same word given twice keeps its first reading.
        while start < range.upperBound && words[start].letters.count == depth { start += 1 }
      }
      firstChild[node] = letters.count
      let stacked = pending.count
      while start < range.upperBound {
        let letter = words[start].letters[depth]
        var end = start + 1
        while end < range.upperBound && words[end].letters[depth] == letter { end += 1 }
        pending.append((letters.count, start..<end, depth + 1))
        append(letter: letter)
        childCount[node] += 1
        start = end
      }
      // The first child's children next: the subtrees lie in the order
      // the walk visits them, each after its parent's, for the
      // processor's prefetcher to read ahead.
      pending[stacked...].reverse()
    }
    // A node's children come after it: from the last node back, each
    // node's lengths are known before its parent's.
    var shortest = [UInt8](repeating: .max, count: letters.count)
    var longest = [UInt8](repeating: 0, count: letters.count)
    var depths = [UInt8](repeating: 0, count: letters.count)
    for node in letters.indices {
      let first = Int(firstChild[node])
      for child in first..<(first + Int(childCount[node])) { depths[child] = depths[node] &+ 1 }
    }
    for node in letters.indices.reversed() {
      if ends[node] != 0 {
        shortest[node] = depths[node]
        longest[node] = max(longest[node], depths[node])
      }
      let first = Int(firstChild[node])
      for child in first..<(first + Int(childCount[node])) {
        shortest[node] = min(shortest[node], shortest[child])
        longest[node] = max(longest[node], longest[child])
      }
    }
    nodes = letters.indices.map {
      Node(
        letter: letters[$0], childCount: childCount[$0], end: ends[$0], shortest: shortest[$0], longest: longest[$0],
        firstChild: firstChild[$0])
    }
  }

  /// The bytes the trie holds.
  var memoryBytes: Int { nodes.count * MemoryLayout<Node>.stride }

  /// The walk's scratch space, reused between searches.
  struct Scratch {
    var rows: [UInt8] = []
    var word: [UInt8] = []
  }

  /// A set of letters (indexes of the language's letters).
  struct LetterSet {
    private var bits: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)

    mutating func insert(_ letter: UInt8) {
      let bit = UInt64(1) << (letter & 63)
      switch letter >> 6 {
      case 0: bits.0 |= bit
      case 1: bits.1 |= bit
      case 2: bits.2 |= bit
      default: bits.3 |= bit
      }
    }

    func contains(_ letter: UInt8) -> Bool {
      let word =
        switch letter >> 6 {
        case 0: bits.0
        case 1: bits.1
        case 2: bits.2
        default: bits.3
        }
      return word & (UInt64(1) << (letter & 63)) != 0
    }
  }

  /// Calls `found` with each word exactly two slips from `typed` (a
  /// letter more, less or another, or two neighbours swapped) that
  /// begins with its first letter (a misspelling rarely starts wrong, and
  /// the first letter is most of the walk) and whose second letter is one
  /// of `second`, with the word's reading.
  func searchTwoSlips(
    _ typed: [UInt8], second: LetterSet, scratch: inout Scratch, found: (_ word: [UInt8], _ reading: UInt8) -> Void
  ) {
    guard let first = typed.first, !nodes.isEmpty else { return }
    let width = typed.count + 1
    let depths = typed.count + 3
    if scratch.rows.count < width * (depths + 1) { scratch.rows = [UInt8](repeating: 0, count: width * (depths + 1)) }
    if scratch.word.count < depths { scratch.word = [UInt8](repeating: 0, count: depths) }
    // Row 0: the empty prefix against each prefix of the typed word.
    for column in 0..<width { scratch.rows[column] = UInt8(min(column, 3)) }
    nodes.withUnsafeBufferPointer { nodes in
      typed.withUnsafeBufferPointer { typed in
        scratch.rows.withUnsafeMutableBufferPointer { rows in
          scratch.word.withUnsafeMutableBufferPointer { word in
            let walk = Walk(nodes: nodes, typed: typed, rows: rows, word: word, depths: depths, second: second)
            for child in nodes[0].children where nodes[child].letter == first {
              walk.visit(child, depth: 1, found: found)
            }
          }
        }
      }
    }
  }

  /// The walk down the trie, over its tables as they lie in memory.
  private struct Walk {
    let nodes: UnsafeBufferPointer<Node>
    let typed: UnsafeBufferPointer<UInt8>
    let rows, word: UnsafeMutableBufferPointer<UInt8>
    let depths: Int
    let second: LetterSet

    /// Row `depth` of the distances, for the node at `index` (`word` plus
    /// its letter), and on down while a word below may be within two.
    /// Only the band of columns within two of the depth can be (the rest
    /// are more than two by their lengths alone): it is worked out, with a
    /// 3 on either side of it for the next row to read. A column's
    /// distance, plus the letters that the words below must still add or
    /// leave out by their lengths, is the least any of them is from the
    /// typed word along that column.
    func visit(_ index: Int, depth: Int, found: (_ word: [UInt8], _ reading: UInt8) -> Void) {
      let count = typed.count
      let width = count + 1
      let node = nodes[index]
      let letter = node.letter
      let row = depth * width
      let above = row - width
      let low = max(1, depth - 2)
      let high = min(count, depth + 2)
      guard low <= high else { return }
      // The letters the words at or below the node have after it.
      let fewest = node.shortest - depth
      let most = node.longest - depth
      func least(_ distance: UInt8, column: Int) -> Int {
        let rest = count - column
        return Int(distance) + (rest > most ? rest - most : rest < fewest ? fewest - rest : 0)
      }
      rows[row] = UInt8(min(depth, 3))
      var best = least(rows[row], column: 0)
      if low > 1 { rows[row + low - 1] = 3 }
      if high < count { rows[row + high + 1] = 3 }
      let previous = depth > 1 ? word[depth - 2] : 0
      for column in low...high {
        var distance = min(rows[above + column], rows[row + column - 1]) + 1
        distance = min(distance, rows[above + column - 1] + (typed[column - 1] == letter ? 0 : 1))
        // Two letters swapped: this one typed before the one above it.
        if depth > 1, column > 1, typed[column - 2] == letter, typed[column - 1] == previous {
          distance = min(distance, rows[above - width + column - 2] + 1)
        }
        distance = min(distance, 3)
        rows[row + column] = distance
        best = min(best, least(distance, column: column))
      }
      guard best <= 2 else { return }
      word[depth - 1] = letter
      if node.end != 0 && high == count && rows[row + high] == 2 { found(Array(word[..<depth]), node.end - 1) }
      guard depth + 1 < depths else { return }
      for child in node.children
      where nodes[child].longest + 2 >= count && nodes[child].shortest <= count + 2
        && (depth > 1 || second.contains(nodes[child].letter))
      {
        visit(child, depth: depth + 1, found: found)
      }
    }
  }
}
