import AgentProtocol
import KeyboardEngine
import XKBFiles

/// The desktop's keyboard layout, as the active user's session agent
/// reports it (DESIGN 7): each distinct set of XKB names is compiled once
/// and kept, so switching back and forth costs a lookup. A `layout:` in
/// the config wins over it.
struct DesktopLayout {
  /// How many compiled keymaps are kept; the oldest goes first.
  static let cacheSize = 8

  /// The report in force; nil while no agent reports one.
  private(set) var report: LayoutReport?
  /// The locale of a report that names none: the system's.
  var defaultLocale = ""
  private var cache: [(names: LayoutNames, layout: Layout)] = []
  /// Names that did not compile, so a repeated report is refused quietly.
  private var refused: Set<LayoutNames> = []

  /// Why a report was not followed.
  struct Refusal: Error, CustomStringConvertible {
    var description: String
    /// False when the same names were refused before (log it once).
    var isNew: Bool
  }

  /// The layout and group to follow for `report`. A report whose names do
  /// not compile, or whose group the keymap lacks, is refused and the
  /// report in force stays.
  mutating func take(_ report: LayoutReport) throws(Refusal) -> (layout: Layout, group: Int) {
    let names = LayoutNames(
      rules: report.rules, model: report.model, layout: report.layout, variant: report.variant,
      options: report.options, locale: report.locale.isEmpty ? defaultLocale : report.locale)
    let layout: Layout
    if let index = cache.firstIndex(where: { $0.names == names }) {
      layout = cache[index].layout
    } else {
      guard !refused.contains(names) else {
        throw Refusal(description: "the desktop's layout \(names) does not compile", isNew: false)
      }
      do {
        layout = try Layout.shared(names)
      } catch {
        refused.insert(names)
        throw Refusal(description: "the desktop's layout \(names) does not compile: \(error)", isNew: true)
      }
      if cache.count == Self.cacheSize { cache.removeFirst() }
      cache.append((names, layout))
    }
    guard report.group < max(layout.groupCount, 1) else {
      throw Refusal(
        description: "the desktop's group \(report.group) is not in layout \(names) (\(layout.groupCount) groups)",
        isNew: true)
    }
    self.report = report
    return (layout, report.group)
  }

  /// No agent reports a layout any more; false when none was in force.
  @discardableResult
  mutating func forget() -> Bool {
    defer { report = nil }
    return report != nil
  }
}
