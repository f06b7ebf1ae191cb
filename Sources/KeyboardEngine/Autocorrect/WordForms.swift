/// The word forms of a `.dic` file: each word, and what its affix flags
/// make of it (a suffix, a prefix, both when they combine, a second suffix
/// that a first one allows). Only forms of letters alone are listed: a
/// word with an apostrophe, a hyphen or a digit is never a correction
/// (French's elided `l'`, `qu'` prefixes would multiply the forms).
enum WordForms {
  /// The lines of words of a `.dic` file's `text`, after the first, which
  /// gives their number.
  static func lines(of text: String, path: String) throws(SpellingError) -> Substring.UnicodeScalarView {
    let scalars = text.unicodeScalars
    let firstEnd = scalars.firstIndex(of: "\n") ?? scalars.endIndex
    let first = String(scalars[..<firstEnd]).trimmingPrefix("\u{FEFF}").filter { $0 != "\r" && $0 != " " }
    guard Int(first) != nil else {
      throw SpellingError(path: path, line: 1, reason: "the first line is not the number of words")
    }
    return scalars[firstEnd...].dropFirst()
  }

  /// Calls `found` with the hash of every form of the words of `lines`,
  /// and the form itself (its first letter in lowercase), until it says to
  /// stop; true when it stopped before the end.
  static func expand(
    _ lines: Substring.UnicodeScalarView, affixes: AffixFile, found: (UInt64, [Unicode.Scalar]) -> Bool
  ) -> Bool {
    let excluded = [affixes.needAffix, affixes.onlyInCompound, affixes.forbidden].compactMap { $0 }
    func isWord(_ flags: [UInt32]) -> Bool { !flags.contains { excluded.contains($0) } }
    var stopped = false
    // Each first letter below U+0530 (Latin, Greek, Cyrillic) in
    // lowercase, asked of Unicode once: the letter itself where it has no
    // other, 0 where not yet asked.
    var lowercase = [UInt32](repeating: 0, count: 0x530)
    func lowercased(_ letter: Unicode.Scalar) -> Unicode.Scalar? {
      let value = Int(letter.value)
      if value < lowercase.count, lowercase[value] != 0 {
        return lowercase[value] == letter.value ? nil : Unicode.Scalar(lowercase[value])
      }
      let mapping = letter.properties.lowercaseMapping.unicodeScalars
      let lower = mapping.count == 1 && mapping.first != letter ? mapping.first : nil
      if value < lowercase.count { lowercase[value] = (lower ?? letter).value }
      return lower
    }
    var form: [Unicode.Scalar] = []
    /// Reports the form `first` then `second`, its first letter in lowercase.
    func emit(_ first: some Collection<Unicode.Scalar>, _ second: some Collection<Unicode.Scalar>) {
      guard !stopped, let initial = first.first ?? second.first else { return }
      let lower = lowercased(initial)
      form.removeAll(keepingCapacity: true)
      form.append(lower ?? initial)
      if first.isEmpty {
        form.append(contentsOf: second.dropFirst())
      } else {
        form.append(contentsOf: first.dropFirst())
        form.append(contentsOf: second)
      }
      if !found(WordHash.of(form) | (lower == nil ? 0 : 1), form) { stopped = true }
    }
    /// Applies the affixes of `flags` to `word`; `depth` 0 allows a second suffix.
    func derive(_ word: [Unicode.Scalar], flags: [UInt32], prefixed: Bool, depth: Int) {
      // The prefixes a suffix combines with.
      let crossPrefixes =
        depth == 0 && !prefixed
        ? flags.filter { affixes.affixes[$0].map { $0.isPrefix && $0.crossProduct } ?? false } : []
      for flag in flags {
        guard let affix = affixes.affixes[flag], !(prefixed && affix.isPrefix) else { continue }
        affix.forEachCandidate(for: word) { rule in
          guard rule.isLetters && rule.applies(to: word, isPrefix: affix.isPrefix) else { return }
          if let circumfix = affixes.circumfix, rule.continuation.contains(circumfix) { return }
          if isWord(rule.continuation) {
            if affix.isPrefix {
              emit(rule.add, word[rule.strip.count...])
            } else {
              emit(word[..<(word.count - rule.strip.count)], rule.add)
            }
          }
          // A suffix and a prefix that both allow it combine.
          let prefixes = affix.crossProduct && !affix.isPrefix ? crossPrefixes : []
          guard depth == 0, !stopped, !rule.continuation.isEmpty || !prefixes.isEmpty else { return }
          let form = rule.apply(to: word, isPrefix: affix.isPrefix)
          if !rule.continuation.isEmpty {
            derive(form, flags: rule.continuation, prefixed: prefixed || affix.isPrefix, depth: 1)
          }
          if !prefixes.isEmpty { derive(form, flags: prefixes, prefixed: false, depth: 1) }
        }
      }
    }
    // One pass over the text's scalars: a line's word ends at its first
    // unescaped slash (its flags follow) or at a blank (data fields follow).
    var word: [Unicode.Scalar] = []
    var flagText: [Unicode.Scalar] = []
    // Whether each scalar below U+0530 (Latin, Greek, Cyrillic) is a
    // letter, asked of Unicode once: 1, 0, or -1 not yet asked.
    var alphabetic = [Int8](repeating: -1, count: 0x530)
    func isLetter(_ scalar: Unicode.Scalar) -> Bool {
      let value = Int(scalar.value)
      guard value < alphabetic.count else { return scalar.properties.isAlphabetic }
      if alphabetic[value] < 0 { alphabetic[value] = scalar.properties.isAlphabetic ? 1 : 0 }
      return alphabetic[value] == 1
    }
    enum Part { case word, flags, rest }
    var part = Part.word
    var letters = true
    var escaped = false
    func endLine() {
      defer {
        word.removeAll(keepingCapacity: true)
        flagText.removeAll(keepingCapacity: true)
        part = .word
        letters = true
        escaped = false
      }
      guard !word.isEmpty, letters, !stopped else { return }
      let flags = affixes.flags(of: Substring(String(String.UnicodeScalarView(flagText))))
      if isWord(flags) { emit(word, EmptyCollection()) }
      derive(word, flags: flags, prefixed: false, depth: 0)
    }
    for scalar in lines {
      if stopped { break }
      switch (part, scalar) {
      case (_, "\n"): endLine()
      case (.rest, _): continue
      case (_, " "), (_, "\t"), (_, "\r"): part = .rest
      case (.word, "\\") where !escaped: escaped = true
      case (.word, "/") where !escaped: part = .flags
      case (.word, _):
        if escaped && scalar != "/" { word.append("\\") }
        escaped = false
        if letters && !isLetter(scalar) { letters = false }
        word.append(scalar)
      case (.flags, _): flagText.append(scalar)
      }
    }
    endLine()
    return stopped
  }
}
