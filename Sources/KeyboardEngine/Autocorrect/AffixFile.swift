/// What vkbd reads of a hunspell `.aff` file itself (hunspell(5)): the
/// prefixes and suffixes, to list the word forms of the `.dic` file that
/// corrections are looked up among (``WordForms``); the letters of the
/// language (`TRY`); its table of common misspellings (`REP`); and the
/// letters it takes for one another (`MAP`).
/// libhunspell reads the same file for its own checks; this reading only
/// has to find the forms a correction may become, and every form it finds
/// is confirmed by libhunspell before it is typed.
struct AffixFile {
  /// How flags are written: one character each, two (`long`), or numbers
  /// with commas (`num`).
  enum FlagStyle { case single, long, numeric }

  /// A character class of a condition: `.`, a letter, `[abc]` or `[^abc]`.
  struct ConditionClass {
    /// A few letters: a list is faster to search than a set.
    var scalars: [Unicode.Scalar]
    var negated: Bool
    func matches(_ scalar: Unicode.Scalar) -> Bool { scalars.contains(scalar) != negated }
  }

  struct Rule {
    var strip: [Unicode.Scalar]
    var add: [Unicode.Scalar]
    /// Whether what it adds is letters alone (see ``WordForms``).
    var isLetters: Bool
    /// The flags the affixed form carries on (twofold affixes).
    var continuation: [UInt32]
    var condition: [ConditionClass]
  }

  struct Affix {
    var isPrefix: Bool
    var crossProduct: Bool
    var rules: [Rule] = [] {
      didSet { file(rules.count - 1) }
    }
    /// The rules that may apply to a word by the letter at its end (a
    /// suffix's) or start (a prefix's), and those that may whatever it is:
    /// a word is tried on a few rules, not on hundreds (Russian's).
    private(set) var byLetter: [Unicode.Scalar: [Int]] = [:]
    private(set) var anyLetter: [Int] = []

    private mutating func file(_ index: Int) {
      let rule = rules[index]
      let edge = isPrefix ? rule.condition.first : rule.condition.last
      if let edge, !edge.negated {
        for letter in edge.scalars { byLetter[letter, default: []].append(index) }
      } else if let letter = isPrefix ? rule.strip.first : rule.strip.last {
        byLetter[letter, default: []].append(index)
      } else {
        anyLetter.append(index)
      }
    }

    /// Calls `body` with each rule that may apply to `word`.
    func forEachCandidate(for word: [Unicode.Scalar], _ body: (Rule) -> Void) {
      if let letter = isPrefix ? word.first : word.last, let filed = byLetter[letter] {
        for index in filed { body(rules[index]) }
      }
      for index in anyLetter { body(rules[index]) }
    }
  }

  var flagStyle = FlagStyle.single
  var affixes: [UInt32: Affix] = [:]
  /// Flag vectors by number (`AF`), when the file abbreviates them.
  var aliases: [[UInt32]] = []
  /// Flags of words that are not words on their own.
  var needAffix: UInt32?
  var onlyInCompound: UInt32?
  var forbidden: UInt32?
  var circumfix: UInt32?
  /// The lowercase letters of the language, most frequent first.
  var letters: [Unicode.Scalar] = []
  /// Common misspellings: what is typed, and what was meant.
  var replacements: [(typed: [Unicode.Scalar], meant: [Unicode.Scalar])] = []
  /// Common misspellings of two words as one (`REP alot a_lot`).
  var splits: [(typed: [Unicode.Scalar], meant: [Unicode.Scalar])] = []
  /// Letters alike (`MAP aàâä`): each group's lowercase letters. A group's
  /// sequences of several letters (`(ss)ß`) are left out.
  var alike: [[Unicode.Scalar]] = []
  /// Whether the file says nothing of which words are spelled right but
  /// what vkbd reads of it: its affixes and the words that need one. Then
  /// the forms vkbd lists are every word libhunspell accepts (a word with
  /// its first letter in capital as well), and vkbd's own index can stand
  /// for libhunspell. Russian's is so: suffixes alone. A file that
  /// compounds words, converts or ignores letters, keeps cases or forbids
  /// words is not.
  private(set) var isReadWhole = true
  /// The keywords that either say nothing of spelling (suggestions, names)
  /// or that vkbd reads whole.
  private static let readWhole: Set<Substring> = [
    "SET", "FLAG", "AF", "PFX", "SFX", "NEEDAFFIX", "TRY", "REP", "MAP", "KEY", "PHONE", "NOSUGGEST", "MAXNGRAMSUGS",
    "MAXDIFF", "ONLYMAXDIFF", "NOSPLITSUGS", "SUGSWITHDOTS", "WORDCHARS", "NAME", "VERSION", "HOME", "LANG",
  ]

  /// Reads `text`, the file at `path`; a line it cannot read is an error
  /// with its place.
  init(text: String, path: String) throws(SpellingError) {
    var pendingAffix: (flag: UInt32, left: Int)?
    var sawAliasCount = false
    var lineNumber = 0
    for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
      lineNumber += 1
      let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\r" })
      guard let keyword = fields.first, !keyword.hasPrefix("#") else { continue }
      if isReadWhole && !Self.readWhole.contains(keyword) { isReadWhole = false }
      func fail(_ why: String) -> SpellingError { SpellingError(path: path, line: lineNumber, reason: why) }
      func flag(_ index: Int) throws(SpellingError) -> UInt32 {
        guard index < fields.count, let flag = parseFlags(fields[index]).first else {
          throw fail("\(keyword) needs a flag")
        }
        return flag
      }
      switch keyword {
      case "SET":
        guard fields.count > 1, fields[1].uppercased() == "UTF-8" else {
          throw fail("encoding \(fields.dropFirst().first ?? "") is not UTF-8, the only one vkbd reads")
        }
      case "FLAG":
        switch fields.count > 1 ? fields[1] : "" {
        case "long": flagStyle = .long
        case "num": flagStyle = .numeric
        case "UTF-8", "char": flagStyle = .single
        default: throw fail("FLAG \(fields.count > 1 ? fields[1] : "") is not a flag style")
        }
      case "AF" where !sawAliasCount:
        sawAliasCount = true  // the first line gives the count
      case "AF":
        aliases.append(fields.count > 1 ? parseFlags(fields[1]) : [])
      case "NEEDAFFIX", "PSEUDOROOT": needAffix = try flag(1)
      case "ONLYINCOMPOUND": onlyInCompound = try flag(1)
      case "FORBIDDENWORD": forbidden = try flag(1)
      case "CIRCUMFIX": circumfix = try flag(1)
      case "TRY" where fields.count > 1:
        letters = fields[1].unicodeScalars.filter { $0.properties.isLowercase }
      case "REP" where fields.count == 3:
        let typed = Array(fields[1].unicodeScalars).filter { $0 != "^" && $0 != "$" }
        let meant = Array(fields[2].unicodeScalars).map { $0 == "_" ? " " : $0 }
        if !typed.isEmpty && !meant.contains(" ") { replacements.append((typed, meant)) }
        // A word written as two (`alot`, `a lot`): the whole word only.
        if !typed.isEmpty && meant.contains(" ") && fields[1].hasPrefix("^") == fields[1].hasSuffix("$") {
          splits.append((typed, meant))
        }
      case "MAP" where fields.count > 1 && !fields[1].allSatisfy(\.isNumber):
        var group: [Unicode.Scalar] = []
        var inParentheses = false
        for scalar in fields[1].unicodeScalars {
          if scalar == "(" || scalar == ")" {
            inParentheses = scalar == "("
          } else if !inParentheses && scalar.properties.isLowercase && !group.contains(scalar) {
            group.append(scalar)
          }
        }
        if group.count > 1 { alike.append(group) }
      case "PFX", "SFX":
        let affixFlag = try flag(1)
        if let pending = pendingAffix, pending.flag == affixFlag, pending.left > 0 {
          guard fields.count >= 5 else { throw fail("\(keyword) rule needs a strip, an affix and a condition") }
          affixes[affixFlag]!.rules.append(try rule(fields, fail: fail))
          pendingAffix = (affixFlag, pending.left - 1)
        } else {
          guard fields.count >= 4, let count = Int(fields[3]), count >= 0, fields[2] == "Y" || fields[2] == "N"
          else { throw fail("\(keyword) header needs a flag, Y or N, and a count") }
          if let pending = pendingAffix, pending.left > 0 {
            throw fail("\(pending.left) rules of the previous affix are missing")
          }
          affixes[affixFlag] = Affix(isPrefix: keyword == "PFX", crossProduct: fields[2] == "Y")
          pendingAffix = (affixFlag, count)
        }
      default: continue
      }
    }
  }

  private func rule(_ fields: [Substring], fail: (String) -> SpellingError) throws(SpellingError) -> Rule {
    let strip = fields[2] == "0" ? [] : Array(fields[2].unicodeScalars)
    let addField = fields[3].split(separator: "/", maxSplits: 1, omittingEmptySubsequences: false)
    let add = addField[0] == "0" ? [] : Array(addField[0].unicodeScalars)
    let continuation = addField.count > 1 ? flags(of: addField[1]) : []
    var condition: [ConditionClass] = []
    var scalars = fields[4].unicodeScalars.makeIterator()
    while let scalar = scalars.next() {
      switch scalar {
      case ".": condition.append(ConditionClass(scalars: [], negated: true))
      case "[":
        var set: [Unicode.Scalar] = []
        var negated = false
        var closed = false
        while let inner = scalars.next() {
          if inner == "]" {
            closed = true
            break
          }
          if inner == "^" && set.isEmpty && !negated { negated = true } else { set.append(inner) }
        }
        guard closed else { throw fail("condition \(fields[4]) has an unclosed [") }
        condition.append(ConditionClass(scalars: set, negated: negated))
      default: condition.append(ConditionClass(scalars: [scalar], negated: false))
      }
    }
    return Rule(
      strip: strip, add: add, isLetters: add.allSatisfy { $0.properties.isAlphabetic }, continuation: continuation,
      condition: condition)
  }

  /// The flags written in `text` (an alias number when the file has `AF`).
  func flags(of text: Substring) -> [UInt32] {
    if !aliases.isEmpty, let number = Int(text) {
      return number >= 1 && number <= aliases.count ? aliases[number - 1] : []
    }
    return parseFlags(text)
  }

  private func parseFlags(_ text: Substring) -> [UInt32] {
    switch flagStyle {
    case .single: return text.unicodeScalars.map(\.value)
    case .numeric: return text.split(separator: ",").compactMap { UInt32($0) }
    case .long:
      var flags: [UInt32] = []
      var scalars = text.unicodeScalars.makeIterator()
      while let first = scalars.next() {
        flags.append(first.value << 16 | (scalars.next()?.value ?? 0))
      }
      return flags
    }
  }
}

extension AffixFile.Rule {
  /// Whether the rule applies to `word`: it holds the strip and meets the
  /// condition at its end (a suffix) or start (a prefix).
  func applies(to word: [Unicode.Scalar], isPrefix: Bool) -> Bool {
    guard word.count >= strip.count, word.count >= condition.count, word.count > strip.count || !add.isEmpty
    else { return false }
    if isPrefix {
      for (index, scalar) in strip.enumerated() where word[index] != scalar { return false }
      for (index, item) in condition.enumerated() where !item.matches(word[index]) { return false }
    } else {
      let stripStart = word.count - strip.count
      for (index, scalar) in strip.enumerated() where word[stripStart + index] != scalar { return false }
      let conditionStart = word.count - condition.count
      for (index, item) in condition.enumerated() where !item.matches(word[conditionStart + index]) { return false }
    }
    return true
  }

  /// `word` with the rule applied.
  func apply(to word: [Unicode.Scalar], isPrefix: Bool) -> [Unicode.Scalar] {
    isPrefix ? add + word[strip.count...] : word[..<(word.count - strip.count)] + add
  }
}

/// Why a spelling dictionary was not loaded: its file, the line when one
/// is to blame, and what is wrong.
public struct SpellingError: Error, CustomStringConvertible, Equatable, Sendable {
  public var path: String
  public var line: Int?
  public var reason: String

  public init(path: String, line: Int? = nil, reason: String) {
    self.path = path
    self.line = line
    self.reason = reason
  }

  public var description: String { line.map { "\(path):\($0): \(reason)" } ?? "\(path): \(reason)" }
}
