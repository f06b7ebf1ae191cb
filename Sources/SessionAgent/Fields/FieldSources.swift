import AgentProtocol

/// Several field sources as one, best first: the first one's report while
/// it has a text field, else the next one's. On GNOME the Shell's input
/// method comes first and the accessibility bus after it, for the
/// applications that speak no text-input protocol (Qt 5, Xwayland's).
/// A better source that finds a field makes what the others said before
/// it old: they count again from their next report. Where the better one
/// tells the role only (IBus on X11), the text comes from the next one that
/// read it (the accessibility bus, which hears of the same focus change at
/// about the same time, before or after): a report of a focus change it
/// heard after the one whose text the better one's field before took (a
/// late word of that field is not), or, where a source counts no focus
/// changes, one told since the better one's previous report. A worse
/// source that hears of the next field before the better one leaves its
/// own tells that field alone. A field the better one left takes its text
/// along; one it enters again (Chromium refocuses IBus's context twice a
/// field) is read again once a focus change would have been heard of.
///
/// A secret is a secret from every source: a field that any source called
/// a password stays one until that source tells of something else or
/// another window has the focus, whatever the others say meanwhile
/// (Chromium's show-password toggle makes IBus refocus the field as free
/// form, while AT-SPI, which called it a password, hears of no change). In
/// a browser, a field that only IBus's free form tells of may be a password
/// (Chromium gives its password fields that purpose): it is passed on as
/// maybe secret until a source that reads the field's text tells of it.
///
/// A better source that told of a field of the focused window sees that
/// window's fields: once it says that none has the focus, a worse one's
/// field there is a late word of the field left (AT-SPI hears of a focus
/// change after the input method, and a duplicate focus event may leave
/// it on the field before), not a field it cannot see.
///
/// A hint an application sets on some fields says something where it is
/// missing: Chromium asks for capitals in a page's fields and asks nothing
/// in one with `autocapitalize="off"`. Where a source told of a field of
/// the focused window that asked for capitals (or correction), its field
/// that asks nothing refuses them.
final class FieldSources {
  let sources: [FieldSource]
  /// Takes the field whenever the one passed on changes, and at once the
  /// one a source told of before (the compositor tells the field that has
  /// the focus as the agent connects).
  var onField: (FieldReport) -> Void = { _ in } {
    didSet { passed.map(onField) }
  }
  /// What each source told, by its place in ``sources``.
  private var heard: [Heard]
  private var count = 0
  private var passed: FieldReport?
  /// The latest secret field a source told of, and which source told it;
  /// nil once that source told of something else, or the window changed.
  private var secret: (report: FieldReport, from: Int)?
  /// The worse source whose text the field passed on took, and when it
  /// told it: that report is of the better source's field, and goes with it.
  private var reader: (index: Int, told: Int)?
  /// The source whose field without text the worse ones are to read
  /// again, and when it told of it.
  private var rereading: (index: Int, told: Int)?
  /// Asks for ``rereadWorse()`` ``rereadDelay`` from now, in place of a
  /// time asked before (the agent's loop's timer).
  var scheduleReread: () -> Void = {}
  /// In microseconds: AT-SPI hears of a focus change up to 300 ms after IBus.
  static let rereadDelay: Int64 = 400_000

  /// The focused window, and whether it is a browser's.
  private var window: Int64?
  private var inBrowser = false

  /// What a source told.
  private struct Heard {
    /// Its latest report, and when it came (a count of reports; 0: none yet).
    var latest: FieldReport?
    var told = 0
    /// All sources' ``FieldSource/focusChanges`` when it told its latest
    /// report (its own: ``focusWhenTold(_:)``); for its field, the worse
    /// sources' focus change whose text it took, and the one before its
    /// field began (the one whose text its field before took, else where
    /// they were as it entered it).
    var lastSeen: [Int?]
    var matchedFocus: [Int?]
    var focusBeforeField: [Int?]
    /// Whether its latest report answers a request to read again, and
    /// whether it was asked to.
    var answersReread = false
    var askedToReread = false
    /// Whether it told of a field of the focused window; of one asking
    /// for capitals, and for correction.
    var toldField = false
    var askedCapitals = false
    var askedCorrection = false
    /// All sources' ``FieldSource/readsStarted`` when it last told a report
    /// that makes what worse sources said before old (``isOvertaken(_:)``),
    /// and the read its latest report answers (its
    /// ``FieldSource/readAnswered``).
    var readsWhenMadeOld: [Int]
    var answered: Int?

    init(sources: Int) {
      readsWhenMadeOld = Array(repeating: 0, count: sources)
      lastSeen = Array(repeating: nil, count: sources)
      matchedFocus = lastSeen
      focusBeforeField = lastSeen
    }
  }

  init(_ sources: [FieldSource]) {
    self.sources = sources
    heard = Array(repeating: Heard(sources: sources.count), count: sources.count)
    for (index, source) in sources.enumerated() {
      source.onField = { [unowned self] report in take(report, from: index) }
    }
  }

  /// What `vkbd status` calls them: `gnome-shell+at-spi`; nil: none.
  var name: String? { sources.isEmpty ? nil : sources.map(\.name).joined(separator: "+") }

  func take(_ report: FieldReport, from index: Int) {
    count += 1
    let previous = heard[index].told
    let seen = sources.map(\.focusChanges)
    if report.role != nil && heard[index].latest?.role == nil {
      heard[index].focusBeforeField = zip(heard[index].matchedFocus, heard[index].lastSeen).map { $0 ?? $1 }
      heard[index].matchedFocus = Array(repeating: nil, count: sources.count)
    }
    let left = heard[index].latest
    let leavesFieldWithoutText =
      report.role == nil && left?.role != nil && left?.before == nil && left?.isSecret == false
    if leavesFieldWithoutText || (report.role != nil && (report.before != nil || report.isSecret)) {
      heard[index].readsWhenMadeOld = sources.map(\.readsStarted)
    }
    heard[index].lastSeen = seen
    heard[index].answered = sources[index].readAnswered
    heard[index].answersReread = heard[index].askedToReread
    heard[index].askedToReread = false
    heard[index].latest = report
    heard[index].told = count
    if report.role != nil { heard[index].toldField = true }
    if report.capitals == true { heard[index].askedCapitals = true }
    if report.correction == true { heard[index].askedCorrection = true }
    // What worse sources said is old now; for a role without text, what
    // they said of a focus change after the one of this source's field
    // before (counting none: since its previous report) may be this very
    // field. A source that leaves its field takes the text read of it
    // along: the next source's report of the field before is old.
    if report.role == nil, let reader, reader.index > index, heard[reader.index].told == reader.told {
      heard[reader.index].latest = nil
    }
    if report.role != nil {
      let keepsRecent = report.before == nil && !report.isSecret && previous != 0
      for worse in heard.indices
      where worse > index
        && !(keepsRecent && (movedOn(worse, sinceFieldBefore: index) ?? (heard[worse].told > previous)))
      {
        heard[worse].latest = nil
      }
    }
    // A field without its text that no worse source has a report of (it
    // went with the field left, or was never read): they read it again
    // if they still say nothing once they have had the time to hear of a
    // focus change (read at once, the field read would be the one left).
    if report.role != nil && report.before == nil && !report.isSecret
      && heard.indices.contains(where: { $0 > index && heard[$0].latest == nil })
    {
      rereading = (index, count)
      scheduleReread()
    }
    if report.isSecret {
      secret = (report, index)
    } else if secret?.from == index {
      secret = nil
    }
    if isOvertaken(index) { heard[index].latest = nil }
    pass()
  }

  /// The worse sources that still say nothing read the field again, if
  /// the source that told of it without its text told nothing since.
  func rereadWorse() {
    guard let (index, when) = rereading, heard[index].told == when else { return }
    rereading = nil
    for worse in heard.indices where worse > index && heard[worse].latest == nil {
      heard[worse].askedToReread = true
      sources[worse].reread()
    }
  }

  /// Whether the latest report of `worse` may be of the field `better`
  /// tells of without its text: it came of a focus change `worse` heard of
  /// after the one of `better`'s field before (a late word of that field
  /// is not), or answers a request to read again.
  private func reads(_ worse: Int, fieldOf better: Int) -> Bool {
    heard[worse].answersReread || movedOn(worse, sinceFieldBefore: better) ?? true
  }

  /// The focus changes `source` had counted when it told its latest report.
  private func focusWhenTold(_ source: Int) -> Int? { heard[source].lastSeen[source] }

  /// Whether `worse` told its latest report of a focus change after the
  /// one of `better`'s field before; nil where either cannot tell.
  private func movedOn(_ worse: Int, sinceFieldBefore better: Int) -> Bool? {
    guard let now = focusWhenTold(worse), let before = heard[better].focusBeforeField[worse] else { return nil }
    return now > before
  }

  /// Whether a better source overtook the latest report of `source`: it
  /// told, after the read this report answers began, a report that makes
  /// what worse sources said before old (AT-SPI's questions go on while
  /// the agent does). Such a report is taken as if it had come first: old
  /// once a better source told a field with its own text (or a secret), or
  /// left a field without text (it was that field's text, or a late word
  /// of the field before). A field without text may take it for its text
  /// (``reads(_:fieldOf:)``), and one left with its own text leaves it
  /// standing (another application's, which the better source cannot see).
  private func isOvertaken(_ source: Int) -> Bool {
    guard let answered = heard[source].answered else { return false }
    return heard[..<source].contains { answered <= $0.readsWhenMadeOld[source] }
  }

  /// Whether `worse` tells of a field it moved to after the one whose text
  /// `better`'s field took: `better` has not heard of the move yet (AT-SPI
  /// may hear of a focus change before IBus).
  private func isAhead(_ worse: Int, of better: Int) -> Bool {
    guard heard[worse].latest?.role != nil, !heard[worse].answersReread, let now = focusWhenTold(worse),
      let matched = heard[better].matchedFocus[worse]
    else { return false }
    return now > matched
  }

  /// Takes the window that has the focus: another window ends a secret,
  /// and whether it is a browser's decides what IBus's free form is.
  func focusMoved(to focus: FocusReport) {
    if focus.window != window {
      secret = nil
      for index in heard.indices {
        heard[index].toldField = false
        heard[index].askedCapitals = false
        heard[index].askedCorrection = false
      }
    }
    window = focus.window
    inBrowser = Self.isBrowser(focus)
    pass()
  }

  /// Whether `focus` is a web browser's window.
  static func isBrowser(_ focus: FocusReport) -> Bool {
    [focus.app, focus.instance ?? ""].contains { browsers.contains($0.lowercased()) }
  }

  /// The web browsers, by their Wayland app ids and X11 WM_CLASS fields,
  /// in lowercase: Chromium and the browsers built on it, Firefox and its.
  static let browsers: Set<String> = [
    "chromium", "chromium-browser", "google-chrome", "google-chrome-beta", "google-chrome-unstable",
    "brave-browser", "microsoft-edge", "vivaldi-stable", "opera", "yandex-browser", "thorium-browser",
    "firefox", "firefox-esr", "navigator", "org.mozilla.firefox", "librewolf", "waterfox", "floorp",
  ]

  /// Passes on the field the sources' reports make, when it changed.
  private func pass() {
    guard count > 0 else { return }  // no source told of anything yet
    var chosen = heard.firstIndex { $0.latest?.role != nil }
    // A source gone (IBus quit) sees no field until it tells of one again.
    for index in heard.indices where !sources[index].isConnected { heard[index].toldField = false }
    if let worse = chosen, window != nil, heard[..<worse].contains(where: { $0.toldField && $0.latest != nil }) {
      chosen = nil  // a better source that sees this window's fields says none has the focus
    }
    if let better = chosen, let ahead = heard.indices.first(where: { $0 > better && isAhead($0, of: better) }) {
      chosen = ahead
    }
    var report = chosen.flatMap { heard[$0].latest } ?? FieldReport(source: sources[0].name)
    reader = nil
    // A worse source that still counts and says secret wins: a field is a
    // password if anyone says so. A role without text (IBus's) takes the
    // text a worse source read since.
    if let chosen, !report.isSecret,
      let secret = heard[(chosen + 1)...].first(where: { $0.latest?.isSecret == true })?.latest
    {
      report = secret
    } else if let chosen, report.before == nil, !report.isSecret,
      let index = heard.indices.first(where: { $0 > chosen && heard[$0].latest?.before != nil }),
      let read = heard[index].latest, !read.isSecret, reads(index, fieldOf: chosen)
    {
      report.before = read.before
      report.isFieldStart = read.isFieldStart
      reader = (index, heard[index].told)
      heard[chosen].matchedFocus[index] = focusWhenTold(index)
    }
    if let secret, !report.isSecret {
      report = secret.report
    } else if let chosen, inBrowser, sources[chosen].freeFormMayBeSecret, report.role == .text, report.before == nil {
      report.maybeSecret = true
    }
    if let chosen, report.role != nil, !report.isSecret {
      if report.capitals == nil && heard[chosen].askedCapitals { report.capitals = false }
      if report.correction == nil && heard[chosen].askedCorrection { report.correction = false }
    }
    guard report != passed else { return }
    passed = report
    onField(report)
  }
}

extension FieldReport {
  /// A password or PIN field, whose text is never sent.
  var isSecret: Bool { role == .password || role == .pin }
}
