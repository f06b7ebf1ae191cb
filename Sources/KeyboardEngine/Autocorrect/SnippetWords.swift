extension SnippetTable {
  /// The most words ``ownWords(limit:)`` gives.
  public static let largestOwnWords = 50_000

  /// The words of the user's own snippets, in lowercase: the runs of two
  /// letters or more of their triggers, labels and replacements' literal
  /// text. Autocorrect never corrects them (issue 39): a name or a term a
  /// user put in a snippet is theirs. A hub package's snippets (a file
  /// under a `packages/` folder) are not the user's writing and are left
  /// out; at most `limit` words.
  public func ownWords(limit: Int = largestOwnWords) -> Set<String> {
    let own = files.map { !$0.contains("/packages/") }
    var words = Set<String>()
    var word: [UInt8] = []
    func add(_ text: UnsafeBufferPointer<UInt8>) {
      // Decoded as UTF-8 by the letters it holds; any other character
      // ends a word.
      for scalar in String(decoding: text, as: UTF8.self).unicodeScalars {
        if scalar.properties.isAlphabetic {
          word.append(contentsOf: String(scalar).lowercased().utf8)
          continue
        }
        flush()
      }
      flush()
    }
    func flush() {
      if word.count >= 2 && words.count < limit, let text = String(validating: word, as: UTF8.self),
        text.unicodeScalars.count >= 2
      {
        words.insert(text)
      }
      word.removeAll(keepingCapacity: true)
    }
    for index in indices where own[fileNumber(at: index)] {
      guard words.count < limit else { break }
      forEachTrigger(at: index, add)
      forEachText(at: index) { text, _ in add(text) }
    }
    return words
  }
}
