import AgentProtocol
import SystemPackage
import Testing

@testable import SessionAgent

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

  /// text-input's (and Clutter's) hints and IBus's, as the fields of a
  /// page ask: capitals (auto-capitalization, 0x4 / 64), none (lowercase,
  /// 0x8 / 8), correction (spellcheck, 0x2 / 1), none (IBus's no
  /// spellcheck, 2); no hint says nothing.
  @Test(arguments: [
    ("input-method", UInt32(0x7), true as Bool?, true as Bool?), ("input-method", 0x8, false, nil),
    ("input-method", 0x0, nil, nil), ("input-method", 0x200 | 0x4, true, nil), ("ibus", 64 | 1, true, true),
    ("ibus", 8 | 2, false, false), ("ibus", 0, nil, nil),
  ])
  func hintsSayWhatTheFieldAsks(kind: String, hints: UInt32, capitals: Bool?, correction: Bool?) throws {
    let report = try Self.report(Field(kind: kind, purpose: 0, hints: hints, before: nil, isFieldStart: false)).get()
    #expect(report.capitals == capitals && report.correction == correction)
    // A secret field's hints are not passed on: it gets no aids anyway.
    let secret = try Self.report(Field(kind: kind, purpose: 8, hints: hints, before: nil, isFieldStart: false)).get()
    #expect(secret.capitals == nil && secret.correction == nil)
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
    var pollFD: FileDescriptor? { nil }
    let freeFormMayBeSecret: Bool
    init(_ name: String, freeFormMayBeSecret: Bool = false) {
      self.name = name
      self.freeFormMayBeSecret = freeFormMayBeSecret
    }
    func readable() {}
    var rereads = 0
    func reread() { rereads += 1 }
    var focusChanges: Int?
    var readsStarted = 0
    var readAnswered: Int?
    var isConnected = true
  }

  @Test func theFirstSourceWithAFieldWins() {
    let (shell, accessibility) = (Stub("gnome-shell"), Stub("at-spi"))
    let sources = FieldSources([shell, accessibility])
    var passed: [FieldReport] = []
    sources.onField = { passed.append($0) }
    #expect(sources.name == "gnome-shell+at-spi")
    // A Qt 5 field, which only AT-SPI sees.
    sources.focusMoved(to: FocusReport(window: 1, app: "qt5-app"))
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "Qt"))
    // A GTK 4 field: the Shell's input method sees it; AT-SPI's is old now.
    sources.focusMoved(to: FocusReport(window: 2, app: "gtk4-app"))
    shell.onField(FieldReport(source: "gnome-shell", role: .password))
    // The GTK 4 window's button: no field; AT-SPI's old Qt field does not come back.
    shell.onField(FieldReport(source: "gnome-shell"))
    sources.focusMoved(to: FocusReport(window: 1, app: "qt5-app"))
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

  /// KWin: GTK's text view, then its button. AT-SPI tells of the text
  /// view after the input method left it, and hears of the button only
  /// later (or, after a duplicate focus event, never): in a window whose
  /// fields the input method sees, that is no field.
  @Test func aWorseSourcesFieldIsNoneWhereABetterOneSeesTheWindowsFields() {
    let (method, accessibility) = (Stub("kwin"), Stub("at-spi"))
    let sources = FieldSources([method, accessibility])
    var passed: [FieldReport] = []
    sources.onField = { passed.append($0) }
    sources.focusMoved(to: FocusReport(window: 1, app: "gtk3-app"))
    method.onField(FieldReport(source: "kwin", role: .entry, before: "Second. And"))
    method.onField(FieldReport(source: "kwin"))
    accessibility.onField(FieldReport(source: "at-spi", role: .text, before: "Second. And"))
    #expect(passed == [FieldReport(source: "kwin", role: .entry, before: "Second. And"), FieldReport(source: "kwin")])
    // A window of an application that speaks no text-input protocol: its
    // fields are AT-SPI's.
    sources.focusMoved(to: FocusReport(window: 2, app: "xwayland-app"))
    #expect(passed.last == FieldReport(source: "at-spi", role: .text, before: "Second. And"))
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "Xterm"))
    #expect(passed.last == FieldReport(source: "at-spi", role: .entry, before: "Xterm"))
    // X11: IBus told of a field of the window, then quit. Its word that
    // no field has the focus says nothing of the application's fields.
    sources.focusMoved(to: FocusReport(window: 3, app: "qt5-app"))
    method.onField(FieldReport(source: "kwin", role: .text))
    method.isConnected = false
    method.onField(FieldReport(source: "kwin"))
    accessibility.onField(FieldReport(source: "at-spi", role: .text, before: "Qt"))
    #expect(passed.last == FieldReport(source: "at-spi", role: .text, before: "Qt"))
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

/// A secret is a secret from every source, for as long as the field has
/// the focus; in a browser, IBus's free form alone may be a password.
@Suite struct SecretFieldTests {
  typealias Stub = FieldSourcesTests.Stub

  static func sources() -> (Stub, Stub, FieldSources, () -> [FieldReport]) {
    let (ibus, accessibility) = (Stub("ibus", freeFormMayBeSecret: true), Stub("at-spi"))
    let sources = FieldSources([ibus, accessibility])
    var passed: [FieldReport] = []
    sources.onField = { passed.append($0) }
    return (ibus, accessibility, sources, { passed })
  }

  /// Chromium on X11: IBus says free form for every field; AT-SPI calls the
  /// password field a password. Its show-password toggle makes IBus
  /// refocus the field, as text, while AT-SPI hears of no change.
  @Test func theShowPasswordToggleKeepsAFieldSecret() {
    let (ibus, accessibility, sources, passed) = Self.sources()
    sources.focusMoved(to: FocusReport(window: 1, app: "gedit"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    accessibility.onField(FieldReport(source: "at-spi", role: .password))
    let first = passed().count
    ibus.onField(FieldReport(source: "ibus"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    let reports = passed()
    #expect(reports[(first - 1)...].allSatisfy { $0.isSecret })
    #expect(passed().last == FieldReport(source: "at-spi", role: .password))
    // The focus moves to the user name's field: AT-SPI tells of it.
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "ann", isFieldStart: true))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, before: "ann", isFieldStart: true))
  }

  /// X11 with accessibility on: moving from a text field to a password
  /// field, IBus leaves the first before AT-SPI tells of the second. The
  /// first field's text is not passed on meanwhile.
  @Test func aFieldLeftTakesItsTextAlong() {
    let (ibus, accessibility, sources, passed) = Self.sources()
    sources.focusMoved(to: FocusReport(window: 1, app: "gedit"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "Plain text here"))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, before: "Plain text here"))
    let left = passed().count
    ibus.onField(FieldReport(source: "ibus"))
    accessibility.onField(FieldReport(source: "at-spi", role: .password))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    let reports = passed()
    #expect(reports[left...].allSatisfy { $0.before == nil })
    #expect(reports[left...] == [FieldReport(source: "ibus"), FieldReport(source: "at-spi", role: .password)])
  }

  /// Chromium refocuses IBus's context on the field it focused, without a
  /// word to AT-SPI: the text read went with the field left, and AT-SPI is
  /// asked again once it has had the time to hear of any focus change.
  @Test func aFieldRefocusedIsReadAgain() {
    let (ibus, accessibility, sources, passed) = Self.sources()
    var scheduled = 0
    sources.scheduleReread = { scheduled += 1 }
    accessibility.focusChanges = 1  // the same object all along: the answer to the reread counts
    sources.focusMoved(to: FocusReport(window: 1, app: "gedit"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(scheduled == 1)
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "query"))
    sources.rereadWorse()
    #expect(accessibility.rereads == 0)  // AT-SPI told of the field meanwhile
    ibus.onField(FieldReport(source: "ibus"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(scheduled == 2 && passed().last == FieldReport(source: "ibus", role: .text))
    sources.rereadWorse()
    #expect(accessibility.rereads == 1)
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "query"))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, before: "query"))
    // IBus moved on before the time was up: no one reads again.
    ibus.onField(FieldReport(source: "ibus"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    ibus.onField(FieldReport(source: "ibus"))
    sources.rereadWorse()
    #expect(accessibility.rereads == 1)
  }

  /// Firefox on X11: as the focus moves on, AT-SPI tells late of the
  /// field left (its caret moved) before it hears of the focus change.
  @Test func aLateWordOfTheFieldLeftIsNotTakenForTheNext() {
    let (ibus, accessibility, sources, passed) = Self.sources()
    sources.focusMoved(to: FocusReport(window: 1, app: "gedit"))
    ibus.onField(FieldReport(source: "ibus"))
    accessibility.focusChanges = 1
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "0123"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, before: "0123"))
    ibus.onField(FieldReport(source: "ibus"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "01234"))
    #expect(passed().last == FieldReport(source: "ibus", role: .text))
    accessibility.focusChanges = 2
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "query"))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, before: "query"))
  }

  /// Firefox on X11: AT-SPI may hear of the next field before IBus leaves
  /// the one before; that field's role is not given the next one's text.
  /// AT-SPI's answers come after what they answer: a report told between
  /// a read's start and its answer overtakes the answer. Chromium on X11:
  /// AT-SPI answers for the url field after IBus left it; that answer
  /// stands for no field. GNOME: the Shell tells a GTK 4 text view with its
  /// text while AT-SPI reads it; AT-SPI's answer does not stand for the
  /// button after it. A source that left a field with its own text (the
  /// Shell, for a Qt window next) leaves the answer standing.
  @Test func anAnswerOvertakenByABetterReportIsTakenAsIfItCameFirst() {
    let (ibus, accessibility, sources, passed) = Self.sources()
    sources.focusMoved(to: FocusReport(window: 1, app: "chromium"))
    accessibility.focusChanges = 1
    ibus.onField(FieldReport(source: "ibus", role: .url))
    accessibility.readsStarted = 1  // AT-SPI hears of the url field's focus
    ibus.onField(FieldReport(source: "ibus"))
    accessibility.readAnswered = 1
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "https://example.org"))
    #expect(!passed().contains { $0.before != nil })
    #expect(passed().last?.role == nil)
    accessibility.focusChanges = 2
    accessibility.readsStarted = 2
    accessibility.readAnswered = 2
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "42"))
    // IBus, which sees the window's fields, has not told of it yet.
    #expect(passed().last?.role == nil)
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, before: "42", maybeSecret: false))

    sources.focusMoved(to: FocusReport(window: 2, app: "gtk4-demo"))
    accessibility.readsStarted = 3
    ibus.onField(FieldReport(source: "ibus", role: .text, before: "line"))
    ibus.onField(FieldReport(source: "ibus"))
    accessibility.readAnswered = 3
    accessibility.onField(FieldReport(source: "at-spi", role: .text, before: "line"))
    #expect(passed().last == FieldReport(source: "ibus"))

    ibus.onField(FieldReport(source: "ibus", role: .text, before: "Dear"))
    accessibility.readsStarted = 4
    ibus.onField(FieldReport(source: "ibus"))
    sources.focusMoved(to: FocusReport(window: 3, app: "qt5-app"))
    accessibility.readAnswered = 4
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "ann"))
    #expect(passed().last == FieldReport(source: "at-spi", role: .entry, before: "ann"))
  }

  @Test func aSourceAheadTellsTheFieldAlone() {
    let (ibus, accessibility, sources, passed) = Self.sources()
    sources.focusMoved(to: FocusReport(window: 1, app: "gedit"))
    ibus.onField(FieldReport(source: "ibus"))
    ibus.onField(FieldReport(source: "ibus", role: .email))
    accessibility.focusChanges = 1
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "ada@"))
    #expect(passed().last == FieldReport(source: "ibus", role: .email, before: "ada@"))
    accessibility.focusChanges = 2
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "https://"))
    #expect(passed().last == FieldReport(source: "at-spi", role: .entry, before: "https://"))
    ibus.onField(FieldReport(source: "ibus"))
    ibus.onField(FieldReport(source: "ibus", role: .url))
    #expect(passed().last == FieldReport(source: "ibus", role: .url, before: "https://"))
    #expect(!passed().contains { $0.role == .email && $0.before == "https://" })
  }

  @Test func anotherWindowEndsASecret() {
    let (ibus, accessibility, sources, passed) = Self.sources()
    sources.focusMoved(to: FocusReport(window: 1, app: "gedit"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    accessibility.onField(FieldReport(source: "at-spi", role: .password))
    ibus.onField(FieldReport(source: "ibus"))
    sources.focusMoved(to: FocusReport(window: 2, app: "gedit"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(passed().last == FieldReport(source: "ibus", role: .text))
  }

  @Test func aBrowsersFreeFormFieldMayBeSecretUntilItsTextIsRead() {
    let (ibus, accessibility, sources, passed) = Self.sources()
    sources.focusMoved(to: FocusReport(window: 1, app: "Chromium", instance: "chromium"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(passed() == [FieldReport(source: "ibus", role: .text, maybeSecret: true)])
    // AT-SPI reads it: a text field.
    accessibility.onField(FieldReport(source: "at-spi", role: .entry, before: "", isFieldStart: true))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, before: "", isFieldStart: true))
    // The next field: AT-SPI has not read it yet (or never will: no
    // accessibility), so it may be secret again.
    ibus.onField(FieldReport(source: "ibus"))
    ibus.onField(FieldReport(source: "ibus", role: .text))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, maybeSecret: true))
    // Another application's free form is text.
    sources.focusMoved(to: FocusReport(window: 2, app: "Gedit", instance: "gedit"))
    #expect(passed().last == FieldReport(source: "ibus", role: .text))
    // Firefox's windows, by their instance.
    sources.focusMoved(to: FocusReport(window: 3, app: "firefox-esr", instance: "Navigator"))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, maybeSecret: true))
  }
}

/// A hint that an application sets on some fields refuses its aid where
/// it is missing (Chromium's `autocapitalize="off"`).
@Suite struct FieldHintTests {
  @Test func aHintMissingInAnApplicationThatSetsItRefusesTheAid() {
    let (input, accessibility, sources, passed) = SecretFieldTests.sources()
    _ = accessibility
    sources.focusMoved(to: FocusReport(window: 1, app: "gedit"))
    // An application that never sets the hint: nothing is refused.
    input.onField(FieldReport(source: "ibus", role: .entry))
    #expect(passed().last == FieldReport(source: "ibus", role: .entry))
    sources.focusMoved(to: FocusReport(window: 2, app: "chromium"))
    input.onField(FieldReport(source: "ibus", role: .text, before: "Dear", capitals: true, correction: true))
    input.onField(FieldReport(source: "ibus", role: .text, before: "ada", correction: true))
    #expect(passed().last == FieldReport(source: "ibus", role: .text, before: "ada", capitals: false, correction: true))
    input.onField(FieldReport(source: "ibus", role: .entry, before: "x"))
    #expect(passed().last?.capitals == false && passed().last?.correction == false)
    // What another window's fields asked says nothing of this one's.
    sources.focusMoved(to: FocusReport(window: 3, app: "chromium"))
    input.onField(FieldReport(source: "ibus", role: .entry, before: "y"))
    #expect(passed().last == FieldReport(source: "ibus", role: .entry, before: "y"))
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
