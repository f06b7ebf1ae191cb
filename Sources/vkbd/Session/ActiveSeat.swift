import CSystemd
import Glibc

/// Whose session agents count (DESIGN 7): the user of the active logind
/// session on seat0, as sd-login reads logind's state files, or, where
/// logind does not run, the users `session_users:` names.
final class ActiveSeat {
  /// The seat whose keyboards vkbd serves.
  static let seat = "seat0"
  /// Where logind keeps the seats' state; it runs when this exists.
  static let logindSeats = "/run/systemd/seats"

  private let monitor: OpaquePointer?
  /// The sd-login monitor's fd (inotify on logind's seat files), for the
  /// event loop; nil without logind.
  let fd: Int32?

  /// Starts watching the seat (`sd_login_monitor_new`) when logind runs.
  init() {
    var monitor: OpaquePointer?
    if access(Self.logindSeats, F_OK) == 0, sd_login_monitor_new("seat", &monitor) >= 0, let monitor {
      self.monitor = monitor
      fd = sd_login_monitor_get_fd(monitor)
    } else {
      self.monitor = nil
      fd = nil
    }
  }

  deinit { if let monitor { sd_login_monitor_unref(monitor) } }

  /// Whether logind tells whose session is active.
  var usesLogind: Bool { monitor != nil }

  /// The users whose agents count now: the active session's
  /// (`sd_seat_get_active`), or without logind every one of `sessionUsers`.
  func activeUsers(sessionUsers: [SessionUser]) -> [uid_t] {
    guard usesLogind else { return sessionUsers.map(\.uid) }
    var uid = uid_t()
    guard sd_seat_get_active(Self.seat, nil, &uid) >= 0 else { return [] }  // no session is active
    return [uid]
  }

  /// Clears the monitor's wakeup after the seat's files changed
  /// (`sd_login_monitor_flush`).
  func acknowledge() {
    if let monitor { _ = sd_login_monitor_flush(monitor) }
  }
}
