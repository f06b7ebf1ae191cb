import AgentProtocol

/// Several field sources as one, best first: the first one's report while
/// it has a text field, else the next one's. On GNOME the Shell's input
/// method comes first and the accessibility bus after it, for the
/// applications that speak no text-input protocol (Qt 5, Xwayland's).
/// A better source that finds a field makes what the others said before
/// it old: they count again from their next report.
final class FieldSources {
  let sources: [FieldSource]
  /// Takes the field whenever the one passed on changes, and at once the
  /// one a source told of before (the compositor tells the field that has
  /// the focus as the agent connects).
  var onField: (FieldReport) -> Void = { _ in } {
    didSet { passed.map(onField) }
  }
  private var latest: [FieldReport?]
  private var passed: FieldReport?

  init(_ sources: [FieldSource]) {
    self.sources = sources
    latest = Array(repeating: nil, count: sources.count)
    for (index, source) in sources.enumerated() {
      source.onField = { [unowned self] report in take(report, from: index) }
    }
  }

  /// What `vkbd status` calls them: `gnome-shell+at-spi`; nil: none.
  var name: String? { sources.isEmpty ? nil : sources.map(\.name).joined(separator: "+") }

  func take(_ report: FieldReport, from index: Int) {
    latest[index] = report
    if report.role != nil {
      for worse in latest.indices where worse > index { latest[worse] = nil }
    }
    let chosen = latest.first { $0?.role != nil } ?? nil
    let report = chosen ?? FieldReport(source: sources[0].name)
    guard report != passed else { return }
    passed = report
    onField(report)
  }
}
