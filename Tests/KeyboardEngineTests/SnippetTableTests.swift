import Testing

@testable import KeyboardEngine

/// The compact table gives back every snippet as it was put in, shares
/// equal texts, and joins tables without copying them.
@Suite struct SnippetTableTests {
  static var kinds: [Snippet] {
    var plain = Snippet(trigger: ":hi", replace: "Hello there", origin: "/m/base.yml:3")
    plain.label = "Greeting"
    var word = Snippet(triggers: [":a", ":b"], replacement: Template(""), origin: "/m/base.yml:9")
    word.leftWord = true
    word.rightWord = true
    word.propagateCase = true
    word.uppercaseStyle = .capitalizeWords
    var withVariable = Snippet(
      triggers: [":d"], replacement: Template(parts: [.text("on "), .value(0, field: nil)]), origin: "/m/other.yml:1")
    withVariable.variables = [
      SnippetVariable(name: "today", kind: .date(format: "%Y", offsetSeconds: 0, locale: nil))
    ]
    withVariable.searchTerms = ["date", "today"]
    var search = Snippet(trigger: ":s", replace: "", origin: "(inline)")
    search.opensSearch = true
    let noTrigger = Snippet(triggers: [], replacement: Template("found in the picker only"), origin: "x:y:12")
    return [plain, word, withVariable, search, noTrigger]
  }

  static func same(_ one: Snippet, _ other: Snippet) -> Bool {
    one.triggers == other.triggers && one.replacement == other.replacement && one.label == other.label
      && one.origin == other.origin && one.variables == other.variables && one.searchTerms == other.searchTerms
      && one.leftWord == other.leftWord && one.rightWord == other.rightWord
      && one.propagateCase == other.propagateCase && one.uppercaseStyle == other.uppercaseStyle
      && one.opensSearch == other.opensSearch && one.regex == nil && other.regex == nil
  }

  @Test func everySnippetComesBackAsItWentIn() {
    let table = SnippetTable(Self.kinds)
    #expect(table.count == Self.kinds.count)
    for (index, snippet) in Self.kinds.enumerated() {
      #expect(Self.same(table[index], snippet), "\(index): \(table[index])")
    }
    #expect(table.files == ["/m/base.yml", "/m/other.yml", "(inline)", "x:y"])
    #expect(table.indices.map(table.fileNumber(at:)) == [0, 0, 1, 2, 3])
    #expect(table.flags(at: 2).contains(.whole) && !table.flags(at: 0).contains(.whole))
    #expect(table.flags(at: 3).contains(.opensSearch))
    #expect(table.displayLength(at: 0) == "Greeting".count && table.displayLength(at: 2) == "on ".count)
  }

  @Test func equalTextsAreStoredOnce() {
    let replacement = String(repeating: "a long replacement ", count: 20)
    let many = (0..<100).map { Snippet(trigger: ":sf:", replace: replacement, origin: "/m/sf.yml:\($0 + 1)") }
    let once = SnippetTable(Array(many.prefix(1)))
    let hundred = SnippetTable(many)
    // A record and its trigger's range a snippet; the texts once.
    #expect(hundred.storageBytes - once.storageBytes < 99 * 64)
    #expect(hundred[57].replacement == Template(replacement) && hundred[57].origin == "/m/sf.yml:58")
  }

  @Test func joinedTablesReadAsOneAndNumberTheirFilesApart() {
    let first = SnippetTable(Array(Self.kinds.prefix(2)))
    let second = SnippetTable(Array(Self.kinds.suffix(3)))
    let joined = first + second
    #expect(joined.count == 5)
    for (index, snippet) in Self.kinds.enumerated() { #expect(Self.same(joined[index], snippet)) }
    #expect(joined.files == ["/m/base.yml", "/m/other.yml", "(inline)", "x:y"])
    #expect(joined.fileNumber(at: 4) == 3)
    #expect((SnippetTable() + first).count == 2 && (first + SnippetTable()).count == 2)
  }

  @Test func aSnippetReplacedOrRemovedKeepsTheOthersInOrder() {
    var table = SnippetTable(Self.kinds)
    var resolved = Self.kinds[1]
    resolved.replacement = Template("worked out")
    table.replace(at: 1, with: resolved)
    #expect(table[1].replacement == Template("worked out") && table[1].origin == "/m/base.yml:9")
    table.remove(at: [0, 3])
    #expect(table.map(\.triggers) == [[":a", ":b"], [":d"], []])
    #expect(table[0].replacement == Template("worked out"))
  }

  @Test func theTriggersAndTextsAreReadWithoutMakingSnippets() {
    let table = SnippetTable(Self.kinds)
    var triggers: [String] = []
    table.forEachTrigger(at: 1) { triggers.append(String(decoding: $0, as: UTF8.self)) }
    #expect(triggers == [":a", ":b"])
    var texts: [(String, Bool)] = []
    for index in [0, 2] {
      table.forEachText(at: index) { texts.append((String(decoding: $0, as: UTF8.self), $1)) }
    }
    #expect(texts.map(\.0) == ["Greeting", "Hello there", "on "] && texts.map(\.1) == [true, false, false])
  }
}
