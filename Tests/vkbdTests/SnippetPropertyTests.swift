import KeyboardEngine
import TestSupport
import Testing

@testable import VKBDDaemon

/// For random snippet sets and random typing, `vkbd simulate` shows what a
/// plain reference computes: each character appended, then the longest
/// trigger that ends at the cursor replaced, with the word rules; or a
/// longer trigger typed through the last expansion, replacing it.
@Suite struct SnippetPropertyTests {
  static func randomString(_ alphabet: String, _ lengths: ClosedRange<Int>, _ generator: inout SplitMix64)
    -> String
  {
    let characters = Array(alphabet)
    return String(
      (0..<Int.random(in: lengths, using: &generator)).map { _ in characters.randomElement(using: &generator)! })
  }

  /// The reference: what the text is after typing `typed` with `snippets`.
  static func reference(typing typed: String, snippets: [Snippet]) -> String {
    var text: [Unicode.Scalar] = []
    func triggers(where accept: (Snippet) -> Bool) -> [(trigger: [Unicode.Scalar], snippet: Snippet)] {
      var seen: Set<String> = []
      var result: [([Unicode.Scalar], Snippet)] = []
      for snippet in snippets {
        for trigger in snippet.triggers where seen.insert(trigger).inserted && accept(snippet) {
          result.append((Array(trigger.unicodeScalars), snippet))
        }
      }
      return result
    }
    func boundary(before length: Int, in text: [Unicode.Scalar]) -> Bool {
      length == text.count || SnippetMatcher.isSeparator(text[text.count - length - 1])
    }
    func longest(in text: [Unicode.Scalar], rightWord: Bool) -> (Int, Snippet)? {
      var best: (Int, Snippet)?
      // The first definition of a trigger wins, whatever its word flags.
      for (trigger, snippet) in triggers(where: { _ in true }) where snippet.rightWord == rightWord {
        guard text.count >= trigger.count, Array(text.suffix(trigger.count)) == trigger,
          !snippet.leftWord || boundary(before: trigger.count, in: text),
          trigger.count > (best?.0 ?? 0)
        else { continue }
        best = (trigger.count, snippet)
      }
      return best
    }
    /// The match a key typing `next` makes after `before`: the length of
    /// the trigger's part in `before`, whether `next` is a right-word
    /// trigger's separator, and the snippet.
    func match(after before: [Unicode.Scalar], next: Unicode.Scalar) -> (length: Int, separator: Bool, Snippet)? {
      if let (length, snippet) = longest(in: before + [next], rightWord: false) { return (length - 1, false, snippet) }
      guard SnippetMatcher.isSeparator(next), let (length, snippet) = longest(in: before, rightWord: true) else {
        return nil
      }
      return (length, true, snippet)
    }
    // The last expansion while plain characters follow it: the trigger typed,
    // the replacement's length, the characters since.
    var chain: (typed: [Unicode.Scalar], shown: Int, suffix: Int)?
    for character in typed.unicodeScalars {
      let plain = match(after: text, next: character)
      var chosen = plain.map { (match: $0, view: text, modelLength: $0.length) }
      if let (trigger, shown, suffix) = chain {
        // The same text with the replacement seen as the trigger typed.
        let view = Array(text.prefix(text.count - suffix - shown)) + trigger + Array(text.suffix(suffix))
        if let longer = match(after: view, next: character), longer.length >= suffix + trigger.count,
          longer.length > plain?.length ?? -1
        {
          chosen = (longer, view, longer.length - trigger.count + shown)
        }
      }
      guard let (found, view, modelLength) = chosen else {
        text.append(character)
        chain?.suffix += 1
        continue
      }
      let replacement = Array(Self.replacement(of: found.2).unicodeScalars)
      text.removeLast(modelLength)
      text += replacement
      if found.separator {
        text.append(character)
        chain = nil
      } else {
        chain = (Array(view.suffix(found.length)) + [character], replacement.count, 0)
      }
    }
    var view = String.UnicodeScalarView()
    view.append(contentsOf: text)
    return String(view)
  }

  static func replacement(of snippet: Snippet) -> String {
    guard case .text(let text) = snippet.replacement.parts.first else { return "" }
    return text
  }

  @Test(arguments: 0..<300)
  func simulateShowsTheReferencesText(seed: Int) throws {
    var generator = SplitMix64(seed: UInt64(seed) &* 0x2545_F491_4F6C_DD1D)
    let snippets = (0..<Int.random(in: 1...8, using: &generator)).map { index in
      var snippet = Snippet(
        trigger: Self.randomString("abc.", 1...3, &generator),
        replace: Self.randomString("abcxyz ", 0...5, &generator), origin: "random:\(index)")
      snippet.leftWord = Bool.random(using: &generator)
      snippet.rightWord = Bool.random(using: &generator)
      return snippet
    }
    let typed = Self.randomString("abc .x", 1...40, &generator)
    var configuration = EngineConfiguration.allOff
    configuration.expansion.undoBackspace = false
    let result = try SimulationResult(
      script: "type \"\(typed)\"", layout: Simulation.layout("us"), configuration: configuration,
      snippets: SnippetMatcher(snippets), showsPicker: false)  // a shared trigger: the first fires
    let expected = Self.reference(typing: typed, snippets: snippets)
    #expect(
      result.text == expected,
      "seed \(seed): typed \(typed.debugDescription) with \(snippets.map { ($0.triggers[0], Self.replacement(of: $0), $0.leftWord, $0.rightWord) })"
    )
  }
}
