import AgentProtocol
import Testing

@testable import SessionAgent

/// The agent as KWin's input method: what it sends for the field KWin
/// tells, how the agent reads that, and kwinrc.
@Suite struct KWinInputMethodTests {
  typealias State = InputMethodSource.State

  static func state(_ text: String?, cursor: Int? = nil, purpose: UInt32 = 0, hints: UInt32 = 0) -> State {
    State(
      active: true, surrounding: text.map { Array($0.utf8) }, cursor: cursor ?? text?.utf8.count ?? 0,
      purpose: purpose, hint: hints)
  }

  /// What KWin 5.27.5 sent for fields_app.py's GTK 3 fields and
  /// qt_fields_app.py's Qt 5 ones (make desktop-test, the agent's debug
  /// log): text-input-v1's values, a password's sensitive-data hint passed
  /// on as lowercase (0x48), a PIN as normal or digits.
  @Test(arguments: [
    (UInt32(0), UInt32(0), FieldRole.entry),  // GTK 3: an entry, and a text view (no multi-line hint)
    (8, 0x48, .password),  // GTK 3: a password entry
    (0, 0x48, .password),  // GTK 3: a PIN entry
    (0, 0x7, .entry),  // Qt 5: a line edit
    (0, 0x48, .password),  // Qt 5: a password line edit (normal, hidden)
    (2, 0x4F, .password),  // Qt 5: digits, hidden
    (0, 0x207, .text),  // Qt 5: a plain text edit
  ])
  func kwinsContentTypesGiveTheRole(purpose: UInt32, hints: UInt32, role: FieldRole) throws {
    let field = KWinInputMethod.field(for: Self.state("1234", purpose: purpose, hints: hints))
    let report = try ShellBridge.report(for: field, source: "kwin").get()
    #expect(report.role == role)
    #expect((report.before != nil) == (role != .password))
  }

  @Test func anEntrysTextBeforeTheCursorIsSentWhole() throws {
    // The cursor is a byte offset: "Grüße 😀." is 13 bytes.
    let field = KWinInputMethod.field(for: Self.state("Grüße 😀. Thanks", cursor: 13))
    #expect(
      field
        == ShellBridge.ShellField(kind: "input-method", purpose: 0, hints: 0, before: "Grüße 😀.", isFieldStart: true))
    let report = try ShellBridge.report(for: field, source: "kwin").get()
    #expect(report == FieldReport(source: "kwin", role: .entry, before: "Grüße 😀.", isFieldStart: true))
  }

  @Test func aLongTextSendsItsLastCharactersNotTheStart() {
    let text = String(repeating: "ä", count: 300)
    let field = KWinInputMethod.field(for: Self.state(text))
    #expect(field.before?.count == AgentProtocol.maximumFieldText)
    #expect(!field.isFieldStart)
  }

  @Test(arguments: [3, 99])  // inside "ü"; past the text
  func aCursorOutsideACharacterSendsTheRoleWithoutText(cursor: Int) {
    var told = 0
    let field = KWinInputMethod.field(for: Self.state("Grüße", cursor: cursor)) { told += 1 }
    #expect(field.kind == "input-method" && field.before == nil)
    #expect(told == 1)
  }

  @Test func noFieldIsAnEmptyKind() throws {
    let field = KWinInputMethod.field(for: State())
    #expect(field.kind.isEmpty && field.before == nil)
    #expect(try ShellBridge.report(for: field, source: "kwin").get() == FieldReport(source: "kwin"))
  }

  @Test func aSecretFieldsTextNeverLeaves() {
    #expect(KWinInputMethod.field(for: Self.state("hunter2", purpose: 8)).before == nil)
    #expect(KWinInputMethod.field(for: Self.state("hunter2", hints: 0x40)).before == nil)
    // A purpose no table knows: the agent would refuse it; no text either.
    #expect(KWinInputMethod.field(for: Self.state("hunter2", purpose: 40)).before == nil)
  }

  @Test func kwinrcNamesTheInputMethod() {
    #expect(KWinSetup.inputMethod(in: "") == .none)
    #expect(KWinSetup.inputMethod(in: "[Wayland]\nInputMethod=\n") == .none)
    #expect(
      KWinSetup.inputMethod(in: "[Wayland]\nInputMethod[$e]=/usr/share/applications/vkbd-agent-kwin.desktop\n")
        == .vkbd)
    let fcitx = "/usr/share/applications/org.fcitx.Fcitx5.desktop"
    #expect(KWinSetup.inputMethod(in: "[Wayland]\nInputMethod=\(fcitx)\n") == .other(fcitx))
    #expect(KWinSetup.inputMethod(in: "[Xwayland]\nInputMethod=\(fcitx)\n") == .none)
  }

  @Test func settingAKeyKeepsTheRestOfTheFile() {
    let kwinrc = """
      [Compositing]
      Backend=OpenGL

      [Wayland]
      InputMethod[$e]=/usr/share/applications/com.github.maliit.keyboard.desktop
      VirtualKeyboardEnabled=false

      [Windows]
      Placement=Centered

      """
    let set = KConfig.setting(
      ["InputMethod": "/x.desktop", "VirtualKeyboardEnabled": "true"], in: "Wayland", of: kwinrc)
    #expect(
      set == """
        [Compositing]
        Backend=OpenGL

        [Wayland]
        InputMethod=/x.desktop
        VirtualKeyboardEnabled=true

        [Windows]
        Placement=Centered

        """)
    #expect(KConfig.entries(of: "Windows", in: set) == ["Placement": "Centered"])
  }

  @Test func settingAKeyAddsItsSection() {
    #expect(
      KConfig.setting(["InputMethod": "/x.desktop"], in: "Wayland", of: "") == "[Wayland]\nInputMethod=/x.desktop\n")
    #expect(
      KConfig.setting(["InputMethod": "/x.desktop"], in: "Wayland", of: "[Windows]\nPlacement=Centered")
        == "[Windows]\nPlacement=Centered\n\n[Wayland]\nInputMethod=/x.desktop\n")
  }
}
