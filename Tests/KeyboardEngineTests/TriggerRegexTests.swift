import CKeyboard
import TestSupport
import Testing

@testable import KeyboardEngine

/// Regex triggers: espanso's syntax (Rust's regex crate), searched so that
/// the match ends at the cursor.
@Suite struct TriggerRegexTests {
  /// The start of the leftmost match that ends where `text` ends, and the
  /// named groups.
  static func search(_ pattern: String, _ text: String) throws -> (start: Int, captures: [String: String])? {
    let regex = try TriggerRegex(pattern)
    let scratch = RegexScratch()
    let scalars = Array(text.unicodeScalars)
    return scalars.withUnsafeBufferPointer { buffer in
      regex.search(buffer, scratch: scratch).map { ($0, regex.captures(buffer, scratch: scratch)) }
    }
  }

  // Patterns from espanso's hub, and what typing the text makes of them.
  @Test(
    arguments: [
      (":(?P<count>\\d+)x(?P<what>\\w+)/", "buy :12xeggs/", 4, ["count": "12", "what": "eggs"]),
      ("(?P<num1>\\d+)/(?P<num2>\\w+ )", "take 1/2 ", 5, ["num1": "1", "num2": "2 "]),
      (":cite:(?P<citation>.*?):", "see :cite:knuth74:", 4, ["citation": "knuth74"]),
      ("(?P<offset>[+-]\\d+)(?P<unit>[dwmy])", "due +3w", 4, ["offset": "+3", "unit": "w"]),
      (
        ":(?P<type>feat|fix|docs)(?P<scope>[^#!()\\r\\n]+)(?P<breaking>!?) ", ":fix ui ", 0,
        ["type": "fix", "scope": " ui", "breaking": ""]
      ),
      ("\\b(?P<word>\\w+)çao\\b", "a informaçao", 2, ["word": "informa"]),
      (":pw(?P<mode>s|n|)(?P<len>\\d{2})", ":pwn16", 0, ["mode": "n", "len": "16"]),
      (" {2}", "end  ", 3, [:]),
      (":st(?P<fstars>\\d+),(?P<estars>\\d+)", ":st3,2", 0, ["fstars": "3", "estars": "2"]),
      ("(?i)HELLO", "say hello", 4, [:]),
      ("[[:digit:]]{3}#", "x123#", 1, [:]),
      ("(?:ab)+c", "ababc", 0, [:]),
      ("a.c", "a\nc", nil, [:]),
      ("(?s)a.c", "a\nc", 0, [:]),
    ] as [(String, String, Int?, [String: String])])
  func searchesAtTheEndOfTheText(pattern: String, text: String, start: Int?, captures: [String: String]) throws {
    let found = try Self.search(pattern, text)
    #expect(found?.start == start)
    if start != nil { #expect(found?.captures == captures) }
  }

  @Test func aMatchMustEndAtTheCursor() throws {
    #expect(try Self.search("ab", "abc") == nil)
    #expect(try Self.search(":(?P<n>\\d+)", ":12a") == nil)
    // Leftmost: the earliest start whose match ends at the cursor.
    #expect(try Self.search("a+", "baaa")?.start == 1)
    // Lazy and greedy groups take what espanso's regex gives them.
    #expect(try Self.search("<(?P<x>.+?)>", "<a><b>")?.captures == ["x": "a><b"])
  }

  @Test(arguments: [
    ("", "the regex can match the empty string"),
    ("a*", "the regex can match the empty string"),
    ("(a|)", "the regex can match the empty string"),
    ("(oops", "an unclosed group"),
    ("[a-", "an unclosed class ["),
    ("a{3,1}", "a repetition {n,m} with m below n"),
    ("*a", "a quantifier with nothing before it"),
    ("(?<=a)b", "an unknown group kind '(?<'"),
    ("\\q", "an unknown escape '\\q'"),
    ("(?P<n>a)(?P<n>b)", "the group name 'n' is used twice"),
  ])
  func refusesWhatDoesNotCompileOrMatchesNothing(pattern: String, message: String) {
    #expect {
      _ = try TriggerRegex(pattern)
    } throws: { error in
      (error as? TriggerRegex.Error)?.message == message && (error as? TriggerRegex.Error)?.isUnsupported == false
    }
  }

  // Unicode classes, as espanso's syntax writes them, PCRE2 matching them.
  @Test(
    arguments: [
      ("\\p{L}+;", "x = été;", 4),
      ("\\pL+;", "x = été;", 4),
      ("\\p{Letter}+;", "x = été;", 4),
      ("\\p{Greek}+!", "a λόγος!", 2),
      ("\\p{Script=Greek}+!", "a λόγος!", 2),
      ("\\P{L}+;", "abc12;", 3),
      ("[\\p{Lu}\\d]+#", "abcÉ9#", 3),
      ("\\p{Uppercase_Letter}{2}", "xÉA", 1),
      ("(?i)été", "ÉTÉ", 0),
      ("(?x) a \\d+ # a comment\n b", "xa12b", 1),
      ("(?m)^ok", "done\nok", 5),
      ("\\u{e9}t\\u00e9", "été", 0),
    ] as [(String, String, Int)])
  func unicodeClassesAndTheOtherFlagsMatch(pattern: String, text: String, start: Int) throws {
    #expect(try Self.search(pattern, text)?.start == start)
  }

  @Test func theGreedOfEveryQuantifierSwapsUnderU() throws {
    #expect(try Self.search("(?P<x>a+)(?P<y>a*)", "baaa")?.captures == ["x": "aaa", "y": ""])
    #expect(try Self.search("(?U)(?P<x>a+)(?P<y>a*)", "baaa")?.captures == ["x": "a", "y": "aa"])
  }

  @Test(arguments: ["\\p{Klingon};", "[a&&b]x", "[a[bc]]x", "(?-u)ab"])
  func whatRustsSyntaxHasAndVkbdDoesNotIsUnsupported(pattern: String) {
    #expect {
      _ = try TriggerRegex(pattern)
    } throws: { error in (error as? TriggerRegex.Error)?.isUnsupported == true }
  }

  @Test func theBacktrackingIsBoundedOnAPathologicalPattern() throws {
    // Exponential for a naive backtracker: PCRE2 gives up at its match
    // limit, or sees there is no b at all.
    #expect(try Self.search("(a|a)*(a|a)*b", String(repeating: "a", count: 29)) == nil)
    #expect(try Self.search("(a|a|aa)*(a|aa)*c?x", String(repeating: "a", count: 29) + "y") == nil)
  }

  @Test func thePrefilterKnowsTheLastCharacter() throws {
    let regex = try TriggerRegex(":(?P<n>\\d+)(x|y)")
    #expect(regex.mayEnd(with: "x") && regex.mayEnd(with: "y"))
    #expect(!regex.mayEnd(with: "z") && !regex.mayEnd(with: "1"))
    let optional = try TriggerRegex("ab?")
    #expect(optional.mayEnd(with: "a") && optional.mayEnd(with: "b"))
    #expect(try TriggerRegex("\\w;|\\d").mayEnd(with: "٣"))  // an Arabic-Indic digit is \d
  }

  static func bits(_ characters: String) -> CharacterBits {
    var bits = CharacterBits()
    for character in characters.unicodeScalars { bits.insert(character) }
    return bits
  }

  @Test func theSecondPrefilterKnowsCharactersEveryMatchHolds() throws {
    let cite = try TriggerRegex(":cite:(?P<c>.*?):")
    #expect(cite.required.all == Self.bits(":cite") && cite.required.any == Self.bits(":"))
    let offset = try TriggerRegex("(?P<o>[+-]\\d+)x(?P<u>[dwmy])")
    #expect(offset.required.all == Self.bits("x") && offset.required.any == Self.bits("+-"))
    let tilde = try TriggerRegex("\\b(?P<w>\\w+)çao\\b")
    #expect(tilde.required.all == Self.bits("çao") && tilde.required.any.isEmpty)
    let either = try TriggerRegex("ab|cd")
    #expect(either.required.all.isEmpty && either.required.any == Self.bits("ac"))
  }

  @Test func theMatcherSearchesOnlyTheRegexesThatMayEndWithTheKey() throws {
    var snippets = (0..<1000).map { index in
      var snippet = Snippet(triggers: [], replacement: Template("r\(index)"), origin: "test:\(index)")
      snippet.regex = try! TriggerRegex(":r\(index)(?P<n>\\d)=")
      return snippet
    }
    snippets.append(Snippet(trigger: "plain", replace: "P"))
    let matcher = SnippetMatcher(snippets)
    let scratch = RegexScratch()
    var text = TextModel()
    for character in ":r417".unicodeScalars { text.append(character) }
    func present(_ next: Unicode.Scalar) -> CharacterBits {
      var bits = text.typedCharacterBits(last: SnippetMatcher.regexWindow - 1)
      bits.insert(next)
      return bits
    }
    #expect(matcher.matchRegex(next: "x", after: text, present: present("x"), scratch: scratch) == nil)
    text.append("5")
    #expect(!matcher.mayMatchRegex(endingWith: "q"))
    #expect(matcher.mayMatchRegex(endingWith: "=") && matcher.mayMatchRegex(endingWith: "=", present: present("=")))
    // The prefilter: no regex's literals in the recent text, no search.
    #expect(!matcher.mayMatchRegex(endingWith: "=", present: Self.bits("=5")))
    let found = try #require(matcher.matchRegex(next: "=", after: text, present: present("="), scratch: scratch))
    #expect(found.snippet == 417 && found.typedLength == 6)
    #expect(matcher.captures(of: found, scratch: scratch) == ["n": "5"])
  }
}

/// Snippets whose variables the user's session works out: the engine asks
/// and waits, keys typed meanwhile wait in order, and without an answer the
/// trigger stays as typed.
@Suite struct SessionVariableTests {
  static func engine(answering: Bool) -> (Engine, SessionAsks) {
    var snippet = Snippet(triggers: [";sh"], replacement: Template(parts: [.value(0, field: nil)]), origin: "t:1")
    snippet.variables = [
      SnippetVariable(
        name: "out", kind: .session(.shell(command: Template("date"), shell: nil, trim: true, debug: false)))
    ]
    let engine = Engine(
      layout: Layouts.us, configuration: .allOff, snippets: SnippetMatcher([snippet]), world: .testing)
    let asks = SessionAsks()
    engine.onSessionCall = { request in
      asks.requests.append(request)
      return answering
    }
    engine.onNotice = { asks.notices.append($0) }
    return (engine, asks)
  }

  final class SessionAsks {
    var requests: [SessionRequest] = []
    var notices: [EngineNotice] = []
  }

  @Test func withoutAnAgentTheTriggerStaysAsTyped() {
    let (engine, asks) = Self.engine(answering: false)
    var driver = EngineDriver(engine: engine)
    for key in [KEY_SEMICOLON, KEY_S, KEY_H] { driver.tap(key) }
    #expect(engine.text.text == ";sh")
    #expect(asks.notices == [.sessionVariableFailed(origin: "t:1", reason: .noAgent)])
  }

  @Test func withNoAnswerInTimeTheTriggersLastKeyAndTheWaitingKeysGoOut() {
    let (engine, asks) = Self.engine(answering: true)
    var driver = EngineDriver(engine: engine)
    for key in [KEY_SEMICOLON, KEY_S, KEY_H, KEY_X] { driver.tap(key) }
    #expect(asks.requests.map(\.call) == [.shell(command: "date", shell: nil, trim: true, debug: false)])
    #expect(engine.text.text == ";s")  // "h" and "x" wait
    let deadline = engine.nextDeadline!
    driver.advance(to: deadline)
    #expect(engine.text.text == ";shx")
    #expect(driver.emitted.filter { $0.value == .down }.map(\.code).suffix(2) == [UInt16(KEY_H), UInt16(KEY_X)])
    #expect(asks.notices == [.sessionVariableFailed(origin: "t:1", reason: .timedOut)])
    #expect(engine.heldOutputKeys.isEmpty)
    // A late answer changes nothing.
    engine.sessionAnswered(
      asks.requests[0].id, value: .success(VariableValue("late")), at: deadline, into: &driver.output)
    #expect(driver.output.events.isEmpty)
  }

  @Test func theAnswerIsTypedThenTheKeysThatWaited() {
    let (engine, asks) = Self.engine(answering: true)
    var driver = EngineDriver(engine: engine)
    for key in [KEY_SEMICOLON, KEY_S, KEY_H, KEY_X] { driver.tap(key) }
    engine.sessionAnswered(
      asks.requests[0].id, value: .success(VariableValue("ok")), at: driver.time, into: &driver.output)
    driver.flush()
    while let deadline = engine.nextDeadline { driver.advance(to: deadline) }
    #expect(engine.text.text == "okx")
    #expect(engine.heldOutputKeys.isEmpty)
  }
}

/// A long expansion goes through the clipboard when the session can put it
/// there: the trigger deleted, the paste chord typed, the clipboard given
/// back; typed when it cannot.
@Suite struct ClipboardPasteTests {
  static let long = String(repeating: "long text ", count: 15)  // 150 characters

  static func engine(answering: Bool) -> (Engine, SessionVariableTests.SessionAsks) {
    var configuration = EngineConfiguration.allOff
    configuration.expansion.pasteShortcut = .ctrlShiftV
    let engine = Engine(
      layout: Layouts.us, configuration: configuration,
      snippets: SnippetMatcher([Snippet(trigger: ";lg", replace: long)]), world: .testing)
    let asks = SessionVariableTests.SessionAsks()
    engine.onSessionCall = { request in
      asks.requests.append(request)
      return answering
    }
    return (engine, asks)
  }

  @Test func aLongExpansionIsPastedOnceTheClipboardHoldsIt() {
    let (engine, asks) = Self.engine(answering: true)
    var driver = EngineDriver(engine: engine)
    for key in [KEY_SEMICOLON, KEY_L, KEY_G, KEY_X] { driver.tap(key) }
    #expect(asks.requests.map(\.call) == [.paste(Self.long)])
    let before = driver.emitted.count
    engine.sessionAnswered(
      asks.requests[0].id, value: .success(VariableValue("")), at: driver.time, into: &driver.output)
    driver.flush()
    while let deadline = engine.nextDeadline { driver.advance(to: deadline) }
    let downs = driver.emitted[before...].filter { $0.value == .down }.map(\.code)
    // Two Backspaces for ";l", Ctrl+Shift+V, then the "x" that waited.
    #expect(
      downs == [
        UInt16(KEY_BACKSPACE), UInt16(KEY_BACKSPACE), UInt16(KEY_LEFTCTRL), UInt16(KEY_LEFTSHIFT), UInt16(KEY_V),
        UInt16(KEY_X),
      ])
    #expect(engine.text.text == Self.long + "x")
    #expect(asks.requests.last?.call == .restoreClipboard)
    #expect(engine.heldOutputKeys.isEmpty)
  }

  @Test func whenTheClipboardCannotTakeItItIsTyped() {
    let (engine, asks) = Self.engine(answering: true)
    var driver = EngineDriver(engine: engine)
    for key in [KEY_SEMICOLON, KEY_L, KEY_G] { driver.tap(key) }
    engine.sessionAnswered(
      asks.requests[0].id, value: .failure(.failed("wl-copy: command not found")), at: driver.time,
      into: &driver.output)
    driver.flush()
    while let deadline = engine.nextDeadline { driver.advance(to: deadline) }
    #expect(engine.text.text == Self.long)
    #expect(!driver.emitted.contains { $0.code == UInt16(KEY_LEFTCTRL) })
  }

  @Test func whenTheClipboardIsSlowItIsTypedAndTheClipboardPutBack() {
    let (engine, asks) = Self.engine(answering: true)
    var driver = EngineDriver(engine: engine)
    for key in [KEY_SEMICOLON, KEY_L, KEY_G, KEY_X] { driver.tap(key) }
    #expect(asks.requests.map(\.call) == [.paste(Self.long)])
    while let deadline = engine.nextDeadline { driver.advance(to: deadline) }
    #expect(engine.text.text == Self.long + "x")
    #expect(asks.requests.map(\.call) == [.paste(Self.long), .restoreClipboard])
    // The session's late answer changes nothing.
    engine.sessionAnswered(
      asks.requests[0].id, value: .success(VariableValue("")), at: driver.time, into: &driver.output)
    driver.flush()
    #expect(!driver.emitted.contains { $0.code == UInt16(KEY_LEFTCTRL) })
    #expect(engine.text.text == Self.long + "x")
    #expect(engine.heldOutputKeys.isEmpty)
  }

  @Test func withoutAnAgentItIsTyped() {
    let (engine, _) = Self.engine(answering: false)
    var driver = EngineDriver(engine: engine)
    for key in [KEY_SEMICOLON, KEY_L, KEY_G] { driver.tap(key) }
    while let deadline = engine.nextDeadline { driver.advance(to: deadline) }
    #expect(engine.text.text == Self.long)
  }
}

/// An espanso app config's match set: the snippets of the files it leaves
/// out do not fire while its rule is in force.
@Suite struct SnippetFilesOffTests {
  @Test func aSnippetOfAFileLeftOutDoesNotFire() {
    let snippets = SnippetMatcher([
      Snippet(trigger: ";b", replace: "from base", origin: "/u/match/base.yml:3"),
      Snippet(trigger: ";m", replace: "from mail", origin: "/u/match/mail.yml:2"),
    ])
    #expect(snippets.snippets.files == ["/u/match/base.yml", "/u/match/mail.yml"])
    let engine = Engine(layout: Layouts.us, configuration: .allOff, snippets: snippets, world: .testing)
    var configuration = engine.configuration
    configuration.snippetFilesOff = ["/u/match/base.yml"]
    engine.configuration = configuration
    var driver = EngineDriver(engine: engine)
    for key in [KEY_SEMICOLON, KEY_B, KEY_SPACE, KEY_SEMICOLON, KEY_M] { driver.tap(key) }
    while let deadline = engine.nextDeadline { driver.advance(to: deadline) }
    #expect(engine.text.text == ";b from mail")
    configuration.snippetFilesOff = []
    engine.configuration = configuration
    for key in [KEY_SPACE, KEY_SEMICOLON, KEY_B] { driver.tap(key) }
    while let deadline = engine.nextDeadline { driver.advance(to: deadline) }
    #expect(engine.text.text.hasSuffix(" from base"))
  }
}
