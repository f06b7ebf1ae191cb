import CSystemd
import Glibc
import SystemPackage

/// Whose session agents count (DESIGN 7): the user of the active logind
/// session on seat0, as sd-login reads logind's state files, or, where
/// logind keeps no state for seat0 (it does not run), the users
/// `session_users:` names. Which of the two applies is read anew on every
/// change, so a logind that starts after the daemon takes over.
final class ActiveSeat {
  /// The seat whose keyboards vkbd serves.
  static let seat = "seat0"
  /// Where logind keeps the seats' state; it runs when this exists.
  static let logindSeats = "/run/systemd/seats"

  private let monitor: OpaquePointer?
  /// The sd-login monitor's fd (inotify on logind's seat files), for the
  /// event loop; nil where logind's state directory does not exist.
  let fd: FileDescriptor?

  /// Starts watching the seats (`sd_login_monitor_new`) where logind keeps
  /// them.
  init() {
    var monitor: OpaquePointer?
    if access(Self.logindSeats, F_OK) == 0, sd_login_monitor_new("seat", &monitor) >= 0, let monitor {
      self.monitor = monitor
      fd = FileDescriptor(rawValue: sd_login_monitor_get_fd(monitor))
    } else {
      self.monitor = nil
      fd = nil
    }
  }

  deinit { if let monitor { sd_login_monitor_unref(monitor) } }

  /// The users whose agents count now, and who says so: the active
  /// session's (`sd_seat_get_active`), none when logind has no session
  /// active, or every one of `sessionUsers` when logind keeps no state for
  /// the seat (ENXIO: it does not run).
  func activeUsers(sessionUsers: [SessionUser]) -> (users: [uid_t], fromLogind: Bool) {
    var uid = uid_t()
    let status = sd_seat_get_active(Self.seat, nil, &uid)
    if status >= 0 { return ([uid], true) }
    if status == -ENXIO { return (sessionUsers.map(\.uid), false) }
    return ([], true)
  }

  /// Clears the monitor's wakeup after the seat's files changed
  /// (`sd_login_monitor_flush`).
  func acknowledge() {
    if let monitor { _ = sd_login_monitor_flush(monitor) }
  }
}
