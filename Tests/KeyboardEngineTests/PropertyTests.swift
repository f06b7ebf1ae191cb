import CKeyboard
import TestSupport
import Testing

@testable import KeyboardEngine

/// Random typing: well-formed key events (a key goes down before it comes up),
/// with kernel repeats of held keys and random pauses.
struct RandomTyping {
  static let keys: [UInt16] = [Int32](
    arrayLiteral:
      KEY_A, KEY_E, KEY_S, KEY_T, KEY_Q, KEY_W, KEY_Y, KEY_Z, KEY_1, KEY_SPACE, KEY_SPACE, KEY_SPACE,
    KEY_A, KEY_E, KEY_S, KEY_T, KEY_O, KEY_I, KEY_SPACE, KEY_SPACE, KEY_SPACE, KEY_DOT, KEY_DOT, KEY_DOT,
    KEY_BACKSPACE, KEY_BACKSPACE, KEY_ENTER, KEY_DOT, KEY_COMMA, KEY_APOSTROPHE, KEY_SLASH, KEY_LEFTSHIFT,
    KEY_RIGHTSHIFT, KEY_LEFTCTRL, KEY_RIGHTALT, KEY_CAPSLOCK, KEY_TAB, KEY_LEFT, KEY_GRAVE, KEY_LEFTBRACE,
  ).map { UInt16($0) }

  var generator: SplitMix64
  var held: [UInt16] = []
  var time = Instant.milliseconds(1000)

  init(seed: UInt64) { generator = SplitMix64(seed: seed) }

  private mutating func roll(_ limit: Int) -> Int { Int.random(in: 0..<limit, using: &generator) }

  /// The next event, or a pause (nil) during which timers may run.
  mutating func next(withRepeats: Bool) -> KeyEvent? {
    time = time.adding(milliseconds: Int64.random(in: 1...(roll(100) < 70 ? 150 : 900), using: &generator))
    let roll = Int.random(in: 0..<100, using: &generator)
    if roll < 8 { return nil }
    if withRepeats, roll < 20, let key = held.randomElement(using: &generator) {
      return KeyEvent(code: key, value: .repeat, time: time)
    }
    if roll < 55 || held.count > 3, !held.isEmpty {
      let key = held.remove(at: Int.random(in: 0..<held.count, using: &generator))
      return KeyEvent(code: key, value: .up, time: time)
    }
    let key = Self.keys.randomElement(using: &generator)!
    guard !held.contains(key) else { return nil }
    held.append(key)
    return KeyEvent(code: key, value: .down, time: time)
  }

  /// Types `steps` random events on `engine`, the timers due running
  /// between them and `meanwhile` before each; then releases every key and
  /// lets the timers run out. Returns what the engine emitted.
  mutating func type(on engine: Engine, steps: Int, meanwhile: () -> Void = {}) -> [OutputKey] {
    var output = KeyOutput()
    func runTimers(until time: Instant) {
      while let due = engine.nextDeadline, due <= time { engine.advance(to: due, into: &output) }
    }
    for _ in 0..<steps {
      let event = next(withRepeats: true)
      runTimers(until: time)
      meanwhile()
      if let event { engine.handle(event, into: &output) }
    }
    for event in releaseAll() {
      runTimers(until: event.time)
      engine.handle(event, into: &output)
    }
    runTimers(until: time.adding(milliseconds: 60_000))
    return output.events
  }

  /// Releases everything still held.
  mutating func releaseAll() -> [KeyEvent] {
    defer { held.removeAll() }
    return held.reversed().map {
      time = time.adding(milliseconds: 10)
      return KeyEvent(code: $0, value: .up, time: time)
    }
  }
}

@Suite struct PropertyTests {
  @Test(arguments: 0..<200)
  func withEveryAidOffTheOutputIsTheInput(seed: Int) {
    let engine = Engine(layout: Layouts.us, configuration: .allOff, world: .testing)
    var typing = RandomTyping(seed: UInt64(seed))
    var output = KeyOutput()
    var sent: [OutputKey] = []
    var emitted: [OutputKey] = []
    for _ in 0..<300 {
      guard let event = typing.next(withRepeats: false) else { continue }
      sent.append(OutputKey(code: event.code, value: event.value))
      engine.handle(event, into: &output)
    }
    for event in typing.releaseAll() {
      sent.append(OutputKey(code: event.code, value: event.value))
      engine.handle(event, into: &output)
    }
    emitted = output.events
    #expect(emitted == sent, "seed \(seed)")
    #expect(engine.nextDeadline == nil)
  }

  @Test(arguments: ["us", "de", "fr"], 0..<100)
  func withEveryAidOnNoKeyStaysHeldOnceAllAreReleased(layoutName: String, seed: Int) {
    let engine = Engine(layout: Layouts.named(layoutName), world: .testing)
    var typing = RandomTyping(seed: UInt64(seed) &* 7919)
    _ = typing.type(on: engine, steps: 300)
    #expect(engine.heldOutputKeys.isEmpty, "\(layoutName) seed \(seed): held \(engine.heldOutputKeys)")
    #expect(engine.nextDeadline == nil)
  }

  /// An engine driven the daemon's way, each event handed out before its
  /// bookkeeping, types exactly what one handling each event whole types,
  /// with every aid, snippets and the timers in between: whatever reads the
  /// state settles it first, so even a caller that never calls settle()
  /// gets the same keys and, once settled, the same text.
  @Test(arguments: ["us", "de"], 0..<100)
  func handingOutBeforeSettlingChangesNothing(layoutName: String, seed: Int) {
    let snippets = SnippetMatcher([
      Snippet(trigger: "as", replace: "[as]"), Snippet(trigger: "tea", replace: "T E A\n"),
    ])
    let whole = Engine(layout: Layouts.named(layoutName), snippets: snippets, world: .testing)
    let touchDown = Engine(layout: Layouts.named(layoutName), snippets: snippets, world: .testing)
    var typing = RandomTyping(seed: UInt64(seed) &* 104_729)
    var wholeOutput = KeyOutput()
    var touchDownOutput = KeyOutput()
    for _ in 0..<400 {
      let event = typing.next(withRepeats: true)
      while let due = whole.nextDeadline, due <= typing.time {
        whole.advance(to: due, into: &wholeOutput)
        touchDown.advance(to: due, into: &touchDownOutput)
      }
      guard let event else { continue }
      whole.handle(event, into: &wholeOutput)
      touchDown.handleBeforeSettling(event, into: &touchDownOutput)
    }
    #expect(touchDownOutput.events == wholeOutput.events, "\(layoutName) seed \(seed)")
    touchDown.settle()
    #expect(touchDown.text.text == whole.text.text, "\(layoutName) seed \(seed)")
    #expect(touchDown.nextDeadline == whole.nextDeadline)
  }
}

/// An app rule changes the engine's configuration whenever the focus moves,
/// while keys are held, Backspace repeats or an expansion is being typed.
@Suite struct ConfigurationChangeTests {
  /// The settings an app rule can change, in every combination.
  static let configurations: [EngineConfiguration] = (0..<32).map { bits in
    var configuration = EngineConfiguration()
    configuration.enabled = bits & 1 == 0
    configuration.autocapitalize = bits & 2 == 0
    configuration.doubleSpacePeriod = bits & 4 == 0
    configuration.expandsSnippets = bits & 8 == 0
    configuration.backspace.accelerate = bits & 16 == 0
    return configuration
  }

  @Test(arguments: ["us", "de"], 0..<100)
  func noKeyStaysHeldWhateverTheFocusDoes(layoutName: String, seed: Int) {
    let snippets = SnippetMatcher([
      Snippet(trigger: "as", replace: "[as]"), Snippet(trigger: "tea", replace: "T E A\nand more text"),
    ])
    let engine = Engine(layout: Layouts.named(layoutName), snippets: snippets, world: .testing)
    var typing = RandomTyping(seed: UInt64(seed) &* 6_700_417)
    var generator = SplitMix64(seed: UInt64(seed))
    let output = typing.type(on: engine, steps: 400) {
      if Int.random(in: 0..<10, using: &generator) == 0 {
        engine.configuration = Self.configurations.randomElement(using: &generator)!
        engine.resetText()
      }
    }
    #expect(engine.heldOutputKeys.isEmpty, "\(layoutName) seed \(seed): held \(engine.heldOutputKeys)")
    #expect(engine.nextDeadline == nil)
    // Every release follows its press on the output.
    var down = Set<UInt16>()
    for key in output {
      if key.value == .up {
        #expect(down.remove(key.code) != nil, "seed \(seed): \(key.code) released while up")
      } else {
        down.insert(key.code)
      }
    }
  }

  @Test func disabledIsAPurePassThroughAndSnippetsOffKeepsTheAids() {
    let snippets = SnippetMatcher([Snippet(trigger: "qq", replace: "expanded")])
    var off = EngineConfiguration()
    off.enabled = false
    let disabled = Engine(layout: Layouts.us, configuration: off, snippets: snippets, world: .testing)
    var noSnippets = EngineConfiguration()
    noSnippets.expandsSnippets = false
    let aidsOnly = Engine(layout: Layouts.us, configuration: noSnippets, snippets: snippets, world: .testing)
    for engine in [disabled, aidsOnly] {
      var output = KeyOutput()
      var sent: [OutputKey] = []
      var time = Instant.milliseconds(0)
      // "x ok.  qq" then Enter, "b": a sentence end, a double space, a trigger, a new line.
      for code in [KEY_X, KEY_SPACE, KEY_O, KEY_K, KEY_DOT, KEY_SPACE, KEY_SPACE, KEY_Q, KEY_Q, KEY_ENTER, KEY_B] {
        for value in [KeyValue.down, .up] {
          time = time.adding(milliseconds: 100)
          sent.append(OutputKey(code: UInt16(code), value: value))
          engine.handle(KeyEvent(code: UInt16(code), value: value, time: time), into: &output)
        }
      }
      if engine === disabled {
        #expect(output.events == sent)
        #expect(engine.text.text.isEmpty, "a disabled engine decodes nothing")
      } else {
        #expect(output.events.contains(OutputKey(code: UInt16(KEY_LEFTSHIFT), value: .down)), "capitals still come")
        #expect(engine.text.text.hasSuffix("ok.  Qq\nB"), "not expanded: \(engine.text.text)")
      }
    }
  }
}
