import CKeyboard
import TestSupport
import Testing

@testable import KeyboardEngine

/// A snippet whose variable cannot be worked out, for any reason, leaves
/// the trigger exactly as typed, every key of it, and the keys typed
/// meanwhile after it, in order (issue 26). Typed at random: words, the
/// trigger (its last key released at once or only later), more words while
/// the session works, the failure at a random moment.
@Suite struct FailingVariableTests {
  /// How the session fails to give a value.
  enum Failure: CaseIterable {
    /// No agent to ask: the engine does not start the expansion.
    case noAgent
    /// The agent answers at once that it cannot (no dialog program).
    case failsAtOnce
    /// The program ran, then failed or was stopped.
    case programFailed
    /// No answer before the engine's deadline.
    case timedOut
    /// The agent went away (the daemon answers for it).
    case agentGone
    /// The dialog had the keyboard, then the user cancelled it: what was
    /// typed meanwhile went to the dialog.
    case dialogCancelled
  }

  /// The application's text from the events it received, through the
  /// keymap (decoded on a state of its own).
  static func decoded(_ events: some Sequence<OutputKey>) -> String {
    let decoder = KeystrokeDecoder(layout: Layouts.us)
    var text = TextModel()
    for event in events {
      switch decoder.feed(code: event.code, value: event.value) {
      case .insert(let character): text.append(character)
      case .backspace: text.deleteBackward()
      default: break
      }
    }
    return text.text
  }

  /// A snippet whose variable is a dialog's (a form) or a program's.
  static func snippet(dialog: Bool) -> Snippet {
    let kind: SessionVariable =
      dialog
      ? .form(layout: Template("[[name]]"), fields: [SessionCall.FormField(name: "name")])
      : .shell(command: Template("hostname"), shell: nil, trim: true, debug: false)
    var snippet = Snippet(triggers: [":pick"], replacement: Template(parts: [.value(0, field: nil)]), origin: "t:1")
    snippet.variables = [SnippetVariable(name: "v", kind: .session(kind))]
    return snippet
  }

  static let keys: [Character: Int32] = [
    "a": KEY_A, "b": KEY_B, "e": KEY_E, "l": KEY_L, "o": KEY_O, "s": KEY_S, "t": KEY_T, "x": KEY_X, " ": KEY_SPACE,
  ]

  @Test(arguments: Failure.allCases, 0..<40)
  func theTriggerStaysAsTypedAndTheKeysTypedMeanwhileFollowIt(failure: Failure, seed: Int) {
    var generator = SplitMix64(seed: UInt64(seed) &* 0x51_7CC1 &+ 1)
    let dialog = failure == .dialogCancelled || Bool.random(using: &generator)
    let engine = Engine(
      layout: Layouts.us, configuration: .allOff, snippets: SnippetMatcher([Self.snippet(dialog: dialog)]),
      world: .testing)
    var asked: [SessionRequest] = []
    engine.onSessionCall = { request in
      asked.append(request)
      return failure != .noAgent
    }
    var driver = EngineDriver(engine: engine)
    var expected = ""
    var dialogEvents = 0..<0
    func type(_ text: String, forTheApplication: Bool = true) {
      for character in text { driver.tap(Self.keys[character]!) }
      if forTheApplication { expected += text }
    }
    func word() -> String {
      String((0..<Int.random(in: 1...4, using: &generator)).map { _ in "abelostx".randomElement(using: &generator)! })
        + " "
    }
    for _ in 0..<Int.random(in: 0...2, using: &generator) { type(word()) }
    // The trigger; its last key released at once, or only after what follows.
    driver.send(KEY_LEFTSHIFT, .down)
    driver.tap(KEY_SEMICOLON)
    driver.send(KEY_LEFTSHIFT, .up)
    for key in [KEY_P, KEY_I, KEY_C] { driver.tap(key) }
    driver.send(KEY_K, .down)
    expected += ":pick"
    let triggerEnd = expected.count
    let heldLong = Bool.random(using: &generator)
    if !heldLong { driver.send(KEY_K, .up) }
    for _ in 0..<Int.random(in: 0...3, using: &generator) { type(word()) }
    if failure == .dialogCancelled, let request = asked.last {
      // The dialog's window takes the keyboard: what waited goes to it.
      let start = driver.emitted.count
      engine.sessionDialogShown(request.id, at: driver.time, into: &driver.output)
      driver.flush()
      type(word(), forTheApplication: false)
      dialogEvents = start..<driver.emitted.count
      // The words typed after the trigger waited, then went to the dialog.
      expected = String(expected.prefix(triggerEnd))
    }
    if heldLong { driver.send(KEY_K, .up) }
    let id = asked.last?.id ?? 0
    switch failure {
    case .noAgent, .timedOut: break
    case .failsAtOnce, .dialogCancelled:
      engine.sessionAnswered(id, value: .failure(.failed("nothing was chosen")), at: driver.time, into: &driver.output)
    case .programFailed:
      engine.sessionAnswered(
        id, value: .failure(.failed("exited with status 1")), at: driver.time, into: &driver.output)
    case .agentGone:
      engine.sessionAnswered(
        id, value: .failure(.failed("the session agent went away")), at: driver.time, into: &driver.output)
    }
    driver.flush()
    while let deadline = engine.nextDeadline { driver.advance(to: deadline) }
    type(word())
    var application = driver.emitted
    application.removeSubrange(dialogEvents)
    #expect(Self.decoded(application) == expected, "\(failure) seed \(seed), dialog \(dialog)")
    #expect(engine.heldOutputKeys.isEmpty, "\(failure) seed \(seed)")
    #expect(asked.count == 1, "\(failure) seed \(seed): asked once")
  }
}
