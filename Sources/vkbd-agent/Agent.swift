import AgentProtocol
import ArgumentParser
import CAgent
import Glibc
import LogOptions
import Logging

/// `vkbd-agent`: tells the vkbd daemon which application has the focus in
/// this user's graphical session (DESIGN 7).
@main
struct VKBDAgent: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "vkbd-agent",
    abstract: "Tell the vkbd daemon which application has the focus in this graphical session.",
    discussion: """
      Runs as the logged-in user, started with the graphical session (the systemd user \
      unit vkbd-agent.service, or the XDG autostart entry). It learns the focused window \
      from the desktop and reports its app id and title to the daemon at every change, \
      so that the daemon's app rules (apps: in vkbd.yaml(5)) follow it; where the desktop \
      tells them, also the focused text field's role and the text before its cursor (the \
      Wayland input method protocol, else AT-SPI) and the keyboard layout and group \
      (sway IPC, X11 XKB, the GNOME extension, KDE's keyboard service). It reconnects \
      when the daemon restarts and exits when the session ends. Window titles and field text go \
      to the daemon only, never logged.

      SOURCES (--source auto picks the first that the session offers)
        wlroots   the wlr-foreign-toplevel protocol: sway, Hyprland, river, Wayfire,
                  labwc, niri
        gnome     GNOME Shell on Wayland, through the vkbd-focus@vkbd.github.io extension
        kde       KDE Plasma on Wayland, through a KWin script the agent loads
        x11       any X11 session with an EWMH window manager (also GNOME and Plasma
                  on X11); under a Wayland compositor, its Xwayland windows only

      EXIT STATUS
        0 the session ended, a signal, or another agent already serves the session;
        1 no source of focus in this session: no display, a compositor that tells no
          client, the GNOME extension not loaded or extensions switched off, the KWin
          script missing, or no session bus where one is needed.
      """,
    version: VKBDVersion.current
  )

  enum Source: String, ExpressibleByArgument, CaseIterable {
    case auto, wlroots, gnome, kde, x11
  }

  @Option(name: .long, help: ArgumentHelp("The daemon's agent socket (agent_socket in its config).", valueName: "path"))
  var socket = AgentProtocol.defaultSocket

  @Option(
    name: .long, help: ArgumentHelp("Where to learn the focus: auto, wlroots, gnome, kde or x11.", valueName: "source"))
  var source = Source.auto

  @Flag(
    name: .long, help: "Print each report as a line of JSON on standard output instead of sending it to the daemon.")
  var print = false

  @OptionGroup var log: LogOptions

  func run() throws {
    let logger = log.bootstrap(label: "vkbd-agent")
    do {
      try serve(logger: logger)
    } catch {
      if error.status == 0 {
        logger.info("\(error.message); exiting")
      } else {
        logger.error("\(error.message)")
      }
      throw ExitCode(error.status)
    }
  }

  private func serve(logger: Logger) throws(AgentExit) {
    let environment = SessionEnvironment.current
    guard try SessionLock.take(for: environment) else {
      throw AgentExit("another vkbd-agent serves this session", status: 0)
    }
    let loop = try AgentLoop()
    let (focusSource, watches) = try openSource(environment, logger: logger)
    logger.info("following the focus", metadata: ["source": "\(focusSource.name)"])
    let daemon = DaemonLink(path: socket, source: focusSource.name, logger: logger)
    let printed = { (message: AgentMessage) in
      var output = StandardOutput()
      Swift.print(String(decoding: message.encoded().dropLast(), as: UTF8.self), to: &output)
    }
    let settler = FocusSettler { [print] focus in print ? printed(.focus(focus)) : daemon.report(focus) }
    focusSource.onFocus = { settler.take($0, at: monotonicMicroseconds()) }
    let fieldSource = openFieldSource(environment, focusSource: focusSource, logger: logger)
    fieldSource?.onField = { [print] field in print ? printed(.field(field)) : daemon.report(field) }
    let layoutSource = openLayoutSource(environment, focusSource: focusSource, logger: logger)
    layoutSource?.onLayout = { [print] layout in
      var layout = layout
      // The daemon refuses a name it cannot take; the default serves then.
      if layout.locale.isEmpty, LayoutReport.isLocaleName(environment.locale) { layout.locale = environment.locale }
      print ? printed(.layout(layout)) : daemon.report(layout)
    }
    logger.info(
      "sources",
      metadata: [
        "focus": "\(focusSource.name)", "field": "\(fieldSource?.name ?? "none")",
        "layout": "\(layoutSource?.name ?? "none")",
      ])
    let userSnippets = UserSnippets(logger: logger)
    userSnippets.onFiles = { files, directory in daemon.report(snippetFiles: files, directory: directory) }
    let timed: [Timed] = print ? [settler] : [settler, daemon, userSnippets]
    daemon.tick(at: monotonicMicroseconds())  // connects at once
    try focusSource.start()
    let extra: [Pollable] = [fieldSource, layoutSource].compactMap { $0 }.filter { $0 !== focusSource }
    try loop.run(
      [focusSource] + extra + watches + (print ? [] : [daemon, userSnippets]),
      timeout: {
        let now = monotonicMicroseconds()
        let due = timed.compactMap(\.due).min()
        return due.map { Int32(clamping: max(0, ($0 - now + 999) / 1000)) } ?? -1
      },
      tick: {
        let now = monotonicMicroseconds()
        for item in timed { item.tick(at: now) }
      })
  }

  /// The source `--source` names, or the first the session offers, and
  /// what else tells when the session ends.
  private func openSource(_ environment: SessionEnvironment, logger: Logger) throws(AgentExit) -> (
    FocusSource, [Pollable]
  ) {
    func bridge(_ desktop: ShellBridge.Desktop) throws(AgentExit) -> (FocusSource, [Pollable]) {
      (try ShellBridge(desktop: desktop, kwinScript: Self.kwinScript, logger: logger), [try DisplayWatch()])
    }
    switch source {
    case .wlroots: return (try ForeignToplevelSource(), [])
    case .x11: return (try X11Source(), [])
    case .gnome: return try bridge(.gnome)
    case .kde: return try bridge(.kde)
    case .auto: break
    }
    if environment.wayland {
      if let wayland = try? ForeignToplevelSource() { return (wayland, []) }
      if environment.desktops.contains("GNOME") { return try bridge(.gnome) }
      if environment.desktops.contains("KDE") { return try bridge(.kde) }
      guard environment.x11 else {
        throw AgentExit("this Wayland compositor tells no client which window has the focus")
      }
      logger.warning("this Wayland compositor tells nothing of the focus: following its Xwayland windows only")
      return (try X11Source(), [try DisplayWatch()])
    }
    guard environment.x11 else { throw AgentExit("no graphical session: neither WAYLAND_DISPLAY nor DISPLAY is set") }
    return (try X11Source(), [])
  }

  /// Where the field's role and text come from: the compositor's input
  /// method protocol on Wayland where no other input method holds the
  /// seat, else the accessibility bus; nil: from the app only. GNOME Shell
  /// and KWin offer no input method protocol for a client: there, the
  /// accessibility bus.
  private func openFieldSource(_ environment: SessionEnvironment, focusSource: FocusSource, logger: Logger)
    -> FieldSource?
  {
    if environment.wayland && !(focusSource is ShellBridge) {
      do {
        return try InputMethodSource(logger: logger)
      } catch {
        logger.info("no input method: \(error.message)")
      }
    }
    do {
      return try AccessibilitySource(logger: logger)
    } catch {
      logger.info("no accessibility bus: \(error.message)")
      return nil
    }
  }

  /// Where the desktop's layout comes from: the GNOME Shell extension or
  /// KDE's keyboard service (through the bridge), sway's IPC, the X
  /// server's XKB; nil: none (the daemon keeps its own).
  private func openLayoutSource(_ environment: SessionEnvironment, focusSource: FocusSource, logger: Logger)
    -> LayoutSource?
  {
    if let bridge = focusSource as? ShellBridge { return bridge }
    if let path = environment.swaySocket {
      do {
        return try SwayLayoutSource(path: path, logger: logger)
      } catch {
        logger.notice("cannot follow sway's layout: \(error.message)")
      }
    }
    // Xwayland's XKB names are not the compositor's layout.
    if environment.x11 && !environment.wayland {
      do {
        return try X11LayoutSource()
      } catch {
        logger.notice("cannot follow the X server's layout: \(error.message)")
      }
    }
    return nil
  }

  /// The KWin script, installed beside the agent: PREFIX/share/vkbd/kwin/.
  static var kwinScript: String {
    var buffer = [CChar](repeating: 0, count: Int(PATH_MAX))
    let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
    let executable = length > 0 ? String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self) : ""
    let prefix = executable.split(separator: "/").dropLast(2).joined(separator: "/")
    return "/\(prefix)/share/vkbd/kwin/vkbd-focus.js"
  }
}

/// Passes the focus on, but for a report that no window has it, which
/// waits ``delay`` first: KWin says so before every switch of windows (and
/// a compositor may deactivate one window before it activates the next),
/// and the window report that follows within the delay replaces it. A
/// report equal to the last one passed on is dropped.
final class FocusSettler: Timed {
  /// In microseconds.
  static let delay: Int64 = 50_000

  private let deliver: (FocusReport) -> Void
  private var last: FocusReport?
  private var waiting: FocusReport?
  /// When the report that waits is due.
  private(set) var due: Int64?

  init(deliver: @escaping (FocusReport) -> Void) { self.deliver = deliver }

  func take(_ report: FocusReport, at now: Int64) {
    if report.window == 0 {
      if waiting == nil { due = now + Self.delay }
      waiting = report
      return
    }
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

/// CLOCK_MONOTONIC now, in microseconds.
func monotonicMicroseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}

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
      locale: variable("LC_ALL") ?? variable("LC_CTYPE") ?? variable("LANG") ?? "")
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
    guard fd >= 0 else { throw AgentExit("cannot open \(path): \(String(cString: strerror(errno)))") }
    // The fd stays open, and the lock held, until the agent exits.
    return flock(fd, LOCK_EX | LOCK_NB) == 0
  }
}

/// Standard output as a `TextOutputStream`, written through at once.
struct StandardOutput: TextOutputStream {
  mutating func write(_ string: String) {
    var bytes = Array(string.utf8)[...]
    while !bytes.isEmpty {
      let written = bytes.withUnsafeBytes { Glibc.write(1, $0.baseAddress, $0.count) }
      if written < 0 && errno == EINTR { continue }
      guard written > 0 else { return }
      bytes = bytes.dropFirst(written)
    }
  }
}

/// A whole file as text, at most `limit` bytes of it; nil when it cannot
/// be read.
func readText(_ path: String, limit: Int = 1 << 20) -> String? {
  guard let file = fopen(path, "r") else { return nil }
  defer { fclose(file) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while bytes.count < limit {
    let count = fread(&chunk, 1, min(chunk.count, limit - bytes.count), file)
    guard count > 0 else { break }
    bytes += chunk[..<count]
  }
  return String(decoding: bytes, as: UTF8.self)
}

extension Substring {
  /// The text without white space at either end.
  var trimmed: String {
    String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
  }
}
