import CEvdev
import Glibc
import Histogram
import KeyboardEngine
import Logging

/// The daemon (DESIGN 4): grabs the keyboards, runs their events through the
/// engine, and types the result on the virtual keyboard. One thread, one
/// epoll: device fds, the udev monitor, a timerfd for the engine's next
/// deadline, a signalfd. Data flows one way: device → engine → virtual keyboard,
/// in the same loop turn.
final class Daemon {
  /// Exit statuses besides success.
  static let panicStatus: Int32 = 75  // EX_TEMPFAIL: the user pulled the panic chord

  private let logger: Logger
  private let configPath: String?
  private var configuration: Configuration
  private var engine: Engine
  private let keyboard: VirtualKeyboard
  private let loop: EventLoop
  private let udev: Udev
  private let timer: DeadlineTimer
  private let signals: SignalReceiver
  /// The devices read, by slot: a device's epoll token is
  /// `Token.firstDevice` + its slot, so an event finds its device without
  /// hashing. A removed device's slot is taken by the next one added.
  private var slots: [Source?] = []
  private var nextDeviceID: Int32 = 1
  private var output = KeyOutput(capacity: 4096)
  private var exitStatus: Int32?
  private var control: ControlServer?
  /// Every input device seen, by path, for `vkbd devices`.
  private var seen: [String: DeviceReport] = [:]
  private let startTime = monotonicMicroseconds()
  private var configLoaded = time(nil)
  private var eventsIn: UInt64 = 0
  private var eventsOut: UInt64 = 0
  private var statsSince = monotonicMicroseconds()
  private var timeAsleepBefore = Daemon.timeAsleep()
  /// CLOCK_BOOTTIME at the last loop turn, in microseconds.
  private var bootTimeBefore = Daemon.bootTime()
  /// The deadline the timerfd is armed for.
  private var armedDeadline: Instant?
  /// Microseconds from a source event's kernel timestamp to the write of
  /// what it made the engine emit.
  private(set) var latency = Histogram<UInt64>(
    highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)

  /// What each fd on the loop is. The control socket's tokens are its own:
  /// 5 and 6, and 2^40 and above, past every device's.
  private enum Token {
    static let udev: UInt64 = 1
    static let timer: UInt64 = 2
    static let signals: UInt64 = 3
    static let keyboard: UInt64 = 4
    static let firstDevice: UInt64 = 16
  }

  /// An input device the daemon reads.
  private final class Source {
    enum Role {
      /// A keyboard waiting for its keys to be up before the grab.
      case waitingForRelease
      /// A grabbed keyboard: its events go through the engine.
      case grabbed
      /// A pointer, read (not grabbed) for button presses.
      case pointer
    }

    let device: EvdevDevice
    let id: DeviceID
    let token: UInt64
    var role: Role
    /// The keys this device holds down, as far as the engine was told.
    var held = [Bool](repeating: false, count: KeyCode.count)

    init(device: EvdevDevice, id: DeviceID, token: UInt64, role: Role) {
      self.device = device
      self.id = id
      self.token = token
      self.role = role
    }
  }

  /// Every device read.
  private var sources: [Source] { slots.compactMap { $0 } }

  /// Creates the virtual keyboard, opens udev and the loop's fds, and takes
  /// the devices present.
  init(configuration: Configuration, configPath: String?, logger: Logger) throws(SystemError) {
    self.logger = logger
    self.configPath = configPath
    self.configuration = configuration
    // Creating the virtual keyboard mostly waits in the kernel (RCU grace
    // periods as its LEDs register: 45 ms in the test VM); building the
    // engine is all computing. They overlap.
    let creation = BackgroundWork { Result { () throws(SystemError) in try VirtualKeyboard() } }
    do {
      engine = try Self.makeEngine(configuration, logger: logger)
    } catch {
      _ = creation.wait()
      throw error
    }
    keyboard = try creation.wait().get()
    loop = try EventLoop()
    timer = try DeadlineTimer()
    udev = try Udev()
    signals = try SignalReceiver([SIGTERM, SIGINT, SIGHUP])
    try loop.watch(udev.fd, token: Token.udev)
    try loop.watch(timer.fd, token: Token.timer)
    try loop.watch(signals.fd, token: Token.signals)
    try loop.watch(keyboard.fd, token: Token.keyboard)
    let control = try ControlServer(
      path: configuration.controlSocket, groupName: configuration.controlGroup, loop: loop, logger: logger)
    self.control = control
    control.respond = { [unowned self] request in respond(to: request) }
    if !udev.isUdevdRunning { logger.info("udevd is not running: hotplug from the kernel's uevents") }
    for event in udev.inputDevices() { add(event) }
    for refused in Privileges.dropAfterStart() { logger.warning("running with more privilege than needed: \(refused)") }
    _ = malloc_trim(0)  // the config's YAML tree and the keymap compiler's work are freed: give the pages back
    logger.info(
      "ready", metadata: ["virtual keyboard": "\(keyboard.node ?? "?")", "control socket": "\(control.path)"])
  }

  private static func makeEngine(_ configuration: Configuration, logger: Logger) throws(SystemError) -> Engine {
    let layout: Layout
    do {
      layout = try configuration.makeLayout()
    } catch {
      throw SystemError("compile keymap", error.description, errno: EINVAL)
    }
    let snippets = SnippetMatcher(configuration.snippets)
    for shadowed in snippets.shadowed {
      logger.warning("\(shadowed.lost): trigger already defined at \(shadowed.kept); this one is ignored")
    }
    let engine = Engine(layout: layout, configuration: configuration.engine, snippets: snippets)
    engine.onNotice = { logger.warning("\($0)") }
    logger.info(
      "engine ready",
      metadata: [
        "layout": "\(layout.names)", "snippets": "\(configuration.snippets.count)",
        "config": "\(configuration.source)",
      ])
    return engine
  }

  /// How many control clients one loop turn serves at most: the others
  /// wait for the next turn, after the keys that came in between.
  private static let clientEventsPerTurn = 4

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
      // Key events first; udev, signals and the control socket after them,
      // so that no client can hold a key back for long.
      for index in 0..<count where isDevice(loop.token(at: index)) && exitStatus == nil {
        dispatch(loop.token(at: index))
      }
      var clientBudget = Self.clientEventsPerTurn
      for index in 0..<count where !isDevice(loop.token(at: index)) && exitStatus == nil {
        let token = loop.token(at: index)
        if token >= Token.firstDevice {  // a control client's
          guard clientBudget > 0 else { continue }
          clientBudget -= 1
        }
        dispatch(token)
      }
      let deadline = engine.nextDeadline
      if deadline != armedDeadline {  // a syscall only when the deadline moved
        timer.arm(at: deadline?.microseconds)
        armedDeadline = deadline
      }
    }
    return exitStatus ?? 0
  }

  private func isDevice(_ token: UInt64) -> Bool {
    token >= Token.firstDevice && token < Token.firstDevice + UInt64(slots.count)
  }

  private func dispatch(_ token: UInt64) {
    switch token {
    case Token.udev:
      while let event = udev.receive() { event.action == "remove" ? remove(path: event.node) : add(event) }
    case Token.timer:
      timer.acknowledge()
      armedDeadline = nil
      engine.advance(to: Instant(microseconds: monotonicMicroseconds()), into: &output)
      flush(sourceTime: nil)
    case Token.signals:
      while let signal = signals.next() {
        switch signal {
        case SIGHUP: _ = reload()
        default:
          logger.info("signal \(signal): releasing every key and exiting")
          shutDown(status: 0)
        }
      }
    case Token.keyboard:
      keyboard.readLEDs { code, on in
        for source in sources where source.role == .grabbed { source.device.setLED(code, on: on) }
      }
    case _ where isDevice(token):
      if let source = slots[Int(token - Token.firstDevice)] { read(source) }
    default:
      _ = control?.handle(token)
    }
  }

  // MARK: - Suspend

  /// CLOCK_BOOTTIME − CLOCK_MONOTONIC, in microseconds: it grows only while
  /// the system sleeps.
  private static func timeAsleep() -> Int64 { bootTime() - monotonicMicroseconds() }

  private static func bootTime() -> Int64 {
    var boot = timespec()
    clock_gettime(CLOCK_BOOTTIME, &boot)
    return Int64(boot.tv_sec) * 1_000_000 + Int64(boot.tv_nsec) / 1000
  }

  /// After a suspend, what was held before it means nothing: every key goes
  /// up on the virtual keyboard, the keys the kernel says are down now
  /// (EVIOCGKEY) go down again, and the keys pressed or released since the
  /// wake follow as their events say.
  private func noticeSleep() {
    // The time asleep grows no faster than CLOCK_BOOTTIME: while keys come
    // less than a second apart, one clock read a turn tells it cannot have
    // grown by a second.
    let boot = Self.bootTime()
    defer { bootTimeBefore = boot }
    guard boot - bootTimeBefore > 1_000_000 else { return }
    let asleep = boot - monotonicMicroseconds()
    guard asleep - timeAsleepBefore > 1_000_000 else { return }
    timeAsleepBefore = asleep
    logger.notice("the system slept; releasing every key and reading the keyboards again")
    let grabbed = sources.filter { $0.role == .grabbed }
    // The events since the wake are read first: EVIOCGKEY drops those still
    // waiting. Its state then differs from theirs only by a press or release
    // in the microseconds between, which the last step makes good.
    var pending: [(source: Source, event: input_event, resynced: Bool)] = []
    for source in grabbed {
      _ = source.device.readEvents { event, resynced in
        if event.type == UInt16(EV_KEY) { pending.append((source, event, resynced)) }
      }
    }
    let kernelState = grabbed.map { $0.device.keyState() }
    engine.releaseAll(into: &output)
    flush(sourceTime: nil)
    engine.resetText()
    let now = Instant(microseconds: monotonicMicroseconds())
    for (source, down) in zip(grabbed, kernelState) {
      source.held = [Bool](repeating: false, count: KeyCode.count)
      for code in 0..<KeyCode.count
      where down[code] && !pending.contains(where: { $0.source === source && Int($0.event.code) == code }) {
        press(UInt16(code), down: true, on: source, at: now)
      }
    }
    flush(sourceTime: nil)
    for (source, event, resynced) in pending where exitStatus == nil {
      keyEvent(event, from: source, resynced: resynced)
    }
    guard exitStatus == nil else { return }  // the panic chord, among those events
    for (source, down) in zip(grabbed, kernelState) {
      for code in 0..<KeyCode.count where source.held[code] != down[code] {
        press(UInt16(code), down: down[code], on: source, at: now)
      }
    }
    flush(sourceTime: nil)
  }

  /// Tells the engine of a key the daemon found down or up without an event.
  private func press(_ code: UInt16, down: Bool, on source: Source, at time: Instant) {
    source.held[Int(code)] = down
    engine.handle(KeyEvent(code: code, value: down ? .down : .up, time: time, device: source.id), into: &output)
  }

  // MARK: - Key events

  private func read(_ source: Source) {
    let resyncs = source.device.resyncs
    defer {
      if source.device.resyncs > resyncs {
        logger.notice("the kernel dropped events; resynced held keys", metadata: ["device": "\(source.device.name)"])
      }
    }
    let end = source.device.readEvents { event, resynced in
      guard event.type == UInt16(EV_KEY), exitStatus == nil else { return }
      switch source.role {
      case .grabbed: keyEvent(event, from: source, resynced: resynced)
      case .pointer: if event.value == 1 { engine.resetText() }  // a click: the cursor may be anywhere
      case .waitingForRelease: break  // not ours yet: the desktop has it
      }
    }
    if case .failed(let error) = end {
      logger.info("device gone", metadata: ["device": "\(source.device.name)", "error": "\(error)"])
      remove(source)
      return
    }
    if source.role == .waitingForRelease { grabWhenReleased(source) }
  }

  private func keyEvent(_ event: input_event, from source: Source, resynced: Bool) {
    let code = Int(event.code)
    guard code < KeyCode.count, let value = KeyValue(rawValue: event.value) else { return }
    if value != .repeat { source.held[code] = value == .down }
    if value == .down && Self.panicChord.contains(event.code) && isPanicChordHeld() {
      logger.critical("panic chord (Backspace+Escape+Enter): releasing every key and exiting")
      shutDown(status: Self.panicStatus)
      return
    }
    let time = Instant(microseconds: event.microseconds)
    eventsIn += 1
    // Touch-down: the engine's bookkeeping for a key it passes unchanged
    // waits until the key is written.
    engine.handleBeforeSettling(KeyEvent(code: event.code, value: value, time: time, device: source.id), into: &output)
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
    for source in sources where source.role == .grabbed {
      backspace = backspace || source.held[Int(KEY_BACKSPACE)]
      escape = escape || source.held[Int(KEY_ESC)]
      enter = enter || source.held[Int(KEY_ENTER)]
    }
    return backspace && escape && enter
  }

  /// Writes what the engine emitted; records the latency from `sourceTime`.
  private func flush(sourceTime: Instant?) {
    guard !output.events.isEmpty else { return }
    eventsOut += UInt64(output.events.count)
    do {
      try keyboard.write(output.events)
    } catch {
      logger.error("\(error)")
    }
    if let sourceTime {
      let elapsed = monotonicMicroseconds() - sourceTime.microseconds
      _ = latency.record(UInt64(max(elapsed, 0)), count: UInt64(output.events.count))
    }
    output.removeAll()
  }

  // MARK: - Devices

  private func add(_ event: Udev.DeviceEvent) {
    guard event.action == "add", !sources.contains(where: { $0.device.path == event.node }) else { return }
    if let unwanted = Self.unwanted(event) {
      seen[event.node] = DeviceReport(
        name: event.name ?? "?", id: event.id ?? "?", path: event.node, grabbed: false, state: unwanted)
      return
    }
    let device: EvdevDevice
    do {
      device = try EvdevDevice(path: event.node)
    } catch {
      logger.debug("not opened: \(error)")
      seen[event.node] = DeviceReport(name: "?", id: "?", path: event.node, grabbed: false, state: "\(error)")
      return
    }
    let name = device.name
    func note(_ state: String) {
      seen[event.node] = DeviceReport(
        name: name, id: device.vendorProduct, path: event.node, grabbed: false, state: state)
    }
    let role: Source.Role
    if name == VirtualKeyboard.name {
      return note("vkbd's own virtual keyboard")
    } else if event.ignored {
      return note("marked VKBD_IGNORE by a udev rule")
    } else if device.isKeyboard {
      guard configuration.devices.admits(name: name, vendorProduct: device.vendorProduct) else {
        logger.info("not grabbed: excluded by devices", metadata: ["device": "\(name)", "path": "\(event.node)"])
        return note("excluded by the devices setting")
      }
      note("waiting for its keys to be released")
      role = .waitingForRelease
    } else if device.isPointer {
      note("a pointer: read for button presses")
      role = .pointer
    } else {
      return note("not a keyboard")
    }
    let slot = slots.firstIndex { $0 == nil } ?? slots.count
    let source = Source(device: device, id: DeviceID(nextDeviceID), token: Token.firstDevice + UInt64(slot), role: role)
    nextDeviceID &+= 1
    do {
      try loop.watch(device.fd, token: source.token)
    } catch {
      logger.error("\(error)")
      return
    }
    if slot == slots.count { slots.append(source) } else { slots[slot] = source }
    engine.resetText()  // device changes make the text before the cursor unknown
    if role == .pointer {
      logger.debug("reading pointer", metadata: ["device": "\(name)"])
    } else {
      grabWhenReleased(source)
    }
  }

  /// Why a device is of no use, as far as sysfs tells without opening it;
  /// nil when it may be (opening it tells the rest).
  private static func unwanted(_ event: Udev.DeviceEvent) -> String? {
    if event.name == VirtualKeyboard.name { return "vkbd's own virtual keyboard" }
    guard let keys = event.keys else { return nil }
    let useful = EvdevDevice.isKeyboard(hasKey: keys.contains) || EvdevDevice.isPointer(hasKey: keys.contains)
    return useful ? nil : "not a keyboard"
  }

  /// Grabs a keyboard once the kernel says no key of it is down, so a key
  /// held at start (the Enter that launched vkbd) is not left repeating. The
  /// check runs again after the grab: a key pressed in between means letting
  /// go and waiting for its release, which the desktop then receives.
  private func grabWhenReleased(_ source: Source) {
    let device = source.device
    guard !device.hasKeysDown() else {
      logger.info("waiting for keys to be released before grabbing", metadata: ["device": "\(device.name)"])
      return
    }
    do {
      try device.grab()
    } catch {
      logger.error("\(error)")
      return
    }
    if device.hasKeysDown() {
      device.ungrab()
      return
    }
    source.role = .grabbed
    seen[device.path]?.grabbed = true
    seen[device.path]?.state = "grabbed"
    logger.info(
      "grabbed keyboard",
      metadata: ["device": "\(device.name)", "id": "\(device.vendorProduct)", "path": "\(device.path)"])
  }

  private func remove(path: String) {
    seen[path] = nil
    guard let source = sources.first(where: { $0.device.path == path }) else { return }
    remove(source)
  }

  /// Forgets a device; the keys it held go up on the virtual keyboard.
  private func remove(_ source: Source) {
    let slot = Int(source.token - Token.firstDevice)
    guard slots[slot] === source else { return }
    slots[slot] = nil
    loop.unwatch(source.device.fd)
    seen[source.device.path] = nil
    let now = Instant(microseconds: monotonicMicroseconds())
    for code in 0..<KeyCode.count where source.held[code] {
      engine.handle(KeyEvent(code: UInt16(code), value: .up, time: now, device: source.id), into: &output)
    }
    flush(sourceTime: nil)
    engine.resetText()
    logger.info("device removed", metadata: ["device": "\(source.device.name)"])
  }

  // MARK: - Reload and exit

  /// SIGHUP or `vkbd reload`: reads the config again; on any problem the
  /// old one keeps running. Returns the problems.
  private func reload() -> [String] {
    let fresh: Configuration
    let newEngine: Engine
    do {
      fresh = try ConfigLoader.load(path: configPath, fallback: .daemonFile)
      let unsafe = fresh.filesOthersCouldEdit()
      guard unsafe.isEmpty else { throw ConfigErrors(problems: unsafe) }
      newEngine = try Self.makeEngine(fresh, logger: logger)
    } catch let errors as ConfigErrors {
      for problem in errors.problems { logger.error("reload: \(problem)") }
      logger.error("reload failed: the previous configuration keeps running")
      return errors.problems.map(\.description)
    } catch {
      logger.error("reload failed: \(error); the previous configuration keeps running")
      return ["\(error)"]
    }
    newEngine.isPaused = engine.isPaused
    // Hand over: nothing stays held from the old engine, and the keys the
    // user still holds go down again through the new one.
    engine.releaseAll(into: &output)
    flush(sourceTime: nil)
    engine = newEngine
    let now = Instant(microseconds: monotonicMicroseconds())
    for source in sources where source.role == .grabbed {
      for code in 0..<KeyCode.count where source.held[code] {
        engine.handle(KeyEvent(code: UInt16(code), value: .down, time: now, device: source.id), into: &output)
      }
    }
    flush(sourceTime: nil)
    let devicesChanged = fresh.devices != configuration.devices
    configuration = fresh
    if devicesChanged {
      for source in sources { remove(source) }
      for event in udev.inputDevices() { add(event) }
    }
    configLoaded = time(nil)
    _ = malloc_trim(0)  // the old engine and the new config's YAML tree are freed
    logger.info("configuration reloaded", metadata: ["config": "\(fresh.source)"])
    return []
  }

  // MARK: - Control

  /// Answers a control-socket request. Nothing here waits: every answer is
  /// state the loop already has.
  private func respond(to request: ControlRequest) -> ControlReply {
    var reply = ControlReply(ok: true)
    switch request.command {
    case .status: reply.status = status()
    case .pause, .resume, .toggle:
      engine.isPaused = request.command == .toggle ? !engine.isPaused : request.command == .pause
      logger.info("\(engine.isPaused ? "paused" : "resumed") by vkbd \(request.command.rawValue)")
      reply.status = status()
    case .reload:
      let problems = reload()
      if !problems.isEmpty {
        return .failure("the config has problems; the previous one keeps running", problems: problems)
      }
      reply.status = status()
    case .devices:
      reply.devices = seen.values.sorted { Self.numbersPadded($0.path) < Self.numbersPadded($1.path) }
    case .stats:
      reply.stats = stats()
      if request.reset == true {
        latency.reset()
        eventsIn = 0
        eventsOut = 0
        statsSince = monotonicMicroseconds()
      }
    case .releaseAll:
      engine.releaseAll(into: &output)
      flush(sourceTime: nil)
      logger.info("released every key (vkbd release-all)")
    case .snippets:
      reply.snippets = engine.snippets.snippets.map {
        SnippetReport(triggers: $0.triggers, label: $0.label, origin: $0.origin)
      }
    case .expand:
      guard let trigger = request.trigger, let snippet = engine.snippets.snippet(forTrigger: trigger) else {
        return .failure("no snippet has the trigger '\(request.trigger ?? "")'")
      }
      reply.expansion = snippet.preview(typed: trigger, now: Int64(time(nil)))
    }
    return reply
  }

  /// `text` with every run of digits padded to twelve, so that it sorts as
  /// people count: event2 before event10.
  static func numbersPadded(_ text: String) -> String {
    var result = ""
    var digits = ""
    for character in text + "/" {
      if character.isASCII && character.isNumber {
        digits.append(character)
        continue
      }
      if !digits.isEmpty {
        result += String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        digits = ""
      }
      result.append(character)
    }
    return String(result.dropLast())
  }

  private func status() -> StatusReport {
    var loaded = configLoaded
    var parts = tm()
    gmtime_r(&loaded, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return StatusReport(
      state: engine.isPaused ? "paused" : "running", config: configuration.source,
      configLoaded: String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self),
      layout: engine.layout.names.description,
      devicesGrabbed: sources.filter { $0.role == .grabbed }.count,
      snippets: engine.snippets.snippets.count, uptimeSeconds: (monotonicMicroseconds() - startTime) / 1_000_000,
      pid: getpid(), version: VKBD.configuration.version)
  }

  private func stats() -> StatsReport {
    StatsReport(
      eventsIn: eventsIn, eventsOut: eventsOut,
      samples: latency.totalCount, p50: latency.valueAtPercentile(50), p90: latency.valueAtPercentile(90),
      p99: latency.valueAtPercentile(99), p999: latency.valueAtPercentile(99.9), max: latency.max,
      sinceSeconds: (monotonicMicroseconds() - statsSince) / 1_000_000)
  }

  /// Releases every key on the virtual keyboard, lets the devices go, and
  /// ends the loop with `status`. The virtual keyboard is destroyed with the
  /// daemon.
  private func shutDown(status: Int32) {
    engine.releaseAll(into: &output)
    flush(sourceTime: nil)
    for source in sources where source.role == .grabbed { source.device.ungrab() }
    logger.debug(
      "latency (µs) from the source event's kernel time to our write",
      metadata: [
        "events": "\(latency.totalCount)", "p50": "\(latency.valueAtPercentile(50))",
        "p90": "\(latency.valueAtPercentile(90))", "p99": "\(latency.valueAtPercentile(99))",
        "p99.9": "\(latency.valueAtPercentile(99.9))", "max": "\(latency.max)",
      ])
    exitStatus = status
  }
}
