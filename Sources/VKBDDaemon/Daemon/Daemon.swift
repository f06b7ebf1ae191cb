import AgentProtocol
import CEvdev
import CLinuxSystem
import Glibc
import KeyboardEngine
import LinuxSystem
import Logging

/// The daemon (DESIGN 4): grabs the keyboards, runs their events through the
/// engine, and types the result on the virtual keyboard. One thread, one
/// epoll: device fds, the udev monitor, a timerfd for the engine's next
/// deadline, a signalfd, the control and agent sockets and the seat's
/// monitor. Data flows one way: device → engine → virtual keyboard, in the
/// same loop turn. The concerns around that path have files of their own:
/// the devices (``InputDevices``), a suspend (Suspend.swift), the control
/// socket (ControlRequests.swift), the session agents (AgentReports.swift),
/// loading and reloading (Reload.swift, away from the keys in
/// ``EngineLoader``) and the start's warm-up (WarmUp.swift).
final class Daemon {
  /// Exit statuses besides success.
  static let panicStatus: Int32 = 75  // EX_TEMPFAIL: the user pulled the panic chord

  let logger: Logger
  let configPath: String?
  var configuration: Configuration
  var engine: Engine
  let keyboard: VirtualKeyboard
  let loop: EventLoop
  let devices: InputDevices
  private let timer: DeadlineTimer
  private let signals: SignalReceiver
  var output = KeyOutput(capacity: 4096)
  var exitStatus: Int32?
  var control: ControlServer?
  var agents: AgentServer?
  let seat = ActiveSeat()
  /// The focused window as the active user's agent reports it, and the app
  /// rule in force.
  var context = FocusContext()
  /// The desktop's layout, as the active user's agent reports it.
  var desktop = DesktopLayout()
  /// The active user's own snippets, app rules and search settings, as
  /// their agent sent their espanso files: in use for that user's session
  /// only.
  var user = UserSnippets()
  /// The rules in force: the config's, the user's, the built-in ones.
  var appRules: AppRules { configuration.apps.adding(user.rules) }
  /// What the engine does where no app rule says otherwise: the config's
  /// settings with those the active user's espanso config may choose.
  var globalSettings: EngineConfiguration { configuration.engine(with: user.settings) }
  /// Loads the config and the user's snippets away from the keys.
  let loader: EngineLoader
  /// The layout the config names, or the system's: the engine's when no
  /// agent reports the desktop's.
  var configuredLayout: Layout
  /// The spelling dictionaries and the user's learned words.
  let spelling: DaemonSpelling
  var statistics = Statistics()
  var sleepWatch = SleepWatch()
  let startTime = monotonicMicroseconds()
  var configLoaded = time(nil)
  /// What the last reload found wrong, until one succeeds (`vkbd status`).
  var reloadProblems: [String] = []
  /// The deadline the timerfd is armed for.
  private var armedDeadline: Instant?
  /// An engine made (a reload, the user's snippets) while the one in use
  /// was busy: installed once it is done.
  var waitingEngine: Engine?
  /// What `vkbd listen` and the agents last heard.
  var announced = AnnouncedState()
  /// The config and the match files it names, watched for changes.
  var configWatch: ConfigWatch?
  /// The heap's trim, once the keyboard rests after a load.
  var scheduledTrim: ScheduledTimer?

  /// How many socket clients (control clients and agents) one loop turn
  /// serves at most: the others wait for the next turn, after the keys that
  /// came in between.
  let clientBudget = TurnBudget(perTurn: 4)

  /// Creates the virtual keyboard, opens udev and the loop's fds, and takes
  /// the devices present.
  init(configuration: Configuration, configPath: String?, logger: Logger) throws(SystemError) {
    self.logger = logger
    self.configPath = configPath
    self.configuration = configuration
    // Creating the virtual keyboard mostly waits in the kernel (RCU grace
    // periods as its LEDs register: 45 ms in the test VM); building the
    // engine and warming its key path are all computing. They overlap.
    let creation = BackgroundWork { Result { () throws(SystemError) in try VirtualKeyboard(logger: logger) } }
    do {
      engine = try Self.makeEngine(configuration, logger: logger)
      configuredLayout = engine.layout
      Self.warmUp(like: engine)
    } catch {
      _ = creation.wait()
      throw error
    }
    keyboard = try creation.wait().get()
    keyboard.pace(configuration.engine.expansion)
    loop = try EventLoop()
    timer = try DeadlineTimer()
    signals = try SignalReceiver([SIGTERM, SIGINT, SIGHUP])
    devices = try InputDevices(filter: configuration.devices, loop: loop, logger: logger)
    loader = EngineLoader(loop: loop, logger: logger)
    spelling = DaemonSpelling(loop: loop, logger: logger)
    let control = try ControlServer(
      path: configuration.controlSocket, groupName: configuration.controlGroup, loop: loop, budget: clientBudget,
      logger: logger)
    self.control = control
    control.respond = { [unowned self] request, client in respond(to: request, from: client) }
    loader.job = { [unowned self] request in
      EngineLoader.Job(request: request, configPath: configPath, configuration: configuration, user: user)
    }
    loader.finished = { [unowned self] outcome in loaded(outcome) }
    control.currentState = { [unowned self] in event(.state) }
    try loop.watch(devices.udev.fd) { [unowned self] _ in udevChanged() }
    try loop.watch(timer.fd) { [unowned self] _ in timerFired() }
    try loop.watch(signals.fd) { [unowned self] _ in signalsCame() }
    try loop.watch(keyboard.fd) { [unowned self] _ in ledsChanged() }
    desktop.defaultLocale = configuredLayout.names.locale
    context.apply(rules: appRules, global: globalSettings, to: engine)  // no agent has reported yet
    try startAgents()
    askSession(from: engine)
    spelling.onLoaded = { [unowned self] in trimWhenIdle() }
    spelling.onTaught = { [unowned self] word in _ = agents?.teach(word) }
    spelling.share(with: engine)
    for event in devices.udev.inputDevices() where devices.add(event) { engine.resetText() }
    watchConfig()
    remember()
    enterRealTime()
    for refused in Privileges.dropAfterStart() { logger.warning("running with more privilege than needed: \(refused)") }
    _ = malloc_trim(0)  // the config's YAML tree and the keymap compiler's work are freed: give the pages back
    logger.info(
      "ready",
      metadata: [
        "virtual keyboard": "\(keyboard.node ?? "?")", "control socket": "\(control.path)",
        "agent socket": "\(agents?.path ?? "-")",
      ])
  }

  /// The loop's real-time priority: just below the kernel's interrupt
  /// threads (50), whose keyboards' events it waits for; keyd runs at the
  /// same.
  static let loopPriority: Int32 = 49
  /// How long the loop may run without waiting before the kernel ends the
  /// daemon (SIGXCPU; SIGKILL at twice it): its longest turn is some ms,
  /// and a slow machine's some tenths of a second.
  static let longestRun: UInt = 5_000_000

  /// Puts the loop's thread under `SCHED_FIFO` (vkbd(8), DESCRIPTION): a key
  /// wakes it ahead of every ordinary thread, and the thread its write
  /// wakes waits until it is done. The threads made from here on (loads,
  /// answers, the typist of long expansions) run under an ordinary
  /// policy, loads at the least one. Under
  /// the systemd unit, which forbids a process to raise itself, systemd has
  /// done it before the start.
  private func enterRealTime() {
    do {
      try RealTime.bound(Self.longestRun)
      if RealTime.current == nil { try RealTime.enter(priority: Self.loopPriority) }
    } catch {
      logger.warning("keys wait behind ordinary threads: \(error)")
    }
  }

  /// Runs until a signal or the panic chord; returns the exit status.
  func run() -> Int32 {
    while exitStatus == nil {
      let count: Int
      do {
        count = try loop.wait()
      } catch {
        logger.critical("\(error)")
        shutDown(status: 70)  // EX_SOFTWARE
        break
      }
      noticeSleep()
      // Key events first; udev, signals and the sockets after them, so
      // that no client can hold a key back for long.
      for index in 0..<count where devices.isDevice(loop.token(at: index)) && exitStatus == nil {
        if let input = devices.input(for: loop.token(at: index)) { read(input) }
      }
      clientBudget.renew()
      for index in 0..<count where !devices.isDevice(loop.token(at: index)) && exitStatus == nil {
        loop.dispatch(at: index)
      }
      if let waitingEngine, !engine.isBusy { install(waitingEngine) }
      announceChanges()
      let deadline = engine.nextDeadline
      if deadline != armedDeadline {  // a syscall only when the deadline moved
        timer.arm(at: deadline?.microseconds)
        armedDeadline = deadline
      }
    }
    return exitStatus ?? 0
  }

  private func udevChanged() {
    while let event = devices.udev.receive() {
      if event.action == "remove" {
        if let input = devices.remove(path: event.node) { releaseKeys(of: input) }
      } else if devices.add(event) {
        engine.resetText()  // device changes make the text before the cursor unknown
      }
    }
  }

  private func timerFired() {
    timer.acknowledge()
    armedDeadline = nil
    engine.advance(to: Instant(microseconds: monotonicMicroseconds()), into: &output)
    flush(sourceTime: nil, timed: true)
  }

  private func signalsCame() {
    while let signal = signals.next() {
      switch signal {
      case SIGHUP: reload(by: "SIGHUP")
      default:
        logger.info("signal \(signal): releasing every key and exiting")
        shutDown(status: 0)
      }
    }
  }

  private func ledsChanged() {
    keyboard.readLEDs { code, on in
      for input in devices.grabbed { input.device.setLED(code, on: on) }
      switch Int32(code) {
      case LED_NUML: engine.indicatorChanged(.numLock, on: on)
      case LED_CAPSL: engine.indicatorChanged(.capsLock, on: on)
      default: break
      }
    }
  }

  // MARK: - Key events

  private func read(_ input: InputDevices.Input) {
    let resyncs = input.device.resyncs
    defer {
      if input.device.resyncs > resyncs {
        logger.notice("the kernel dropped events; resynced held keys", metadata: ["device": "\(input.device.name)"])
      }
    }
    let end = input.device.readEvents { event, resynced in
      guard exitStatus == nil else { return }
      if input.role == .grabbed, let pointer = input.pointer {
        do {
          // A click: the cursor may be anywhere.
          if try pointer.take(event, onClick: { engine.resetText() }) { return }
        } catch {
          logger.error("\(error)")
          return
        }
      }
      guard event.type == UInt16(EV_KEY) else { return }
      switch input.role {
      case .grabbed: keyEvent(event, from: input, resynced: resynced)
      case .pointer: if event.value == 1 { engine.resetText() }  // a click: the cursor may be anywhere
      case .readOnly: if event.value == 1 { engine.keyPressedElsewhere(event.code) }
      case .waitingForRelease: break  // not ours yet: the desktop has it
      }
    }
    if case .failed(let error) = end {
      logger.info("device gone", metadata: ["device": "\(input.device.name)", "error": "\(error)"])
      if devices.remove(input) { releaseKeys(of: input) }
      return
    }
    if input.role == .waitingForRelease { devices.grabWhenReleased(input) }
  }

  func keyEvent(_ event: input_event, from input: InputDevices.Input, resynced: Bool) {
    let code = Int(event.code)
    guard code < KeyCode.count, let value = KeyValue(rawValue: event.value) else { return }
    if value != .repeat { input.held[code] = value == .down }
    if value == .down && Self.panicChord.contains(event.code) && isPanicChordHeld() {
      logger.critical("panic chord (Backspace+Escape+Enter): releasing every key and exiting")
      shutDown(status: Self.panicStatus)
      return
    }
    let time = Instant(microseconds: event.microseconds)
    statistics.eventsIn += 1
    statistics.lastKeyTime = time.microseconds
    // Touch-down: the engine's bookkeeping for a key it passes unchanged
    // waits until the key is written.
    engine.handleBeforeSettling(KeyEvent(code: event.code, value: value, time: time, device: input.id), into: &output)
    flush(sourceTime: resynced ? nil : time)
    engine.settle()
  }

  private static let panicChord = [UInt16(KEY_BACKSPACE), UInt16(KEY_ESC), UInt16(KEY_ENTER)]

  /// Backspace, Escape and Enter held together, on any grabbed keyboards.
  /// Checked before the engine sees the key; no configuration turns it off.
  private func isPanicChordHeld() -> Bool {
    var backspace = false
    var escape = false
    var enter = false
    for input in devices.grabbed {
      backspace = backspace || input.held[Int(KEY_BACKSPACE)]
      escape = escape || input.held[Int(KEY_ESC)]
      enter = enter || input.held[Int(KEY_ENTER)]
    }
    return backspace && escape && enter
  }

  /// Tells the engine of a key the daemon found down or up without an event.
  func press(_ code: UInt16, down: Bool, on input: InputDevices.Input, at time: Instant) {
    input.held[Int(code)] = down
    engine.handle(KeyEvent(code: code, value: down ? .down : .up, time: time, device: input.id), into: &output)
  }

  /// Writes what the engine emitted, as fast as the virtual keyboard's
  /// pacing lets it go (`timed`: a timer's turn made it); records the
  /// latency from `sourceTime` (a key event's kernel time) of what went at
  /// once.
  func flush(sourceTime: Instant?, timed: Bool = false) {
    guard !output.events.isEmpty else { return }
    statistics.eventsOut += UInt64(output.events.count)
    do {
      if try keyboard.write(output.events, at: sourceTime?.microseconds ?? monotonicMicroseconds(), timed: timed),
        let sourceTime
      {
        statistics.record(latency: monotonicMicroseconds() - sourceTime.microseconds, events: output.events.count)
      }
    } catch {
      logger.error("\(error)")
    }
    output.removeAll()
  }

  /// The keys a device that is gone held go up on the virtual keyboard.
  func releaseKeys(of input: InputDevices.Input) {
    let now = Instant(microseconds: monotonicMicroseconds())
    for code in 0..<KeyCode.count where input.held[code] {
      engine.handle(KeyEvent(code: UInt16(code), value: .up, time: now, device: input.id), into: &output)
    }
    flush(sourceTime: nil)
    engine.resetText()
  }

  // MARK: - Exit

  /// Releases every key on the virtual keyboard, lets the devices go, and
  /// ends the loop with `status`. The virtual keyboard is destroyed with the
  /// daemon.
  func shutDown(status: Int32) {
    engine.releaseAll(into: &output)
    flush(sourceTime: nil)
    keyboard.finish()
    devices.ungrabAll()
    logger.debug("latency (µs) from the source event's kernel time to our write", metadata: statistics.summary)
    exitStatus = status
  }
}
