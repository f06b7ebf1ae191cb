import AgentProtocol
import LinuxSystem

/// Passes the focus on, but for a report that no window has it, which
/// waits ``delay`` first: KWin says so before every switch of windows (and
/// a compositor may deactivate one window before it activates the next),
/// and the window report that follows within the delay replaces it. A
/// report equal to the last one passed on is dropped.
final class FocusSettler {
  /// In microseconds.
  static let delay: Int64 = 50_000

  private let deliver: (FocusReport) -> Void
  private var last: FocusReport?
  private var waiting: FocusReport?
  /// When the report that waits is due.
  private(set) var due: Int64?

  init(deliver: @escaping (FocusReport) -> Void) { self.deliver = deliver }

  /// A settler whose waiting report is passed on by a timer of `loop`.
  convenience init(loop: EventLoop, deliver: @escaping (FocusReport) -> Void) {
    var timer: ScheduledTimer?
    self.init(deliver: deliver)
    onWait = { [unowned self, unowned loop] due in
      if let timer { loop.cancel(timer) }
      timer = due.map { loop.schedule(at: $0) { [unowned self] in tick(at: monotonicMicroseconds()) } }
    }
  }

  /// Hears when the report that waits is due (nil: none waits any more).
  private var onWait: (Int64?) -> Void = { _ in }

  /// Takes a report now.
  func take(_ report: FocusReport) { take(report, at: monotonicMicroseconds()) }

  func take(_ report: FocusReport, at now: Int64) {
    if report.window == 0 {
      if waiting == nil {
        due = now + Self.delay
        onWait(due)
      }
      waiting = report
      return
    }
    if waiting != nil { onWait(nil) }
    waiting = nil
    due = nil
    pass(report)
  }

  /// Passes on the report that waits once it is due.
  func tick(at now: Int64) {
    guard let due, now >= due, let report = waiting else { return }
    waiting = nil
    self.due = nil
    pass(report)
  }

  private func pass(_ report: FocusReport) {
    guard report != last else { return }
    last = report
    deliver(report)
  }
}
