import Glibc
import LinuxSystem

/// What the environment says of the session.
struct SessionEnvironment {
  var wayland: Bool
  var x11: Bool
  /// `XDG_CURRENT_DESKTOP`, split at colons: GNOME, KDE, sway…
  var desktops: [String]
  /// The display the agent serves, for its lock: `wayland-1`, `:0`.
  var display: String
  var runtimeDirectory: String?
  /// `SWAYSOCK`: sway's IPC socket.
  var swaySocket: String?
  /// The locale of characters (`LC_ALL`, else `LC_CTYPE`, else `LANG`),
  /// whose Compose file the session's applications read; empty if unset.
  var locale: String
  /// `GTK_THEME`: `Adwaita:dark` where a dark theme is asked for this way.
  var gtkTheme = ""
  /// `PATH` and `HOME`: where the user's own programs are.
  var path: String?
  var home: String?

  static var current: SessionEnvironment {
    func variable(_ name: String) -> String? {
      getenv(name).map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
    }
    let wayland = variable("WAYLAND_DISPLAY")
    let x11 = variable("DISPLAY")
    return SessionEnvironment(
      wayland: wayland != nil, x11: x11 != nil,
      desktops: (variable("XDG_CURRENT_DESKTOP") ?? "").split(separator: ":").map(String.init),
      display: wayland ?? x11 ?? "", runtimeDirectory: variable("XDG_RUNTIME_DIR"), swaySocket: variable("SWAYSOCK"),
      locale: variable("LC_ALL") ?? variable("LC_CTYPE") ?? variable("LANG") ?? "",
      gtkTheme: variable("GTK_THEME") ?? "", path: variable("PATH"), home: variable("HOME"))
  }
}

/// One agent a session: a lock file in `XDG_RUNTIME_DIR` named after the
/// display, held (`flock`) as long as the agent runs.
enum SessionLock {
  /// Takes the lock; false when another agent holds it. Without a runtime
  /// directory there is nothing to lock.
  static func take(for environment: SessionEnvironment) throws(AgentExit) -> Bool {
    guard let directory = environment.runtimeDirectory else { return true }
    let display = String(environment.display.map { $0.isLetter || $0.isNumber || $0 == "-" ? $0 : "_" })
    let path = "\(directory)/vkbd-agent-\(display).lock"
    let fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
    guard fd >= 0 else { throw AgentExit.system(SystemError("open", path)) }
    // The fd stays open, and the lock held, until the agent exits.
    return flock(fd, LOCK_EX | LOCK_NB) == 0
  }
}
