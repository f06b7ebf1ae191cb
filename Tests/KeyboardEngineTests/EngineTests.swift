import AllocationCounter
import CKeyboard
import TestSupport
import Testing

@testable import KeyboardEngine

/// Feeds an engine key events on a clock and keeps what it emits.
struct EngineDriver {
  let engine: Engine
  var output = KeyOutput()
  var emitted: [OutputKey] = []
  var time = Instant.milliseconds(1000)

  init(layout: Layout = Layouts.us, configuration: EngineConfiguration = .allOff) {
    engine = Engine(layout: layout, configuration: configuration, world: .testing)
  }

  init(engine: Engine) { self.engine = engine }

  /// Runs the engine's timers due at `deadline`.
  mutating func advance(to deadline: Instant) {
    if deadline > time { time = deadline }
    engine.advance(to: deadline, into: &output)
    flush()
  }

  /// Keeps what the engine wrote into `output` outside `send`.
  mutating func flush() {
    emitted += output.events
    output.removeAll()
  }

  mutating func send(_ code: Int32, _ value: KeyValue, device: Int32 = 0) {
    time = time.adding(milliseconds: 10)
    engine.handle(KeyEvent(code: UInt16(code), value: value, time: time, device: DeviceID(device)), into: &output)
    emitted += output.events
    output.removeAll()
  }

  mutating func tap(_ code: Int32) {
    send(code, .down)
    send(code, .up)
  }
}

@Suite struct EngineTests {
  @Test func passesKeysThroughInOrderOnTheSameCall() {
    var driver = EngineDriver()
    driver.send(KEY_LEFTSHIFT, .down)
    #expect(driver.emitted == [OutputKey(code: UInt16(KEY_LEFTSHIFT), value: .down)])
    driver.tap(KEY_H)
    driver.send(KEY_LEFTSHIFT, .up)
    #expect(
      driver.emitted == [
        OutputKey(code: UInt16(KEY_LEFTSHIFT), value: .down), OutputKey(code: UInt16(KEY_H), value: .down),
        OutputKey(code: UInt16(KEY_H), value: .up), OutputKey(code: UInt16(KEY_LEFTSHIFT), value: .up),
      ])
  }

  @Test func theTextIsDecodedOnlyWhenAnAidOrASnippetNeedsIt() {
    let plain = Engine(layout: Layouts.us, configuration: .allOff, world: .testing)
    let withSnippet = Engine(
      layout: Layouts.us, configuration: .allOff, snippets: SnippetMatcher([Snippet(trigger: ";x", replace: "y")]),
      world: .testing)
    for engine in [plain, withSnippet] {
      var output = KeyOutput()
      for (code, value) in [(KEY_LEFTSHIFT, KeyValue.down), (KEY_H, .down), (KEY_H, .up), (KEY_LEFTSHIFT, .up)] {
        engine.handle(KeyEvent(code: UInt16(code), value: value, time: .milliseconds(0)), into: &output)
      }
    }
    #expect(plain.text.text == "")
    #expect(withSnippet.text.text == "H")
    // Turned on later, an aid starts from the keymap state of the keys held.
    var output = KeyOutput()
    plain.handle(KeyEvent(code: UInt16(KEY_LEFTSHIFT), value: .down, time: .milliseconds(1)), into: &output)
    plain.configuration = EngineConfiguration()
    plain.handle(KeyEvent(code: UInt16(KEY_J), value: .down, time: .milliseconds(2)), into: &output)
    #expect(plain.text.text == "J")
  }

  @Test func aKeyHeldOnTwoDevicesIsPressedOnceAndReleasedWithTheLast() {
    var driver = EngineDriver()
    driver.send(KEY_A, .down, device: 1)
    driver.send(KEY_A, .down, device: 2)
    driver.send(KEY_A, .up, device: 1)
    #expect(driver.engine.heldOutputKeys.contains(UInt16(KEY_A)))
    driver.send(KEY_A, .up, device: 2)
    #expect(driver.emitted.map(\.value) == [.down, .up])
  }

  @Test func aReleaseOfAKeyNeverPressedIsDropped() {
    var driver = EngineDriver()
    driver.send(KEY_B, .up)
    #expect(driver.emitted.isEmpty)
  }

  @Test func autoRepeatIsLeftToTheDesktopAndMakesTheTextUnknown() {
    var driver = EngineDriver()
    driver.tap(KEY_A)
    driver.send(KEY_B, .down)
    driver.send(KEY_B, .repeat)
    driver.send(KEY_B, .up)
    #expect(driver.emitted.allSatisfy { $0.value != .repeat })
    #expect(driver.engine.text.isEmpty)
  }

  @Test(arguments: [KEY_LEFT, KEY_HOME, KEY_END, KEY_PAGEUP, KEY_DOWN, KEY_TAB, KEY_ESC, KEY_INSERT])
  func navigationKeysResetTheTextModel(key: Int32) {
    var driver = EngineDriver()
    driver.tap(KEY_A)
    driver.tap(key)
    #expect(driver.engine.text.isEmpty)
  }

  @Test(arguments: [KEY_LEFTCTRL, KEY_LEFTALT, KEY_LEFTMETA, KEY_RIGHTCTRL])
  func chordsWithShortcutModifiersResetTheTextModel(modifier: Int32) {
    var driver = EngineDriver()
    driver.tap(KEY_A)
    driver.send(modifier, .down)
    driver.tap(KEY_V)
    driver.send(modifier, .up)
    #expect(driver.engine.text.isEmpty)
  }

  @Test func releaseAllLiftsEveryHeldKey() {
    var driver = EngineDriver()
    driver.send(KEY_LEFTSHIFT, .down)
    driver.send(KEY_A, .down)
    driver.engine.releaseAll(into: &driver.output)
    #expect(driver.engine.heldOutputKeys.isEmpty)
    #expect(driver.output.events.count == 2 && driver.output.events.allSatisfy { $0.value == .up })
    driver.output.removeAll()
    driver.send(KEY_A, .up)
    #expect(driver.output.events.isEmpty)
  }

  /// Events typing `keys` one every 60 ms, each held 30 ms.
  static func typing(_ keys: [Int32]) -> [KeyEvent] {
    var events: [KeyEvent] = []
    for (index, key) in keys.enumerated() {
      let time = Instant.milliseconds(Int64(index) * 60)
      events.append(KeyEvent(code: UInt16(key), value: .down, time: time))
      events.append(KeyEvent(code: UInt16(key), value: .up, time: time.adding(milliseconds: 30)))
    }
    return events
  }

  /// Counts the allocations of 1000 rounds of `events` after one warm-up round.
  /// Plain index loops: in a debug build a for-in loop's generic iterator
  /// allocates by itself.
  static func allocations(typing events: [KeyEvent], on engine: Engine) -> Int {
    var output = KeyOutput()
    var round = 0
    var offset: Int64 = 0
    while round < 1001 {
      if round == 1 { AllocationCounter_start() }
      var index = 0
      while index < events.count {
        var event = events[index]
        event.time.microseconds += offset
        while let due = engine.nextDeadline, due < event.time { engine.advance(to: due, into: &output) }
        engine.handle(event, into: &output)
        output.removeAll()
        index += 1
      }
      offset += 10_000_000
      round += 1
    }
    return AllocationCounter_stop()
  }

  @Test func aPlainKeystrokeAllocatesNothing() {
    let engine = Engine(layout: Layouts.us, configuration: .allOff, world: .testing)
    let events = Self.typing([KEY_H, KEY_E, KEY_L, KEY_O, KEY_SPACE, KEY_LEFTSHIFT, KEY_W])
    #expect(Self.allocations(typing: events, on: engine) == 0)
    #expect(engine.text.isEmpty)  // nothing needs the text: the keys go out undecoded
  }

  @Test func typingWithEveryAidAllocatesNothing() {
    let engine = Engine(layout: Layouts.de, world: .testing)
    // "hi.  so" with a double-space period, an auto-capital, an undo, and a held Backspace.
    var events = Self.typing([
      KEY_H, KEY_I, KEY_DOT, KEY_SPACE, KEY_SPACE, KEY_S, KEY_O, KEY_SPACE, KEY_SPACE, KEY_BACKSPACE, KEY_A,
      KEY_DOT, KEY_SPACE, KEY_W, KEY_BACKSPACE, KEY_W,
    ])
    let start = Instant.milliseconds(2000)
    events.append(KeyEvent(code: UInt16(KEY_BACKSPACE), value: .down, time: start))
    events.append(KeyEvent(code: UInt16(KEY_BACKSPACE), value: .repeat, time: start.adding(milliseconds: 250)))
    events.append(KeyEvent(code: UInt16(KEY_BACKSPACE), value: .up, time: start.adding(milliseconds: 2500)))
    #expect(Self.allocations(typing: events, on: engine) == 0)
    #expect(engine.text.isEmpty)  // the held Backspace deleted it all
  }

  @Test func typingWithTenThousandSnippetsLoadedAllocatesNothing() {
    let engine = Engine(layout: Layouts.us, snippets: randomSnippets(10_000), world: .testing)
    let events = Self.typing([KEY_H, KEY_E, KEY_L, KEY_L, KEY_O, KEY_SPACE, KEY_W, KEY_O, KEY_R, KEY_L, KEY_D])
    #expect(Self.allocations(typing: events, on: engine) == 0)
    #expect(engine.text.count > 0)
  }

  @Test func pausedTheEngineIsAPurePassThrough() {
    var driver = EngineDriver(configuration: EngineConfiguration())
    driver.engine.isPaused = true
    for key in [KEY_H, KEY_I, KEY_DOT, KEY_SPACE, KEY_SPACE, KEY_W] { driver.tap(key) }
    #expect(
      driver.emitted.filter { $0.value == .down }.map(\.code)
        == [KEY_H, KEY_I, KEY_DOT, KEY_SPACE, KEY_SPACE, KEY_W].map(UInt16.init))
  }

  @Test func theToggleChordPausesAndResumesAndNeverReachesTheApplication() {
    var configuration = EngineConfiguration()
    configuration.toggleChord = [KeyCode.rightCtrl, UInt16(KEY_PAUSE)]
    var driver = EngineDriver(configuration: configuration)
    driver.send(KEY_RIGHTCTRL, .down)
    driver.tap(KEY_PAUSE)
    driver.send(KEY_RIGHTCTRL, .up)
    #expect(driver.engine.isPaused)
    #expect(!driver.emitted.contains { $0.code == UInt16(KEY_PAUSE) })
    #expect(driver.emitted.map(\.code) == [KeyCode.rightCtrl, KeyCode.rightCtrl])
    driver.send(KEY_RIGHTCTRL, .down)
    driver.tap(KEY_PAUSE)
    driver.send(KEY_RIGHTCTRL, .up)
    #expect(!driver.engine.isPaused)
    driver.tap(KEY_PAUSE)  // alone it is an ordinary key
    #expect(driver.emitted.filter { $0.code == UInt16(KEY_PAUSE) }.count == 2)
  }

  @Test func theShiftPressedForACapitalGoesUpRightAfterTheCapital() {
    var driver = EngineDriver(configuration: EngineConfiguration())
    for key in [KEY_H, KEY_I, KEY_DOT, KEY_SPACE, KEY_W] { driver.tap(key) }
    #expect(
      driver.emitted.suffix(4) == [
        OutputKey(code: KeyCode.leftShift, value: .down), OutputKey(code: UInt16(KEY_W), value: .down),
        OutputKey(code: KeyCode.leftShift, value: .up), OutputKey(code: UInt16(KEY_W), value: .up),
      ])
    #expect(driver.engine.heldOutputKeys.isEmpty)
  }
}

/// A reload's engine takes over from the one before: what the keyboard
/// holds stays held, with nothing typed, lifted or pressed again.
@Suite struct TakeOverTests {
  @Test func keysHeldThroughAReloadTypeNothingAndTheirReleaseGoesOut() {
    var before = EngineDriver(configuration: EngineConfiguration())
    before.send(KEY_LEFTSHIFT, .down)
    before.send(KEY_A, .down)
    before.tap(KEY_CAPSLOCK)
    #expect(
      before.emitted.map(\.code) == [UInt16(KEY_LEFTSHIFT), UInt16(KEY_A), UInt16(KEY_CAPSLOCK), UInt16(KEY_CAPSLOCK)])
    var after = EngineDriver(engine: Engine(layout: Layouts.us, configuration: EngineConfiguration(), world: .testing))
    after.engine.takeOver(from: before.engine)
    #expect(after.emitted.isEmpty)
    #expect(after.engine.heldOutputKeys == [UInt16(KEY_A), UInt16(KEY_LEFTSHIFT)])
    after.send(KEY_A, .up)
    after.send(KEY_LEFTSHIFT, .up)
    #expect(
      after.emitted == [OutputKey(code: UInt16(KEY_A), value: .up), OutputKey(code: UInt16(KEY_LEFTSHIFT), value: .up)])
    #expect(after.engine.heldOutputKeys.isEmpty)
    // Caps Lock came along: a letter types its capital, as before.
    after.tap(KEY_B)
    #expect(after.engine.text.text.hasSuffix("B"))
  }

  @Test func theTextBeforeTheCursorAndThePauseComeAlong() {
    var before = EngineDriver(configuration: EngineConfiguration())
    for key in [KEY_H, KEY_I, KEY_DOT, KEY_SPACE] { before.tap(key) }
    before.engine.isPaused = true
    let after = Engine(layout: Layouts.us, configuration: EngineConfiguration(), world: .testing)
    after.takeOver(from: before.engine)
    #expect(after.text.text == "hi. " && after.isPaused)
  }
}
