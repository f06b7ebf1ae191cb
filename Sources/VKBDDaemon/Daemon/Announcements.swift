import AgentProtocol
import KeyboardEngine

/// What the daemon last announced (`vkbd listen`, the agents): a change
/// from it is an event.
struct AnnouncedState {
  var paused = false
  var layout: ObjectIdentifier?
  var group = 0
  var app: String?
  var rule: Int?
}

/// The daemon's events (``DaemonEvent``): to every `vkbd listen` and to
/// the active user's agents, which show notifications and the status icon.
extension Daemon {
  /// The state now, as an event of `kind`.
  func event(_ kind: DaemonEvent.Kind, by cause: String? = nil) -> DaemonEvent {
    var event = DaemonEvent(
      event: kind, state: engine.isPaused ? "paused" : "running", layout: engine.layout.names.description,
      group: engine.group + 1, app: context.focus.map { $0.window == 0 ? "" : $0.app },
      rule: context.rule.map { $0.index + 1 }, agents: agents?.count ?? 0, config: configuration.source)
    event.by = cause
    return event
  }

  /// Sends `event` to the listeners and the agents that count, and
  /// remembers the state it carries.
  func announce(_ event: DaemonEvent) {
    remember()
    logger.debug("event", metadata: ["event": "\(event.event.rawValue)", "by": "\(event.by ?? "-")"])
    guard control?.hasListeners == true || agents?.hasActive == true else { return }
    control?.announce(event)
    agents?.announce(event)
  }

  /// Takes the state now as announced.
  func remember() {
    announced = AnnouncedState(
      paused: engine.isPaused, layout: ObjectIdentifier(engine.layout), group: engine.group,
      app: context.focus?.app, rule: context.rule?.index)
  }

  /// Announces what changed in the turn without an event of its own: the
  /// pause chord, a layout or group the keys or the desktop chose, another
  /// app or rule. A few comparisons a turn.
  func announceChanges() {
    if engine.isPaused != announced.paused {
      announce(event(engine.isPaused ? .paused : .resumed, by: "chord"))
    }
    if ObjectIdentifier(engine.layout) != announced.layout || engine.group != announced.group {
      announce(event(.layout))
    }
    if context.focus?.app != announced.app || context.rule?.index != announced.rule {
      announce(event(.app))
    }
  }

  /// Pauses or resumes for `cause` (`vkbd pause`, the status icon), and
  /// says so.
  func setPaused(_ paused: Bool, by cause: String) {
    guard paused != engine.isPaused else { return }
    engine.isPaused = paused
    logger.info("\(paused ? "paused" : "resumed") by \(cause)")
    announce(event(paused ? .paused : .resumed, by: cause))
  }
}
