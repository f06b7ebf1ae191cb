/// A language's common words in a trie, for the corrections two slips
/// from a typo (issue 39): the one-slip search looks each neighbour up in
/// the whole dictionary, but two slips make hundreds of thousands of
/// neighbours, so the trie is walked instead, with the edit distance to
/// the typed word carried down it and every branch left where it passes
/// two, or where no word below is of a length within two of it. Letters
/// are indexes into the language's letters; the nodes are laid out so that
/// a node's children are side by side (9 bytes a node).
struct CommonWords: Sendable {
  /// Per node: the letter it adds, where its children start and how many
  /// there are, and whether a word ends there (0: none; else 1 plus the
  /// word's reading, as ``SpellingLanguage/form(hash:)`` gives it).
  private var letters: [UInt8] = []
  private var firstChild: [UInt32] = []
  private var childCount: [UInt8] = []
  private var ends: [UInt8] = []
  /// The lengths of the shortest and the longest word at or below each node.
  private var shortest: [UInt8] = []
  private var longest: [UInt8] = []
  private(set) var count = 0

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
      firstChild[node] = UInt32(letters.count)
      while start < range.upperBound {
        let letter = words[start].letters[depth]
        var end = start + 1
        while end < range.upperBound && words[end].letters[depth] == letter { end += 1 }
        pending.append((letters.count, start..<end, depth + 1))
        append(letter: letter)
        childCount[node] += 1
        start = end
      }
    }
    // A node's children come after it: from the last node back, each
    // node's lengths are known before its parent's.
    shortest = [UInt8](repeating: .max, count: letters.count)
    longest = [UInt8](repeating: 0, count: letters.count)
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
  }

  private mutating func append(letter: UInt8) {
    letters.append(letter)
    firstChild.append(0)
    childCount.append(0)
    ends.append(0)
  }

  /// The bytes the trie holds.
  var memoryBytes: Int { letters.count * 9 }

  /// Calls `found` with each word exactly two slips from `typed` (a
  /// letter more, less or another, or two neighbours swapped) that
  /// begins with its first letter (a misspelling rarely starts wrong, and
  /// the first letter is most of the walk), with the word's reading.
  /// `rows` is the walk's scratch space, reused between searches.
  func searchTwoSlips(
    _ typed: [UInt8], rows: inout [UInt8], word: inout [UInt8], found: (_ word: [UInt8], _ reading: UInt8) -> Void
  ) {
    guard let first = typed.first, !letters.isEmpty else { return }
    let width = typed.count + 1
    let depths = typed.count + 3
    if rows.count < width * (depths + 1) { rows = [UInt8](repeating: 0, count: width * (depths + 1)) }
    // Row 0: the empty prefix against each prefix of the typed word.
    for column in 0..<width { rows[column] = UInt8(min(column, 3)) }
    word.removeAll(keepingCapacity: true)
    let start = Int(firstChild[0])
    for child in start..<(start + Int(childCount[0]))
    where letters[child] == first && Int(longest[child]) + 2 >= typed.count {
      walk(child, depth: 1, typed: typed, rows: &rows, word: &word, found: found)
    }
  }

  /// Row `depth` of the distances, for the node reached by `word` plus
  /// `node`'s letter, and on down while any entry is within two. Only the
  /// band of columns within two of the depth can be (the rest are more
  /// than two by their lengths alone): it is worked out, with a 3 on
  /// either side of it for the next row to read.
  private func walk(
    _ node: Int, depth: Int, typed: [UInt8], rows: inout [UInt8], word: inout [UInt8],
    found: (_ word: [UInt8], _ reading: UInt8) -> Void
  ) {
    let width = typed.count + 1
    let letter = letters[node]
    let row = depth * width
    let above = row - width
    let low = max(1, depth - 2)
    let high = min(typed.count, depth + 2)
    guard low <= high else { return }
    var least = UInt8(min(depth, 3))
    rows.withUnsafeMutableBufferPointer { rows in
      rows[row] = least
      if low > 1 { rows[row + low - 1] = 3 }
      if high < typed.count { rows[row + high + 1] = 3 }
      typed.withUnsafeBufferPointer { typed in
        for column in low...high {
          var distance = min(rows[above + column], rows[row + column - 1]) + 1
          distance = min(distance, rows[above + column - 1] + (typed[column - 1] == letter ? 0 : 1))
          // Two letters swapped: this one typed before the one above it.
          if depth > 1, column > 1, typed[column - 2] == letter, typed[column - 1] == word[depth - 2] {
            distance = min(distance, rows[above - width + column - 2] + 1)
          }
          rows[row + column] = min(distance, 3)
          least = min(least, distance)
        }
      }
    }
    guard least <= 2 else { return }
    word.append(letter)
    defer { word.removeLast() }
    if ends[node] != 0 && high == typed.count && rows[row + high] == 2 { found(word, ends[node] - 1) }
    guard depth + 1 < rows.count / width else { return }
    let start = Int(firstChild[node])
    for child in start..<(start + Int(childCount[node]))
    where Int(longest[child]) + 2 >= typed.count && Int(shortest[child]) <= typed.count + 2 {
      walk(child, depth: depth + 1, typed: typed, rows: &rows, word: &word, found: found)
    }
  }
}
