import AgentProtocol
import Testing

@testable import vkbd_agent

/// The GNOME Shell extension's field reports, as the agent reads them.
@Suite struct ShellFieldTests {
  typealias Field = ShellBridge.ShellField

  static func report(_ field: Field) -> Result<FieldReport, ShellBridge.RefusedField> {
    ShellBridge.report(for: field, source: "gnome-shell")
  }

  /// What the extension sent in GNOME Shell 43.9 for fields_app.py's
  /// fields (the agent's debug log of make desktop-test): Clutter's purpose
  /// and hints, which mutter passes on from GTK 3 and GTK 4 alike.
  @Test(arguments: [
    (UInt32(0), UInt32(0), FieldRole.entry),  // an entry, and GTK 4.8's text view (no multi-line hint)
    (8, 192, .password),  // a password entry
    (0, 192, .password),  // a PIN entry: mutter makes text-input-v3's PIN normal
    (0, 0x200, .text), (12, 0, .terminal), (5, 0, .url), (6, 0, .email), (2, 0, .number), (9, 0, .number),
  ])
  func clutterContentTypesGiveTheRole(purpose: UInt32, hints: UInt32, role: FieldRole) {
    #expect(ContentType.clutter(purpose: purpose, hints: hints) == role)
  }

  @Test(arguments: [
    (UInt32(0), FieldRole.text), (8, .password), (9, .pin), (10, .terminal), (5, .url), (6, .email), (2, .number),
    (7, .text),
  ])
  func ibusPurposesGiveTheRole(purpose: UInt32, role: FieldRole) {
    #expect(ContentType.ibus(purpose: purpose, hints: 0) == role)
    #expect(ContentType.ibus(purpose: 11, hints: 0) == nil)
  }

  @Test func anEntryIsReportedWithItsText() throws {
    let field = Field(kind: "input-method", purpose: 0, hints: 0, before: "Grüße 😀. Thanks", isFieldStart: true)
    let expected = FieldReport(source: "gnome-shell", role: .entry, before: "Grüße 😀. Thanks", isFieldStart: true)
    #expect(try Self.report(field).get() == expected)
  }

  @Test func aSecretFieldsTextIsNeverPassedOn() throws {
    for (purpose, hints) in [(UInt32(8), UInt32(0)), (0, 0x40), (0, 0x80)] {
      let field = Field(kind: "input-method", purpose: purpose, hints: hints, before: "hunter2", isFieldStart: true)
      #expect(try Self.report(field).get() == FieldReport(source: "gnome-shell", role: .password))
    }
  }

  @Test func noKindIsNoField() throws {
    let field = Field(kind: "", purpose: 8, hints: 0, before: nil, isFieldStart: false)
    #expect(try Self.report(field).get() == FieldReport(source: "gnome-shell"))
  }

  @Test func anIBusClientsFieldHasARoleAndNoText() throws {
    let field = Field(kind: "ibus", purpose: 8, hints: 0, before: nil, isFieldStart: false)
    #expect(try Self.report(field).get() == FieldReport(source: "gnome-shell", role: .password))
  }

  @Test(arguments: [
    (Field(kind: "clipboard", purpose: 0, hints: 0, before: nil, isFieldStart: false), ShellBridge.RefusedField.kind),
    (Field(kind: "input-method", purpose: 13, hints: 0, before: "x", isFieldStart: true), .purpose),
    (
      Field(
        kind: "input-method", purpose: 0, hints: 0, before: String(repeating: "é", count: 257), isFieldStart: false),
      .text
    ),
  ])
  func aBadReportIsRefused(field: Field, why: ShellBridge.RefusedField) {
    #expect(throws: why) { try Self.report(field).get() }
  }

  @Test func aNewPurposeWithSecretHintsIsAPassword() throws {
    let field = Field(kind: "input-method", purpose: 13, hints: 0xC0, before: "x", isFieldStart: true)
    #expect(try Self.report(field).get() == FieldReport(source: "gnome-shell", role: .password))
  }
}

/// Several field sources as one: the better one's field while it has one.
@Suite struct FieldSourcesTests {
  final class Stub: FieldSource {
    let name: String
    var onField: (FieldReport) -> Void = { _ in }
    var pollFD: Int32? { nil }
    init(_ name: String) { self.name = name }
    func readable() {}
  }

  @Test func theFirstSourceWithAFieldWins() {
    let (shell, accessibility) = (Stub("gnome-shell"), Stub("at-spi"))
    let sources = FieldSources([shell, accessibility])
    var passed: [FieldReport] = []
    sources.onField = { passed.append($0) }
    #expect(sources.name == "gnome-shell+at-spi")
    // A Qt 5 field, which only AT-SPI sees.
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "Qt"))
    // A GTK 4 field: the Shell's input method sees it; AT-SPI's is old now.
    shell.onField(FieldReport(source: "gnome-shell", role: .password))
    // The GTK 4 window's button: no field; AT-SPI's old Qt field does not come back.
    shell.onField(FieldReport(source: "gnome-shell"))
    accessibility.onField(FieldReport(source: "at-spi", role: .text, before: "again"))
    #expect(
      passed == [
        FieldReport(source: "at-spi", role: .entry, before: "Qt"), FieldReport(source: "gnome-shell", role: .password),
        FieldReport(source: "gnome-shell"), FieldReport(source: "at-spi", role: .text, before: "again"),
      ])
    // The same report again is not passed on.
    accessibility.onField(FieldReport(source: "at-spi", role: .text, before: "again"))
    #expect(passed.count == 4)
  }

  /// The field a source told of before anyone listened (sway tells the
  /// focused field as the agent connects) reaches the listener.
  @Test func aFieldToldBeforeTheListenerCameIsPassedToIt() {
    let method = Stub("input-method")
    let sources = FieldSources([method])
    method.onField(FieldReport(source: "input-method", role: .text, before: "", isFieldStart: true))
    var passed: [FieldReport] = []
    sources.onField = { passed.append($0) }
    #expect(passed == [FieldReport(source: "input-method", role: .text, before: "", isFieldStart: true)])
  }
}

/// IBus tells the role of a field and AT-SPI its text: one report of both.
@Suite struct RoleAndTextTests {
  typealias Stub = FieldSourcesTests.Stub

  @Test func aRoleWithoutTextTakesTheTextReadSince() {
    let (ibus, accessibility) = (Stub("ibus"), Stub("at-spi"))
    let sources = FieldSources([ibus, accessibility])
    var passed: [FieldReport] = []
    sources.onField = { passed.append($0) }
    ibus.onField(FieldReport(source: "ibus"))
    // The focus moves to an entry: AT-SPI hears of it first, then IBus.
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "Thanks", isFieldStart: true))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(passed.last == FieldReport(source: "ibus", role: .text, before: "Thanks", isFieldStart: true))
    // A field AT-SPI does not see (Firefox's): its old text is not taken.
    ibus.onField(FieldReport(source: "ibus"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(passed.last == FieldReport(source: "ibus", role: .text))
    // Typing in it: AT-SPI's text again.
    accessibility.onField(FieldReport(source: "at-spi", role: .text, before: "Hi", isFieldStart: true))
    #expect(passed.last == FieldReport(source: "ibus", role: .text, before: "Hi", isFieldStart: true))
  }

  @Test func aSecretOnEitherSideWins() {
    let (ibus, accessibility) = (Stub("ibus"), Stub("at-spi"))
    let sources = FieldSources([ibus, accessibility])
    var passed: [FieldReport] = []
    sources.onField = { passed.append($0) }
    ibus.onField(FieldReport(source: "ibus"))
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "hunter2"))
    ibus.onField(FieldReport(source: "ibus", role: .password))
    #expect(passed.last == FieldReport(source: "ibus", role: .password))
    // Qt 5 tells IBus no purpose; AT-SPI (accessibility on) knows better.
    ibus.onField(FieldReport(source: "ibus"))
    accessibility.onField(FieldReport(source: "at-spi", role: .password))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(passed.last == FieldReport(source: "at-spi", role: .password))
  }
}

/// Where the agent finds the session's ibus-daemon.
@Suite struct IBusAddressTests {
  @Test(arguments: [
    (nil, ":0", "c/bus/m-unix-0"), (nil, ":1.0", "c/bus/m-unix-1"), (nil, "host:10.0", "c/bus/m-host-10"),
    ("wayland-0", ":0", "c/bus/m-unix-wayland-0"), (nil, nil, "c/bus/m-unix-0"),
  ])
  func theAddressFileIsNamedAsIBusNamesIt(wayland: String?, x11: String?, file: String) {
    #expect(IBusSource.addressFile(in: "c", machine: "m", wayland: wayland, x11: x11) == file)
  }
}
