import AgentProtocol
import CSystemd
import LinuxSystem
import Logging

/// What the user is told, and why: one notification per cause at a time.
struct Notice: Equatable {
  enum Cause: Hashable, CaseIterable {
    case pause, reload, snippet, session
  }

  var cause: Cause
  var summary: String
  var body: String
  /// Critical (2) stays until dismissed where the server does so; normal is 1.
  var urgency: UInt8 = 1

  /// What the daemon's event tells the user, if anything: a pause or a
  /// resume (but from the status icon, which shows it), a reload that
  /// failed, a snippet not typed. Never typed text: the events carry none.
  static func about(_ event: DaemonEvent) -> Notice? {
    switch event.event {
    case .paused where event.by != DaemonEvent.statusIcon:
      return Notice(
        cause: .pause, summary: "vkbd paused",
        body:
          "Keys pass through untouched, paused by \(event.by == "chord" ? "the toggle chord" : event.by ?? "vkbd"). "
          + "The chord, the status icon or vkbd resume resumes.")
    case .resumed where event.by != DaemonEvent.statusIcon:
      return Notice(cause: .pause, summary: "vkbd resumed", body: "Snippets and typing aids are on again.")
    case .reloadFailed:
      let problems = event.problems ?? []
      var body = problems.prefix(3).joined(separator: "\n")
      if problems.count > 3 { body += "\n… and \(problems.count - 3) more (vkbd check)" }
      return Notice(
        cause: .reload, summary: "vkbd: the config did not load",
        body: body + "\nThe previous configuration keeps running.", urgency: 2)
    case .snippetFailed:
      return Notice(cause: .snippet, summary: "vkbd: a snippet was not typed", body: event.reason ?? "")
    default:
      return nil
    }
  }

  /// An agent whose reports the daemon ignores.
  static let inactiveSession = Notice(
    cause: .session, summary: "vkbd does not follow this session",
    body: "The daemon counts the active session's user only (logind, or session_users in its config): "
      + "app rules, the picker and the user's snippets do not apply here.")
}

/// Shows notices through the desktop's notification service
/// (org.freedesktop.Notifications), never waiting for it: each call is
/// asynchronous, and a missing or slow service only costs a line in the
/// log. One notification per cause at a time: the next replaces it, so it
/// is sent once the one before it has its id; and at most one per cause
/// every ``minimumInterval``, the last of a burst shown when the interval
/// is over.
final class Notifier {
  /// In microseconds.
  static let minimumInterval: Int64 = 3_000_000
  /// How long a call may take before it is given up, in microseconds.
  static let callTimeout: UInt64 = 5_000_000
  /// How long a Notify may take: a busy server (mako, at a chord that also
  /// moves the focus) can answer after seconds, and the id it answers is
  /// what the next notice of the cause replaces.
  static let notifyTimeout: UInt64 = 25_000_000

  private let bus: SessionBus
  private let loop: EventLoop
  private let logger: Logger
  /// Whether notices are shown (`notifications` in the daemon's config).
  var isEnabled = true
  /// The id of each cause's notification on screen, which the next replaces.
  private var shown: [Notice.Cause: UInt32] = [:]
  private var lastSent: [Notice.Cause: Int64] = [:]
  /// The notice of a cause that waits, with the timer of its interval;
  /// without one it waits for the answer to the notice before it.
  private var waiting: [Notice.Cause: (notice: Notice, timer: ScheduledTimer?)] = [:]
  /// The causes whose Notify has not been answered yet.
  private var unanswered: Set<Notice.Cause> = []
  /// The unanswered causes withdrawn meanwhile: closed once their id comes.
  private var withdrawn: Set<Notice.Cause> = []
  /// The failure last logged, once until it changes.
  private var lastFailure: String?

  init(bus: SessionBus, loop: EventLoop, logger: Logger) {
    self.bus = bus
    self.loop = loop
    self.logger = logger
  }

  /// Shows `notice`, now or when its cause's interval is over and the
  /// notice before it has been answered.
  func show(_ notice: Notice) {
    guard isEnabled else { return }
    let cause = notice.cause
    withdrawn.remove(cause)
    let now = monotonicMicroseconds()
    let next = (lastSent[cause] ?? .min / 2) + Self.minimumInterval
    if now >= next && waiting[cause] == nil && !unanswered.contains(cause) {
      send(notice, at: now)
      return
    }
    if let timer = waiting[cause]?.timer { loop.cancel(timer) }
    guard now < next else {
      waiting[cause] = (notice, nil)
      return
    }
    let timer = loop.schedule(at: next) { [unowned self] in
      waiting[cause]?.timer = nil
      sendWaiting(cause)
    }
    waiting[cause] = (notice, timer)
  }

  /// Takes a cause's notification off the screen, and what waits of it.
  func withdraw(_ cause: Notice.Cause) {
    if let timer = waiting.removeValue(forKey: cause)?.timer { loop.cancel(timer) }
    if unanswered.contains(cause) { withdrawn.insert(cause) }
    if let id = shown.removeValue(forKey: cause) { close(id) }
  }

  static let service = "org.freedesktop.Notifications"
  static let path = "/org/freedesktop/Notifications"

  /// Sends the notice of `cause` that waits, if its interval is over and
  /// nothing of the cause is unanswered.
  private func sendWaiting(_ cause: Notice.Cause) {
    guard !unanswered.contains(cause), let held = waiting[cause], held.timer == nil else { return }
    waiting.removeValue(forKey: cause)
    send(held.notice, at: monotonicMicroseconds())
  }

  private func close(_ id: UInt32) {
    DBus.callAsync(
      bus.bus, Self.service, Self.path, Self.service, "CloseNotification", [.uint32(id)], timeout: Self.callTimeout
    ) { _ in }
  }

  private func send(_ notice: Notice, at now: Int64) {
    let cause = notice.cause
    lastSent[cause] = now
    unanswered.insert(cause)
    let arguments: [DBus.Argument] = [
      .string("vkbd"), .uint32(shown[cause] ?? 0), .string("input-keyboard"), .string(notice.summary),
      .string(notice.body), .array("s", []),
      .array(
        "{sv}",
        [.property("urgency", "y", .byte(notice.urgency)), .property("desktop-entry", "s", .string("vkbd-agent"))]),
      .int32(-1),
    ]
    DBus.callAsync(bus.bus, Self.service, Self.path, Self.service, "Notify", arguments, timeout: Self.notifyTimeout) {
      [weak self] result in
      guard let self else { return }
      unanswered.remove(cause)
      let isWithdrawn = withdrawn.remove(cause) != nil
      defer { sendWaiting(cause) }
      switch result {
      case .success(let reply):
        if let id = DBus.readUInt32(reply) {
          if isWithdrawn { close(id) } else { shown[cause] = id }
        }
        lastFailure = nil
      case .failure(let error):
        if error.description != lastFailure {
          logger.notice("no notification shown: \(error.description)")
          lastFailure = error.description
        }
      }
    }
  }
}
