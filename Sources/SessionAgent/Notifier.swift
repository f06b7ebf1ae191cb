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
/// log. One notification per cause at a time: the next replaces it; and
/// at most one per cause every ``minimumInterval``, the last of a burst
/// shown when the interval is over.
final class Notifier {
  /// In microseconds.
  static let minimumInterval: Int64 = 3_000_000
  /// How long a call may take before it is given up, in microseconds.
  static let callTimeout: UInt64 = 5_000_000

  private let bus: SessionBus
  private let loop: EventLoop
  private let logger: Logger
  /// Whether notices are shown (`notifications` in the daemon's config).
  var isEnabled = true
  /// The id of each cause's notification on screen, which the next replaces.
  private var shown: [Notice.Cause: UInt32] = [:]
  private var lastSent: [Notice.Cause: Int64] = [:]
  /// The notice of a cause that waits for its interval, and its timer.
  private var waiting: [Notice.Cause: (notice: Notice, timer: ScheduledTimer)] = [:]
  /// The failure last logged, once until it changes.
  private var lastFailure: String?

  init(bus: SessionBus, loop: EventLoop, logger: Logger) {
    self.bus = bus
    self.loop = loop
    self.logger = logger
  }

  /// Shows `notice`, now or when its cause's interval is over.
  func show(_ notice: Notice) {
    guard isEnabled else { return }
    let now = monotonicMicroseconds()
    let next = (lastSent[notice.cause] ?? .min / 2) + Self.minimumInterval
    if now >= next && waiting[notice.cause] == nil {
      send(notice, at: now)
      return
    }
    if let timer = waiting[notice.cause]?.timer { loop.cancel(timer) }
    let timer = loop.schedule(at: max(next, now)) { [unowned self] in
      guard let held = waiting.removeValue(forKey: notice.cause) else { return }
      send(held.notice, at: monotonicMicroseconds())
    }
    waiting[notice.cause] = (notice, timer)
  }

  /// Takes a cause's notification off the screen, and what waits of it.
  func withdraw(_ cause: Notice.Cause) {
    if let timer = waiting.removeValue(forKey: cause)?.timer { loop.cancel(timer) }
    guard let id = shown.removeValue(forKey: cause) else { return }
    DBus.callAsync(
      bus.bus, Self.service, Self.path, Self.service, "CloseNotification", [.uint32(id)], timeout: Self.callTimeout
    ) { _ in }
  }

  static let service = "org.freedesktop.Notifications"
  static let path = "/org/freedesktop/Notifications"

  private func send(_ notice: Notice, at now: Int64) {
    lastSent[notice.cause] = now
    let arguments: [DBus.Argument] = [
      .string("vkbd"), .uint32(shown[notice.cause] ?? 0), .string("input-keyboard"), .string(notice.summary),
      .string(notice.body), .array("s", []),
      .array(
        "{sv}",
        [.property("urgency", "y", .byte(notice.urgency)), .property("desktop-entry", "s", .string("vkbd-agent"))]),
      .int32(-1),
    ]
    DBus.callAsync(bus.bus, Self.service, Self.path, Self.service, "Notify", arguments, timeout: Self.callTimeout) {
      [weak self] result in
      guard let self else { return }
      switch result {
      case .success(let reply):
        if let id = DBus.readUInt32(reply) { shown[notice.cause] = id }
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
