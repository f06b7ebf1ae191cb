import AgentProtocol
import Glibc
import KeyboardEngine
import LinuxSystem

/// The session agents (DESIGN 7): the daemon listens for them, follows
/// whose session is active, and lets the active user's agent choose the
/// app rule in force.
extension Daemon {
  /// Lets `engine` ask the active user's agent for the snippet variables
  /// only the session can work out (the daemon runs no program), show
  /// the picker (DESIGN 8), and tell of a snippet it could not type.
  func askSession(from engine: Engine) {
    engine.onNotice = { [unowned self] notice in
      logger.warning("\(notice)")
      var failed = event(.snippetFailed)
      failed.reason = notice.description
      announce(failed)
    }
    engine.onSessionCall = { [unowned self] request in agents?.ask(VariableRequest(request)) ?? false }
    engine.onPicker = { [unowned self] view in agents?.showPicker(view.map(PickerShow.init)) ?? false }
  }

  /// Closes the picker, as Escape does: the keys are the application's again.
  func closePicker() {
    guard engine.isPickerOpen else { return }
    engine.closePicker(at: Instant(microseconds: monotonicMicroseconds()), into: &output)
    flush(sourceTime: nil)
  }

  /// Opens the agent socket and starts following the seat.
  func startAgents() throws(SystemError) {
    let agents = try AgentServer(path: configuration.agentSocket, loop: loop, budget: clientBudget, logger: logger)
    self.agents = agents
    agents.onEvent = { [unowned self] in agentTold($0) }
    agents.currentState = { [unowned self] in event(.state) }
    agents.setNotifications(configuration.notifications)
    if let fd = seat.fd { try loop.watch(fd) { [unowned self] _ in seatChanged() } }
    seatChanged()
  }

  /// What an agent told: each goes where it belongs.
  func agentTold(_ told: AgentEvent) {
    switch told {
    case .focus(let report):
      focusChanged(report)
    case .field(let report):
      context.update(report, rules: appRules, global: globalSettings, engine: engine)
      loadDictionaries()
    case .layout(let report):
      desktopLayoutChanged(report)
    case .value(let answer):
      engine.sessionAnswered(
        answer.id, value: answer.engineResult, at: Instant(microseconds: monotonicMicroseconds()), into: &output)
      flush(sourceTime: nil)
    case .snippets(let sent):
      userSnippetsChanged(sent)
    case .learnedWords(let words):
      spelling.learnedWordsChanged(words)
    case .dialogShown(let id):
      engine.sessionDialogShown(id, at: Instant(microseconds: monotonicMicroseconds()), into: &output)
      flush(sourceTime: nil)
    case .pickerLost:
      closePicker()
    case .connected(let uid):
      announceAgent(.agentConnected, uid: uid)
    case .disconnected(let uid):
      announceAgent(.agentDisconnected, uid: uid)
    case .command(let command):
      switch command {
      case .pause, .resume: setPaused(command == .pause, by: DaemonEvent.statusIcon)
      case .reload: reload(by: DaemonEvent.statusIcon)
      case .picker:
        if engine.openPicker(into: &output) { flush(sourceTime: nil) }
      }
    }
  }

  private func announceAgent(_ kind: DaemonEvent.Kind, uid: uid_t) {
    var change = event(kind)
    change.uid = UInt32(uid)
    announce(change)
  }

  /// The seat's active session changed (or `session_users` did): the
  /// agents hear whether they count, and the focus is unknown until the
  /// new user's agent reports.
  func seatChanged() {
    seat.acknowledge()
    let (users, fromLogind) = seat.activeUsers(sessionUsers: configuration.sessionUsers)
    if users.isEmpty && !fromLogind {
      logger.notice("logind does not run and session_users names no one: no session agent's report counts")
    } else {
      let uids = users.map { String($0) }.joined(separator: " ")
      logger.info(
        "session agents that count",
        metadata: ["uids": "\(uids)", "from": "\(fromLogind ? "logind" : "session_users")"])
    }
    agents?.setActiveUsers(users)
  }

  /// A report of the active user's agent, or nil when none reports: the
  /// rule for the window, over the global settings, goes to the engine.
  private func focusChanged(_ report: FocusReport?) {
    if context.moves(to: report) { closePicker() }
    context.update(report, rules: appRules, global: globalSettings, engine: engine)
    loadDictionaries()
    // The app id and the rule, never the title.
    logger.debug(
      "focus",
      metadata: [
        "app": "\(report.map { $0.window == 0 ? "(none)" : $0.app } ?? "(no agent)")",
        "rule": "\(context.rule.map { "\($0.index + 1)" } ?? "-")",
      ])
  }

  /// The desktop's layout as the active user's agent reports it (nil: no
  /// agent reports one): the engine follows it, unless the config names a
  /// layout. A report that does not compile is refused and the layout in
  /// force stays. When the agent goes, the configured layout comes back;
  /// when none was followed, the group the keys chose stays.
  func desktopLayoutChanged(_ report: LayoutReport?) {
    guard let report else {
      if desktop.forget() && configuration.layout == nil { engine.follow(configuredLayout, group: 0) }
      return
    }
    do {
      let (layout, group) = try desktop.take(report)
      guard configuration.layout == nil else { return }
      if layout !== engine.layout {
        logger.info(
          "following the desktop's layout",
          metadata: [
            "layout": "\(layout.names)", "from": "\(report.source)",
            "locale": "\(layout.names.locale.isEmpty ? "-" : layout.names.locale)",
          ])
      }
      engine.follow(layout, group: group)
    } catch {
      if error.isNew { logger.notice("\(error); the layout in force stays") }
    }
  }

  /// The layout in force and where it comes from, for `vkbd status`.
  var layoutOrigin: String {
    if configuration.layout != nil { return "config" }
    if let report = desktop.report { return "desktop (\(report.source)), group \(report.group + 1)" }
    return "the system (\(SystemKeyboard.paths.joined(separator: " or ")))"
  }

  /// What `vkbd status` says of the focus, the rule and the agents.
  func focusStatus() -> FocusStatus {
    let rule = context.rule
    let (users, fromLogind) = seat.activeUsers(sessionUsers: configuration.sessionUsers)
    return FocusStatus(
      app: context.focus?.app,
      role: context.isFieldUnknown
        ? "unknown" : context.field?.maybeSecret == true ? "maybe-secret" : context.matched?.role?.rawValue,
      fieldSource: context.field?.source,
      refused: context.field.map { field in
        [("capitals", field.capitals), ("correction", field.correction)].filter { $0.1 == false }.map(\.0)
      },
      rule: rule.map { $0.index + 1 },
      ruleOrigin: rule?.rule.origin, settings: rule?.rule.settings.description ?? "the global settings",
      seat: fromLogind ? "logind" : "session_users", activeUsers: users.map { UInt32($0) },
      agents: agents?.statuses ?? [])
  }
}
