import KeyboardEngine
import Testing

/// The picker's ranking (DESIGN 8): each rule over files written here.
@Suite struct SnippetSearchTests {
  static func snippet(_ trigger: String?, _ replace: String, label: String? = nil, terms: [String] = []) -> Snippet {
    var snippet = Snippet(triggers: trigger.map { [$0] } ?? [], replacement: Template(replace), origin: "t.yml:1")
    snippet.label = label
    snippet.searchTerms = terms
    return snippet
  }

  static func labels(_ query: String, in snippets: [Snippet]) -> [String] {
    SnippetSearch(snippets).search(query, limit: 10).snippets.map { snippets[$0].displayText() }
  }

  @Test func anExactTriggerComesFirst() {
    let snippets = [
      Self.snippet(nil, "mail merge", label: "mail"),
      Self.snippet(":mail", "ada@example.org"),
    ]
    // The label "mail" is one letter from ":mail" (an extra one typed first).
    #expect(Self.labels(":mail", in: snippets) == ["ada@example.org", "mail"])
    #expect(Self.labels("mail", in: snippets).first == "mail")
  }

  @Test func wholeWordsOverWordStartsOverTyposOverScatteredLetters() {
    let snippets = [
      Self.snippet(nil, "thnaks in a hurry"),  // two letters swapped
      Self.snippet(nil, "thanksgiving dinner"),
      Self.snippet(nil, "many thanks"),
      Self.snippet(nil, "tanks of water"),  // one letter missing
      Self.snippet(nil, "tea"),
    ]
    #expect(
      Self.labels("thanks", in: snippets) == [
        "many thanks", "thanksgiving dinner", "tanks of water", "thnaks in a hurry",
      ])
    // A typo over letters skipped, even in a longer text: "cat" is one
    // letter from "coat", and only scattered in "cobalt".
    #expect(
      Self.labels("cat", in: [Self.snippet(nil, "cobalt"), Self.snippet(nil, "a warm coat")]) == [
        "a warm coat", "cobalt",
      ])
  }

  @Test func oneTypoOfEachKindStillMatches() {
    let snippets = [Self.snippet(nil, "receive the address")]
    for query in ["recieve", "adress", "addresss", "addriss", "rreceive", "erceive"] {
      #expect(Self.labels(query, in: snippets) == ["receive the address"], "\(query)")
    }
    // Two typos, or a typo in a word of two letters, do not.
    #expect(Self.labels("reseeve", in: snippets).isEmpty)
    #expect(Self.labels("tx", in: snippets).isEmpty)
  }

  @Test func labelTriggerAndSearchTermsOverTheReplacement() {
    let snippets = [
      Self.snippet(nil, "order a coffee"),
      Self.snippet(nil, "a flat white, please", label: "coffee order"),
      Self.snippet(nil, "espresso", terms: ["coffee"]),
    ]
    #expect(Self.labels("coffee", in: snippets) == ["espresso", "coffee order", "order a coffee"])
  }

  @Test func shorterOverLongerThenLoadOrder() {
    let snippets = [
      Self.snippet(nil, "best regards from the whole team"),
      Self.snippet(nil, "best regards"),
      Self.snippet(nil, "best regards"),
    ]
    let result = SnippetSearch(snippets).search("regards", limit: 10)
    #expect(result.snippets == [1, 2, 0])
    #expect(result.total == 3)
  }

  @Test func wordsInAnyOrderCaseAndAccentsAside() {
    let snippets = [Self.snippet(nil, "Café crème, s'il vous plaît"), Self.snippet(nil, "crème brûlée")]
    #expect(Self.labels("CREME cafe", in: snippets) == ["Café crème, s'il vous plaît"])
    #expect(Self.labels("brulee", in: snippets) == ["crème brûlée"])
    #expect(Self.labels("Æ", in: [Self.snippet(nil, "aether")]) == ["aether"])
  }

  @Test func aScopeKeepsToItsSnippetsAndAnEmptyQueryListsThemInOrder() {
    let snippets = (0..<5).map { Self.snippet(":c", "sign \($0)") }
    let search = SnippetSearch(snippets)
    #expect(search.search("", limit: 10, in: [3, 1, 4]).snippets == [3, 1, 4])
    let found = search.search("sign", limit: 2, in: [3, 1, 4])
    #expect(found.snippets == [1, 3] && found.total == 3)
  }

  @Test func aLabelWithControlCharactersShowsSpacesAndALongOneIsCut() {
    var snippet = Self.snippet(nil, "x")
    snippet.label = "tab\there\u{7}" + String(repeating: "w", count: 1 << 20)
    let shown = snippet.displayText()
    #expect(shown.hasPrefix("tab here "))
    #expect(shown.unicodeScalars.count == 80 && shown.hasSuffix("…"))
    #expect(SnippetSearch([snippet]).search("www", limit: 5).total == 1)
  }
}
