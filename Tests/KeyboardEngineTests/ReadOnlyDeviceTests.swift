import CKeyboard
import Testing

@testable import KeyboardEngine

@Suite struct ReadOnlyDeviceTests {
  /// "done. " typed, then `elsewhere` pressed on a device vkbd only reads,
  /// then n: what the letter became.
  func letterAfter(_ elsewhere: Int32) -> [OutputKey] {
    var driver = EngineDriver(configuration: EngineConfiguration())
    for code in [KEY_D, KEY_O, KEY_N, KEY_E, KEY_DOT, KEY_SPACE] { driver.tap(code) }
    driver.engine.keyPressedElsewhere(UInt16(elsewhere))
    driver.emitted = []
    driver.tap(KEY_N)
    return driver.emitted
  }

  @Test func aDigitOnAKeypadForgetsTheSentenceEnd() {
    // The digit reached the application beside vkbd: "done. 1n", no capital.
    #expect(
      letterAfter(KEY_KP1) == [
        OutputKey(code: UInt16(KEY_N), value: .down), OutputKey(code: UInt16(KEY_N), value: .up),
      ]
    )
    #expect(letterAfter(KEY_LEFT).count == 2)  // the cursor moved
  }

  @Test func aModifierOrLockThereChangesNothing() {
    // Num Lock on the keypad: the capital stays due.
    #expect(letterAfter(KEY_NUMLOCK).contains(OutputKey(code: UInt16(KEY_LEFTSHIFT), value: .down)))
    #expect(letterAfter(KEY_LEFTSHIFT).contains(OutputKey(code: UInt16(KEY_LEFTSHIFT), value: .down)))
  }
}
