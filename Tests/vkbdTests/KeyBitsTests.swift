import CEvdev
import Testing

@testable import VKBDDaemon

/// sysfs `capabilities/key`, as the kernel writes it: hex words of a C
/// `long`, the most significant first, leading zero words left out.
@Suite struct KeyBitsTests {
  /// The AT keyboard of the test VM: Escape through the keypad and more.
  static let keyboard = "402000000 3803078f800d001 feffffdfffefffff fffffffffffffffe"
  /// A mouse: BTN_LEFT (0x110) through BTN_EXTRA.
  static let mouse = "1f0000 0 0 0 0"
  /// The power button: KEY_POWER (116) only.
  static let powerButton = "10000000000000 0"

  @Test func aKeyboardHasEveryLetter() throws {
    let keys = try #require(Udev.KeyBits(sysfs: Self.keyboard))
    #expect(EvdevDevice.isKeyboard(hasKey: keys.contains))
    #expect(keys.contains(KEY_ESC) && !keys.contains(BTN_LEFT) && !keys.contains(KEY_RESERVED))
  }

  @Test func aMouseHasTheLeftButtonAndNoLetter() throws {
    let keys = try #require(Udev.KeyBits(sysfs: Self.mouse))
    #expect(keys.contains(BTN_LEFT) && keys.contains(BTN_EXTRA) && !keys.contains(BTN_TASK) && !keys.contains(KEY_A))
  }

  @Test func thePowerButtonHasOnlyItsKey() throws {
    let keys = try #require(Udev.KeyBits(sysfs: Self.powerButton))
    #expect(keys.contains(KEY_POWER))
    #expect((0..<Int32(KEY_CNT)).filter { keys.contains($0) } == [KEY_POWER])
  }

  @Test(arguments: ["", "0", "zz 1", "1 2 x"])
  func textThatIsNotHexWordsIsNoAnswer(text: String) {
    let keys = Udev.KeyBits(sysfs: text)
    #expect(keys == nil || (0..<Int32(KEY_CNT)).allSatisfy { !keys!.contains($0) })
  }
}
