import AgentProtocol
import Testing

@testable import SessionAgent

/// What the input method makes of the state the compositor sends.
@Suite struct InputMethodTests {
  @Test(arguments: [
    (UInt32(8), UInt32(0), FieldRole.password), (9, 0, .pin), (13, 0, .terminal), (5, 0, .url), (6, 0, .email),
    (3, 0, .number), (4, 0, .number), (0, 0, .entry), (0, 0x200, .text), (7, 0x200, .text),
    // Hidden text or sensitive data makes any field secret; a PIN stays one.
    (0, 0x40, .password), (0, 0x80 | 0x200, .password), (3, 0xC0, .password), (9, 0xC0, .pin),
    // What GTK 4.8 sent on sway and GNOME (WAYLAND_DEBUG): a password and a PIN entry.
    (8, 192, .password), (9, 192, .pin),
  ])
  func theContentTypeGivesTheRole(purpose: UInt32, hint: UInt32, role: FieldRole) {
    #expect(ContentType.textInputV3(purpose: purpose, hints: hint) == role)
  }

  @Test func aPurposeOfANewerProtocolIsUnknownUnlessTheHintsSaySecret() {
    #expect(ContentType.textInputV3(purpose: 14, hints: 0) == nil)
    #expect(ContentType.textInputV3(purpose: 14, hints: 0x40) == .password)
    #expect(
      InputMethodSource.report(for: Self.state(Array("x".utf8), cursor: 1, purpose: 14), source: "im") == .some(nil))
  }

  static func state(_ text: [UInt8]?, cursor: Int, purpose: UInt32 = 0) -> InputMethodSource.State {
    InputMethodSource.State(active: true, surrounding: text, cursor: cursor, purpose: purpose, hint: 0x200)
  }

  @Test func theTextBeforeTheCursorIsReported() {
    let report = InputMethodSource.report(for: Self.state(Array("Grüß dich. Wie".utf8), cursor: 13), source: "im")
    #expect(report == FieldReport(source: "im", role: .text, before: "Grüß dich. ", isFieldStart: true))
  }

  @Test func aSecretFieldsTextIsNeverReported() {
    let report = InputMethodSource.report(for: Self.state(Array("hunter2".utf8), cursor: 7, purpose: 8), source: "im")
    #expect(report == FieldReport(source: "im", role: .password))
  }

  @Test func noFieldIsReportedWhenInactive() {
    #expect(InputMethodSource.report(for: InputMethodSource.State(), source: "im") == FieldReport(source: "im"))
  }

  @Test(arguments: [
    ([UInt8(0x61), 0xFF, 0x62], 3),  // not UTF-8
    (Array("abc".utf8), 4),  // the cursor past the end
    (Array("ü".utf8), 1),  // the cursor inside a character
  ])
  func badTextIsRefusedAndTheLastReportStays(text: [UInt8], cursor: Int) {
    let report = InputMethodSource.report(for: Self.state(text, cursor: cursor), source: "im")
    #expect(report == .some(nil))
  }

  @Test func aLongTextIsNotTheFieldsStart() {
    let text = Array(String(repeating: "a", count: InputMethodSource.clippedText).utf8)
    let report = InputMethodSource.report(for: Self.state(text, cursor: text.count), source: "im")
    #expect(report??.isFieldStart == false)
  }
}
