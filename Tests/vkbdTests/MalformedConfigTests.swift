import Foundation
import LinuxSystem
import Testing

@testable import VKBDDaemon

/// A catalogue of broken configs and match files: each gives one clear
/// problem at its file and line, and nothing crashes or runs away.
@Suite struct MalformedConfigTests {
  /// One broken case: the files (the first is the config), and where the
  /// problem is reported and what it says.
  struct Case: CustomStringConvertible, Sendable {
    var name: String
    var files: [(name: String, text: String)]
    var file: String
    var line: Int
    var message: String
    var description: String { name }

    init(_ name: String, _ config: String, line: Int, _ message: String) {
      self.name = name
      files = [("config.yaml", config)]
      file = "config.yaml"
      self.line = line
      self.message = message
    }

    init(_ name: String, match text: String, line: Int, _ message: String) {
      self.name = name
      files = [("config.yaml", "snippets: [m.yml]\n"), ("m.yml", text)]
      file = "m.yml"
      self.line = line
      self.message = message
    }

    init(_ name: String, files: [(String, String)], file: String, line: Int, _ message: String) {
      self.name = name
      self.files = files.map { (name: $0.0, text: $0.1) }
      self.file = file
      self.line = line
      self.message = message
    }
  }

  /// A billion laughs, as YAML anchors: six levels of ten aliases.
  static let laughs =
    "  a: &a [x, x, x, x, x, x, x, x, x, x]\n  b: &b [*a, *a, *a, *a, *a, *a, *a, *a, *a, *a]\n"
    + "  c: &c [*b, *b, *b, *b, *b, *b, *b, *b, *b, *b]\n  d: &d [*c, *c, *c, *c, *c, *c, *c, *c, *c, *c]\n"
    + "  e: &e [*d, *d, *d, *d, *d, *d, *d, *d, *d, *d]\n  f: &f [*e, *e, *e, *e, *e, *e, *e, *e, *e, *e]\n"

  static let cases: [Case] = [
    // The config's own keys: wrong types, out of range, unknown.
    Case("a bool that is a word", "autocapitalize: yes please\n", line: 1, "must be true or false"),
    Case("a bool that is a list", "autocapitalize: [true]\n", line: 1, "must be true or false"),
    Case("a quoted bool", "double_space_period: \"true\"\n", line: 1, "must be true or false"),
    Case("a negative time", "double_space_timeout_ms: -5\n", line: 1, "between 1 and 60000"),
    Case("a huge number", "double_space_timeout_ms: 99999999999999999999999\n", line: 1, "must be a whole number"),
    Case("a fraction", "double_space_timeout_ms: 1.5\n", line: 1, "must be a whole number"),
    Case("a section that is a number", "backspace: 3\n", line: 1, "backspace must be a mapping"),
    Case("a zero delay", "backspace:\n  repeat_delay_ms: 0\n", line: 2, "between 1 and 60000"),
    Case("too many words", "backspace:\n  words_after: 10001\n", line: 2, "between 0 and 10000"),
    Case("an unknown nested key", "backspace:\n  speed: 3\n", line: 2, "unknown key 'speed'"),
    Case("a layout that is a string", "layout: de\n", line: 1, "layout must be a mapping"),
    Case("a layout that does not exist", "layout:\n  layout: xx-no-such\n", line: 2, "layout"),
    Case("an unknown unicode input", "unicode_input: yes\n", line: 1, "must be one of ctrl-shift-u, none"),
    Case("an unknown newline", "newline: crlf\n", line: 1, "must be one of enter, shift-enter"),
    Case("a number for a bool", "undo_backspace: 2\n", line: 1, "must be true or false"),
    Case("an empty burst", "expansion:\n  burst_keys: 0\n", line: 2, "between 1 and 30"),
    Case("a negative gap", "expansion:\n  gap_ms: -1\n", line: 2, "between 0 and 1000"),
    Case("expansion as a word", "expansion: fast\n", line: 1, "expansion must be a mapping"),
    Case("a snippet file that is not there", "snippets: 5\n", line: 1, "no such file or directory"),
    Case("a snippet path that is a mapping", "snippets: [{a: b}]\n", line: 1, "snippets must be a string"),
    Case("matches as a mapping", "matches: {trigger: a}\n", line: 1, "matches must be a list"),
    Case("a match that is a number", "matches: [1]\n", line: 1, "match must be a mapping"),
    Case("an unknown key in a chord", "toggle_key: leftctrl+banana\n", line: 1, "unknown key name 'banana'"),
    Case("a chord as a list", "toggle_key: [a]\n", line: 1, "toggle_key must be a string"),
    Case("a relative socket", "control_socket: vkbd.sock\n", line: 1, "absolute path shorter than 108"),
    Case(
      "a socket path too long", "control_socket: /\(String(repeating: "x", count: 200))\n", line: 1,
      "absolute path shorter than 108"),
    Case("a group nobody has", "control_group: no-such-group-here\n", line: 1, "no group named"),
    Case("devices as a list", "devices: [a]\n", line: 1, "devices must be a mapping"),
    Case("device names as a mapping", "devices:\n  include: {a: 1}\n", line: 2, "devices.include must be a list"),
    Case("a key twice", "autocapitalize: true\nautocapitalize: false\n", line: 2, "appears twice"),
    Case("not YAML", "[unclosed\n", line: 2, "YAML"),
    Case("tabs for indentation", "backspace:\n\taccelerate: true\n", line: 2, "YAML"),
    Case("a list for a config", "- a\n- b\n", line: 1, "config must be a mapping"),
    Case(
      "nesting ten thousand deep", "matches: " + String(repeating: "[", count: 10_000), line: 1,
      "nests deeper than 100"),
    Case(
      "a billion laughs under an unknown key", "x:\n" + laughs + "  g: [*f, *f, *f, *f]\n", line: 1, "unknown key 'x'"),
    // Match files.
    Case("an empty trigger", match: "matches:\n  - trigger: \"\"\n    replace: x\n", line: 2, "a trigger is empty"),
    Case(
      "a word trigger of separators", match: "matches:\n  - trigger: \". ,\"\n    replace: x\n    word: true\n",
      line: 2, "made only of separators"),
    Case(
      "a trigger too long", match: "matches:\n  - trigger: \(String(repeating: "t", count: 300))\n    replace: x\n",
      line: 2, "longer than 128"),
    Case(
      "a ten-megabyte replacement",
      match: "matches:\n  - trigger: big\n    replace: \(String(repeating: "y", count: 10_000_000))\n", line: 3,
      "replace is longer than 65536"),
    Case(
      "a replacement that is a list", match: "matches:\n  - trigger: a\n    replace: [x]\n", line: 3, "must be a string"
    ),
    Case("a match without a replacement", match: "matches:\n  - trigger: a\n", line: 2, "match has no replace"),
    Case(
      "vars that is a number", match: "matches:\n  - trigger: a\n    replace: x\n    vars: 5\n", line: 4,
      "vars must be a list"),
    Case(
      "a variable without a name",
      match: "matches:\n  - trigger: a\n    replace: x\n    vars:\n      - type: echo\n", line: 5,
      "needs name: and type:"),
    Case(
      "a date whose format is a number",
      match: "matches:\n  - trigger: a\n    replace: \"{{d}}\"\n    vars:\n      - name: d\n        type: date\n"
        + "        params:\n          format: 7\n",
      line: 8, "params.format must be a string"),
    Case(
      "random without choices",
      match: "matches:\n  - trigger: a\n    replace: \"{{r}}\"\n    vars:\n      - name: r\n        type: random\n",
      line: 5, "needs params.choices"),
    Case(
      "params as a list",
      match:
        "matches:\n  - trigger: a\n    replace: \"{{e}}\"\n    vars:\n      - name: e\n        type: echo\n        params: [1]\n",
      line: 7, "params must be a mapping"),
    Case(
      "a huge date offset",
      match:
        "matches:\n  - trigger: a\n    replace: \"{{d}}\"\n    vars:\n      - name: d\n        type: date\n        params:\n          format: \"%Y\"\n          offset: 999999999999999\n",
      line: 9, "params.offset must be between"),
    Case(
      "an unknown case style",
      match: "matches:\n  - trigger: a\n    replace: x\n    uppercase_style: LOUD\n", line: 4,
      "uppercase_style must be one of"),
    Case(
      "an unknown variable", match: "matches:\n  - trigger: a\n    replace: \"{{who}}\"\n", line: 3,
      "no vars entry defines"),
    Case("global_vars as a mapping", match: "global_vars: {}\nmatches: []\n", line: 1, "global_vars must be a list"),
    Case("imports that is missing", match: "imports: [nothing.yml]\n", line: 1, "no such file"),
    Case(
      "a cycle of imports",
      files: [
        ("config.yaml", "snippets: [a.yml]\n"), ("a.yml", "imports: [b.yml]\n"), ("b.yml", "imports: [a.yml]\n"),
      ],
      file: "b.yml", line: 1, "import cycle: a.yml imports b.yml imports a.yml"),
    Case(
      "imports seventeen deep",
      files: [("config.yaml", "snippets: [i0.yml]\n")] + (0..<17).map { ("i\($0).yml", "imports: [i\($0 + 1).yml]\n") }
        + [("i17.yml", "matches: []\n")],
      file: "i15.yml", line: 1, "imports nest deeper than 16 files"),
    Case(
      "a billion laughs as matches", match: "anchors:\n" + laughs + "matches: [*f]\n", line: 7,
      "match must be a mapping"),
    Case(
      "an unknown match key", match: "matches:\n  - trigger: a\n    replace: x\n    replce: y\n", line: 4,
      "unknown key 'replce'"),
  ]

  @Test(arguments: cases)
  func givesOneProblemAtItsFileAndLine(_ broken: Case) throws {
    let directory = "/tmp/vkbd-malformed-\(getpid())-\(abs(broken.name.hashValue))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for (name, text) in broken.files {
      try text.write(toFile: "\(directory)/\(name)", atomically: true, encoding: .utf8)
    }
    // The config file is strict; a match file's problem leaves out that
    // match (or file) and the config loads.
    let problems: [ConfigProblem]
    do {
      let configuration = try ConfigLoader.load(path: "\(directory)/config.yaml")
      #expect(broken.file != "config.yaml")
      problems = configuration.snippetProblems + configuration.warnings
    } catch {
      #expect(broken.file == "config.yaml" || error.problems.allSatisfy { $0.file.hasSuffix("config.yaml") })
      problems = error.problems
    }
    #expect(problems.count == 1, "\(problems)")
    let problem = try #require(problems.first)
    #expect(problem.file == "\(directory)/\(broken.file)")
    #expect(problem.line == broken.line, "\(problem)")
    #expect(problem.message.contains(broken.message), "\(problem)")
  }

  @Test func aFileOverTheSizeLimitIsAProblemAtLineOne() throws {
    let path = "/tmp/vkbd-malformed-big-\(getpid()).yaml"
    #expect(FileManager.default.createFile(atPath: path, contents: nil))
    defer { unlink(path) }
    #expect(truncate(path, off_t(Files.largestReadable + 1)) == 0)  // sparse: zeros, read fast
    let error = try #require(throws: ConfigErrors.self) { try ConfigLoader.load(path: path) }
    #expect(error.problems.map(\.description) == ["\(path):1:1: read \(path): File too large"])
  }

  @Test func snippetsOverTheirMemoryAreAProblemAtTheMatchThatPassedItAndTheRestIsLeftOut() throws {
    // Bound by the memory they take, not by their number: here 64 KiB.
    var first = "matches:\n"
    for index in 0..<5000 { first += "  - {trigger: t\(index), replace: replacement number \(index)}\n" }
    let files = SentFiles(files: [
      "/u/match/a.yml": first, "/u/match/b.yml": "matches:\n  - {trigger: later, replace: x}\n",
    ])
    var loader = SnippetLoader(store: files, maximumStorage: 64 << 10)
    loader.load(directory: "/u/match")
    loader.finish()
    #expect(loader.problems.count == 1)
    let problem = try #require(loader.problems.first)
    #expect(problem.file == "/u/match/a.yml" && problem.kind == .tooLarge)
    #expect(
      problem.message
        == "the snippets loaded take more than 64 KiB of memory, the most vkbd keeps: the matches from here on and every later file are left out"
    )
    // What loaded stops where the problem is; b.yml is not read.
    #expect(loader.snippets.count == problem.line - 2)
    #expect(loader.snippets.count > 100 && loader.snippets.count < 5000)
    #expect(loader.files == ["/u/match/a.yml"])
  }

  @Test func invalidUTF8IsAProblemAtLineOne() throws {
    let path = "/tmp/vkbd-malformed-utf8-\(getpid()).yaml"
    #expect(FileManager.default.createFile(atPath: path, contents: Data([0x61, 0x3A, 0x20, 0xFF, 0xFE, 0x0A])))
    defer { unlink(path) }
    let error = try #require(throws: ConfigErrors.self) { try ConfigLoader.load(path: path) }
    #expect(
      error.problems.map(\.description) == [
        "\(path):1:1: read \(path): Invalid or incomplete multibyte or wide character"
      ])
  }
}
