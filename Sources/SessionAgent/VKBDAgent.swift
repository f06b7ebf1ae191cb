import AgentProtocol
import ArgumentParser
import CAgent
import Glibc
import LinuxSystem
import LogOptions
import Logging
import SessionWork

/// The `vkbd-agent` program, which the executable's `main` starts.
public enum AgentProgram {
  /// Runs the `vkbd-agent` command with the process's arguments and exits.
  public static func main() { VKBDAgent.main() }
}

/// `vkbd-agent`: tells the vkbd daemon which application has the focus in
/// this user's graphical session (DESIGN 7).
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
      Wayland input method protocol, the GNOME extension, KWin's input method (see \
      --setup-kwin), IBus's bus, else AT-SPI) and the keyboard layout and group \
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

  @Flag(
    name: .long,
    help: ArgumentHelp(
      "Make the agent KWin's input method for this user, where no other input method is set (kwinrc), and exit.",
      discussion: "On KDE Plasma on Wayland, KWin tells the focused text field to its input method only."))
  var setupKwin = false

  @Flag(name: .long, help: "Serve as KWin's input method: KWin runs the agent so once --setup-kwin has set it up.")
  var kwinInputMethod = false

  @Flag(
    name: .long,
    help: ArgumentHelp(
      "Never switch the session's assistive technologies on.",
      discussion:
        "On X11 the agent switches them on (org.a11y.Status) the first time a web browser has the focus, where they are off: Firefox's fields can be read nowhere else."
    ))
  var leaveAccessibility = false

  @OptionGroup var log: LogOptions

  func run() throws {
    if setupKwin {
      // A command the user runs: plain words, no log lines.
      do {
        var output = StandardStream.output
        Swift.print(try KWinSetup.setUp(), to: &output)
        return
      } catch {
        printError(error.message, program: "vkbd-agent")
        throw ExitCode(error.status)
      }
    }
    let logger = log.bootstrap(label: "vkbd-agent")
    do {
      if kwinInputMethod {
        let loop = try AgentLoop()
        let wayland = try WaylandConnection()
        let method = try KWinInputMethod(on: wayland, logger: logger)
        logger.info("KWin's input method: passing the focused text field on to the session's agent")
        loop.add(wayland)
        loop.add(method)
        try loop.run()
        return
      }
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
      throw AgentExit.ended("another vkbd-agent serves this session")
    }
    let agent = try AgentLoop()
    // One connection to the Wayland compositor, which the focus, field and
    // picker clients share; when the compositor closes it the session ended.
    let wayland: WaylandConnection? =
      switch source {
      case .x11: nil
      case .auto where !environment.wayland: nil
      default: try WaylandConnection()
      }
    let focusSource = try openSource(environment, wayland: wayland, logger: logger)
    logger.info("following the focus", metadata: ["source": "\(focusSource.name)"])
    let picker = print ? nil : openPicker(environment, wayland: wayland, focusSource: focusSource, logger: logger)
    if let (window, pollable) = picker {
      logger.info("the snippet picker is shown here", metadata: ["window": "\(window.name)"])
      for item in pollable { agent.add(item) }
    }
    let fields = FieldSources(
      openFieldSources(environment, wayland: wayland, focusSource: focusSource, loop: agent.loop, logger: logger))
    let rereading = RestartingTimer(loop: agent.loop) { [unowned fields] in fields.rereadWorse() }
    fields.scheduleReread = { rereading.restart(after: FieldSources.rereadDelay) }
    let daemon = DaemonLink(
      path: socket, source: focusSource.name, fields: fields.name, picker: picker?.window, loop: agent.loop,
      logger: logger)
    // The user's own programs (`~/.local/bin`): read once, at the start.
    daemon.programs = ProgramWords.user(path: environment.path, home: environment.home)
    let printed = { (message: any AgentProtocolMessage) in
      var output = StandardStream.output
      Swift.print(String(decoding: message.encoded().dropLast(), as: UTF8.self), to: &output)
    }
    // The notifications, the status icon and the accessibility switch
    // speak on the session bus; without one the agent does its other work.
    let sessionBus: SessionBus?
    do {
      sessionBus = try SessionBus(loop: agent.loop)
    } catch {
      sessionBus = nil
      logger.notice("no session bus: no notifications, no status icon (\(error.message))")
    }
    // The window first, then what it changes of the field.
    var asksForAccessibility =
      !leaveAccessibility && environment.x11 && !environment.wayland
      && fields.sources.contains { $0 is AccessibilitySource }
    let settler = FocusSettler(loop: agent.loop) { [print] focus in
      print ? printed(focus) : daemon.report(focus)
      fields.focusMoved(to: focus)
      if asksForAccessibility, let sessionBus, FieldSources.isBrowser(focus) {
        asksForAccessibility = false
        AccessibilitySwitch.switchOn(on: sessionBus, logger: logger) { switched in
          switch switched {
          case true?:
            logger.notice(
              "switched the session's assistive technologies on, for the browser's fields (--leave-accessibility: never)"
            )
          case false?: logger.debug("the session's assistive technologies are on")
          case nil: logger.notice("the session has no switch for assistive technologies (org.a11y.Status)")
          }
        }
      }
    }
    focusSource.onFocus = { settler.take($0) }
    fields.onField = { [print] field in
      // What was passed on, never its text: which source, which role.
      logger.debug(
        "field passed on",
        metadata: [
          "source": "\(field.source)", "role": "\(field.role?.rawValue ?? "none")",
          "text": "\(field.before == nil ? "no" : "yes")",
        ])
      print ? printed(field) : daemon.report(field)
    }
    let layoutSource = openLayoutSource(environment, focusSource: focusSource, logger: logger)
    layoutSource?.onLayout = { [print] layout in
      var layout = layout
      // The daemon refuses a name it cannot take; the default serves then.
      if layout.locale.isEmpty, LayoutReport.isLocaleName(environment.locale) { layout.locale = environment.locale }
      print ? printed(layout) : daemon.report(layout)
    }
    logger.info(
      "sources",
      metadata: [
        "focus": "\(focusSource.name)", "field": "\(fields.name ?? "none")",
        "layout": "\(layoutSource?.name ?? "none")",
      ])
    let userSnippets = UserSnippets(loop: agent.loop, logger: logger)
    userSnippets.onFiles = { files, directory in daemon.report(snippetFiles: files, directory: directory) }
    let extra: [Pollable] = (fields.sources + [layoutSource].compactMap { $0 }).filter { $0 !== focusSource }
    for item in [focusSource] + extra + [wayland].compactMap({ $0 }) { agent.add(item) }
    let learnedWords = LearnedWordsKeeper(loop: agent.loop, logger: logger)
    learnedWords.onWords = { words in daemon.report(learnedWords: words) }
    daemon.onWordLearned = { word in learnedWords.learn(word) }
    if let sessionBus {
      agent.add(sessionBus)
      if !print { showDaemon(daemon, picker: picker != nil, bus: sessionBus, agent: agent, logger: logger) }
    }
    if !print {
      agent.add(daemon)
      agent.add(userSnippets)
      agent.add(learnedWords)
      daemon.connect()
      userSnippets.start()
      learnedWords.start()
    }
    try focusSource.start()
    try agent.run()
  }

  /// Shows the daemon to the user: notifications of what they should know
  /// (a pause, a config that did not load, a snippet not typed, a session
  /// the daemon does not follow) and the status icon, on `bus`.
  private func showDaemon(_ daemon: DaemonLink, picker: Bool, bus: SessionBus, agent: AgentLoop, logger: Logger) {
    let notifier = Notifier(bus: bus, loop: agent.loop, logger: logger)
    let icon = StatusIcon(hasPicker: picker, loop: agent.loop, logger: logger)
    icon.onCommand = { [unowned daemon] command in daemon.command(command) }
    daemon.onEvent = { event in
      icon.show(event)
      if let notice = Notice.about(event) { notifier.show(notice) }
    }
    daemon.onStanding = { standing, first in
      notifier.isEnabled = standing.notifications ?? true
      if standing.active {
        notifier.withdraw(.session)
      } else {
        icon.hide()
        if first { notifier.show(.inactiveSession) }
      }
    }
    daemon.onLost = { icon.hide() }
    agent.add(icon)
  }

  /// The source `--source` names, or the first the session offers; on
  /// `wayland`, the agent's connection to the compositor, where there is one.
  private func openSource(_ environment: SessionEnvironment, wayland: WaylandConnection?, logger: Logger)
    throws(AgentExit) -> FocusSource
  {
    func bridge(_ desktop: ShellBridge.Desktop) throws(AgentExit) -> FocusSource {
      try ShellBridge(desktop: desktop, kwinScript: Self.kwinScript, logger: logger)
    }
    switch source {
    case .wlroots: if let wayland { return try ForeignToplevelSource(on: wayland) }
    case .x11: return try X11Source()
    case .gnome: return try bridge(.gnome)
    case .kde: return try bridge(.kde)
    case .auto: break
    }
    if let wayland {
      if let source = try? ForeignToplevelSource(on: wayland) { return source }
      if environment.desktops.contains("GNOME") { return try bridge(.gnome) }
      if environment.desktops.contains("KDE") { return try bridge(.kde) }
      guard environment.x11 else {
        throw AgentExit.unavailable("this Wayland compositor tells no client which window has the focus")
      }
      logger.warning("this Wayland compositor tells nothing of the focus: following its Xwayland windows only")
      return try X11Source()
    }
    guard environment.x11 else {
      throw AgentExit.unavailable("no graphical session: neither WAYLAND_DISPLAY nor DISPLAY is set")
    }
    return try X11Source()
  }

  /// Where the field's role and text come from, best first: the
  /// compositor's input method protocol on wlroots compositors where no
  /// other input method holds the seat, else the accessibility bus; on
  /// GNOME Shell the extension (the Shell's input method and IBus's panel),
  /// then the accessibility bus; on KDE Plasma the agent's part that KWin
  /// runs as its input method, where kwinrc names it; elsewhere (X11)
  /// ibus-daemon's bus where IBus runs (roles without text); then the
  /// accessibility bus. Empty: from the app only.
  private func openFieldSources(
    _ environment: SessionEnvironment, wayland: WaylandConnection?, focusSource: FocusSource, loop: EventLoop,
    logger: Logger
  ) -> [FieldSource] {
    var sources: [FieldSource] = []
    let bridge = focusSource as? ShellBridge
    if let bridge, bridge.desktop == .gnome {
      sources.append(bridge)
    } else if let bridge {
      switch KWinSetup.current() {
      case .vkbd:
        sources.append(bridge)
      case .none:
        logger.notice(
          "KWin has no input method: text fields are learned from AT-SPI only (vkbd-agent --setup-kwin makes this agent KWin's)"
        )
      case .other(let other):
        logger.notice("KWin's input method is \(other): it stays, and text fields are learned from AT-SPI only")
      }
    } else if let wayland {
      do {
        return [try InputMethodSource(on: wayland, logger: logger)]
      } catch {
        logger.info("no input method: \(error.message)")
      }
    }
    // GNOME Shell is IBus's panel: the extension tells what IBus hears.
    if bridge?.desktop != .gnome {
      do {
        sources.append(try IBusSource(loop: loop, logger: logger))
      } catch {
        logger.info("no IBus: \(error.message)")
      }
    }
    do {
      sources.append(try AccessibilitySource(loop: loop, logger: logger))
    } catch {
      logger.info("no accessibility bus: \(error.message)")
    }
    return sources
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

  /// Where the snippet picker is shown, and what the loop must watch for
  /// it: a layer-shell surface on Wayland compositors that have the
  /// protocol (wlroots, KWin), the GNOME extension's on GNOME Shell, an
  /// override-redirect window on X11; nil where none of them is there.
  private func openPicker(
    _ environment: SessionEnvironment, wayland: WaylandConnection?, focusSource: FocusSource, logger: Logger
  ) -> (
    window: PickerWindow, pollable: [Pollable]
  )? {
    if let bridge = focusSource as? ShellBridge, bridge.desktop == .gnome { return (bridge, []) }
    let appearance = Appearance(gtkTheme: environment.gtkTheme, logger: logger)
    let theme = { [unowned appearance] in appearance.theme }
    do {
      if let wayland {
        return (try LayerShellPicker(on: wayland, theme: theme, logger: logger), [appearance])
      }
      if environment.x11 {
        let window = try X11Picker(theme: theme, logger: logger)
        return (window, [window, appearance])
      }
    } catch {
      logger.notice("no snippet picker in this session: \(error.message)")
    }
    return nil
  }

  /// The KWin script, installed beside the agent: PREFIX/share/vkbd/kwin/.
  static var kwinScript: String { installPrefix + "/share/vkbd/kwin/vkbd-focus.js" }

  /// Where the agent is installed: PREFIX of PREFIX/bin/vkbd-agent.
  static var installPrefix: String {
    let executable = (try? Files.readLink("/proc/self/exe")) ?? ""
    return "/" + executable.split(separator: "/").dropLast(2).joined(separator: "/")
  }
}
