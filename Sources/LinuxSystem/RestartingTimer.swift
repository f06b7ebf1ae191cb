/// One action on a loop's timer that each ``restart(after:)`` puts off:
/// it runs once the calls have stopped for the delay (a file's writes
/// have settled), or at the time the last call asked. Cancelled when let
/// go of.
public final class RestartingTimer {
  private let loop: EventLoop
  private let action: () -> Void
  private var scheduled: ScheduledTimer?

  /// `action` must not hold its owner strongly (the owner holds the timer).
  public init(loop: EventLoop, action: @escaping () -> Void) {
    self.loop = loop
    self.action = action
  }

  deinit { cancel() }

  /// Runs the action `delay` microseconds from now, and not at any time
  /// asked before.
  public func restart(after delay: Int64) {
    cancel()
    scheduled = loop.schedule(at: monotonicMicroseconds() + delay) { [unowned self] in
      scheduled = nil
      action()
    }
  }

  /// Whether the action waits to run.
  public var isPending: Bool { scheduled != nil }

  public func cancel() {
    if let scheduled { loop.cancel(scheduled) }
    scheduled = nil
  }
}
