import Foundation
import Testing
import Yams

@testable import VKBDDaemon

/// The YAML composer: the tree, the places and the refusals the config
/// readers rely on.
@Suite struct YAMLTests {
  /// A node as one line of text: `plain`, `"quoted"`, `[a, b]`, `{k: v}`,
  /// each with its line:column.
  static func outline(_ node: YAMLNode) -> String {
    let place = "@\(node.line):\(node.column)"
    switch node.content {
    case .scalar(let text, let plain): return (plain ? text : "\"\(text)\"") + place
    case .sequence(let items): return "[" + items.map(outline).joined(separator: ", ") + "]" + place
    case .mapping(let entries):
      return "{" + entries.map { outline($0.key) + ": " + outline($0.value) }.joined(separator: ", ") + "}" + place
    }
  }

  /// The same outline of a Yams node, for the comparison with the parser
  /// vkbd used before (Yams wraps the same libyaml).
  static func outline(_ node: Yams.Node) -> String {
    let place = "@\(node.mark?.line ?? 0):\(node.mark?.column ?? 0)"
    switch node {
    case .scalar(let scalar):
      return (scalar.style == .plain ? scalar.string : "\"\(scalar.string)\"") + place
    case .sequence(let sequence): return "[" + sequence.map(outline).joined(separator: ", ") + "]" + place
    case .mapping(let mapping):
      return "{" + mapping.map { outline($0.key) + ": " + outline($0.value) }.joined(separator: ", ") + "}" + place
    case .alias: return "alias" + place
    }
  }

  static func compose(_ text: String) throws -> String? {
    try YAML.compose(text).map(outline)
  }

  @Test(arguments: [
    ("a: 1\nb: [x, 'y']\n", "{a@1:1: 1@1:4, b@2:1: [x@2:5, \"y\"@2:8]@2:4}@1:1"),
    ("- one\n- two: 2\n  three: 3\n", "[one@1:3, {two@2:3: 2@2:8, three@3:3: 3@3:10}@2:3]@1:1"),
    ("text: |\n  line one\n  line two\n", "{text@1:1: \"line one\nline two\n\"@1:7}@1:1"),
    ("text: >-\n  folded\n  words\n", "{text@1:1: \"folded words\"@1:7}@1:1"),
    ("t: \"\\u00e9\\tx\"\n", "{t@1:1: \"é\tx\"@1:4}@1:1"),
    ("t: 'it''s'\n", "{t@1:1: \"it's\"@1:4}@1:1"),
    ("t:\n", "{t@1:1: @1:3}@1:1"),
    ("---\n", "@2:1"),
    ("# only a comment\n", nil),
    ("", nil),
  ])
  func composesTheTreeWithItsPlaces(text: String, expected: String?) throws {
    #expect(try Self.compose(text) == expected)
  }

  @Test func anAliasIsTheAnchoredNodeWithTheAnchorsPlace() throws {
    let text = "anchors:\n  - &greeting hello\nmatches:\n  - replace: *greeting\n"
    #expect(
      try Self.compose(text)
        == "{anchors@1:1: [hello@2:5]@2:3, matches@3:1: [{replace@4:5: hello@2:5}@4:5]@4:3}@1:1")
  }

  @Test(arguments: [
    ("a: *nowhere\n", 1, 4, "alias *nowhere names no anchor"),
    ("a: 1\nb: 2\na: 3\n", 3, 1, "key 'a' appears twice"),
    ("a: 1\n---\nb: 2\n", 2, 1, "a second document begins here"),
    ("[unclosed\n", 2, 1, "while parsing a flow sequence at line 1"),
    ("backspace:\n\taccelerate: true\n", 2, 1, "YAML: found character that cannot start any token"),
    ("a: b\nc: \u{7}\n", 2, 4, "YAML: control characters are not allowed"),
  ])
  func refusesWithThePlaceAndTheReason(text: String, line: Int, column: Int, message: String) {
    #expect {
      _ = try YAML.compose(text)
    } throws: { error in
      guard let error = error as? YAMLError else { return false }
      return error.line == line && error.column == column && error.message.contains(message)
    }
  }

  /// Every YAML file the tests and the fuzzer start from, and a few shapes
  /// more, give the tree (places included) that Yams gave before.
  @Test func composesWhatYamsComposed() throws {
    let fixtures = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures")
    let corpus = fixtures.deletingLastPathComponent().deletingLastPathComponent()
      .appendingPathComponent("Fuzz/corpus/config")
    var texts = [
      "k: &a {x: [1, 2], y: \"z\"}\nl: *a\nm: [*a, *a]\n",
      "? complex key\n: value\n",
      "- |+\n  kept\n\n- >\n  a\n  b\n\n  c\n",
      "key: !!str 12\nother: !custom {a: b}\n",
      "%YAML 1.1\n---\nplain: multi\n  line words\n...\n",
      "emoji: \"\\U0001F600\"\nnull: ~\nempty: ''\n",
    ]
    for directory in [fixtures, corpus] {
      let files = FileManager.default.enumerator(at: directory, includingPropertiesForKeys: nil)!
      for case let file as URL in files where ["yml", "yaml"].contains(file.pathExtension) {
        texts.append(try String(contentsOf: file, encoding: .utf8))
      }
    }
    #expect(texts.count > 10)
    for text in texts {
      // A fixture that is not YAML on purpose is refused by both.
      guard let yams = try? Yams.compose(yaml: text, .basic, Constructor([:], [:], [:]), .utf8).map(Self.outline)
      else {
        #expect(throws: YAMLError.self) { try YAML.compose(text) }
        continue
      }
      #expect(try Self.compose(text) == yams, "\(text)")
    }
  }
}
