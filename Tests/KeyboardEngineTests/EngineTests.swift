import AllocationCounter
import CEvdev
import Testing

@testable import KeyboardEngine

/// Feeds an engine key events on a clock and keeps what it emits.
struct EngineDriver {
  let engine: Engine
  var output = KeyOutput()
  var emitted: [OutputKey] = []
  var time = Instant.milliseconds(1000)

  init(layout: Layout = Layouts.us, configuration: EngineConfiguration = .allOff) {
    engine = Engine(layout: layout, configuration: configuration)
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
    #expect(driver.engine.text.text == "H")
  }

  @Test func aKeyHeldOnTwoDevicesIsPressedOnceAndReleasedWithTheLast() {
    var driver = EngineDriver()
    driver.send(KEY_A, .down, device: 1)
    driver.send(KEY_A, .down, device: 2)
    driver.send(KEY_A, .up, device: 1)
    #expect(driver.engine.isHeldOnOutput(UInt16(KEY_A)))
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

  @Test func aPlainKeystrokeAllocatesNothing() {
    let engine = Engine(layout: Layouts.us, configuration: .allOff)
    var output = KeyOutput()
    var events: [KeyEvent] = []
    for (index, key) in [KEY_H, KEY_E, KEY_L, KEY_O, KEY_SPACE, KEY_LEFTSHIFT, KEY_W].enumerated() {
      let time = Instant.milliseconds(Int64(index) * 60)
      events.append(KeyEvent(code: UInt16(key), value: .down, time: time))
      events.append(KeyEvent(code: UInt16(key), value: .up, time: time.adding(milliseconds: 30)))
    }
    // Plain index loops: in a debug build a for-in loop's generic iterator
    // allocates by itself. The first round warms up per-thread runtime state.
    var round = 0
    var allocations = 0
    while round < 1001 {
      if round == 1 { AllocationCounter_start() }
      var index = 0
      while index < events.count {
        engine.handle(events[index], into: &output)
        output.removeAll()
        index += 1
      }
      round += 1
    }
    allocations = AllocationCounter_stop()
    #expect(allocations == 0)
    #expect(engine.text.count > 0)
  }
}
