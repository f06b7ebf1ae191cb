import AgentProtocol
import CLinuxSystem
import Glibc
import KeyboardEngine
import LinuxSystem
import Logging

/// Loading and reloading (DESIGN 4): the config and the user's snippets
/// are read, and their engine built, away from the keys (``EngineLoader``);
/// here the loop takes what a load made, or reports why it could not.
extension Daemon {
  /// The engine of `configuration` and the user's snippets: its layout,
  /// its trie, and the picker's index (built beside the trie, on a core of
  /// its own). It runs on a load's thread, or at start before any key.
  static func makeEngine(
    _ configuration: Configuration, user: UserSnippets = UserSnippets(), logger: Logger
  ) throws(SystemError) -> Engine {
    let layout: Layout
    do {
      layout = try configuration.makeLayout()
    } catch {
      throw SystemError("compile keymap", error.description, errno: .invalidArgument)
    }
    let joined = configuration.joined(with: user)
    let table = joined.snippets
    // The picker's index and the trie read the same table: each on a core.
    let indexing = BackgroundWork { SnippetSearch(table) }
    let snippets = SnippetMatcher(table)
    let engine = Engine(layout: layout, configuration: joined.engine, snippets: snippets, world: .system)
    engine.onNotice = { logger.warning("\($0)") }
    engine.prepareSearch(indexing.wait())
    logger.info(
      "engine ready",
      metadata: [
        "layout": "\(layout.names)", "snippets": "\(configuration.snippets.count)",
        "user snippets": "\(user.snippets.count)",
        "config": "\(configuration.source)",
      ])
    return engine
  }

  /// SIGHUP, `vkbd reload`, the status icon or a change of the files
  /// (`cause` says which): reads the config again, away from the keys
  /// (``EngineLoader``). On any problem the old one keeps running.
  /// `client`, a control client, gets the outcome.
  func reload(by cause: String, client: UInt64? = nil) {
    loader.request(EngineLoader.Request(rereadsConfig: true, causes: [cause], replies: client.map { [$0] } ?? []))
  }

  /// A load ended: its config, the user's snippets and its engine go in
  /// force, or what was wrong is reported and what ran keeps running.
  func loaded(_ outcome: EngineLoader.Outcome) {
    let cause = outcome.request.cause
    var problems: [String] = []
    if let (parsed, found) = outcome.user {
      for problem in found { logger.notice("user snippets: \(problem)", metadata: ["uid": "\(parsed.uid)"]) }
      if parsed.isEmpty {
        logger.info("the user's own snippets are no longer in use")
      } else {
        logger.info(
          "using the user's own snippets",
          metadata: [
            "uid": "\(parsed.uid)", "snippets": "\(parsed.snippets.count)", "files": "\(parsed.files.count)",
            "app rules": "\(parsed.rules.count)",
            "search shortcut": "\(parsed.settings.shortcut == nil ? "-" : "espanso's")",
          ])
      }
    }
    var fresh: Configuration?
    switch outcome.configuration {
    case .failure(let errors):
      for problem in errors.problems { logger.error("reload: \(problem)") }
      problems = errors.problems.map(\.description)
    case .success(let configuration):
      if case .failure(let error) = outcome.engine {
        logger.error("reload: \(error)")
        problems = ["\(error)"]
      } else {
        fresh = configuration
      }
    case nil:
      if case .failure(let error) = outcome.engine { logger.error("user snippets: \(error)") }
    }
    let previous = configuration
    let previousUser = user
    if let (parsed, _) = outcome.user, case .success = outcome.engine { user = parsed }
    if !problems.isEmpty { reloadFailed(problems, by: cause) }
    if let fresh { takeConfiguration(fresh) }
    if case .success(let engine) = outcome.engine { install(engine) }
    if let fresh {
      afterConfiguration(fresh, previous: previous)
      logger.info(
        "configuration reloaded",
        metadata: ["config": "\(fresh.source)", "by": "\(cause)", "ms": "\(outcome.microseconds / 1000)"])
      announce(event(.reloaded, by: cause))
    }
    for client in outcome.request.replies {
      control?.answer(
        client,
        with: problems.isEmpty
          ? ControlReply(ok: true, status: status())
          : .failure("the config has problems; the previous one keeps running", problems: problems))
    }
    discard(previous, previousUser)
  }

  /// The active user's match files, as their agent sent them (nil: none
  /// in use any more): parsed away from the keys, with the limits and
  /// checks of the config's own, into a new engine.
  func userSnippetsChanged(_ sent: UserSnippets.Sent?) {
    if user.isEmpty && (sent?.files.isEmpty ?? true) { return }
    loader.request(EngineLoader.Request(userFiles: .some(sent), causes: ["the user's snippets"]))
  }

  /// Takes a config that loaded: what it changes of the devices and the
  /// seat goes in force before its engine does.
  private func takeConfiguration(_ fresh: Configuration) {
    for problem in fresh.snippetProblems { logger.error("reload: \(problem) (left out; the rest loads)") }
    for warning in fresh.warnings { logger.warning("reload: \(warning)") }
    configuration = fresh
    keyboard.pace(fresh.engine.expansion)
  }

  /// What follows a config's engine: the devices it names, whose agents
  /// count, its notifications, dictionaries and watched files.
  private func afterConfiguration(_ fresh: Configuration, previous: Configuration) {
    if fresh.devices != previous.devices {
      devices.filter = fresh.devices
      for input in devices.all where devices.remove(input) { releaseKeys(of: input) }
      for event in devices.udev.inputDevices() where devices.add(event) { engine.resetText() }
    }
    if fresh.sessionUsers != previous.sessionUsers { seatChanged() }
    agents?.setNotifications(fresh.notifications)
    loadDictionaries()  // the languages may have changed
    configLoaded = time(nil)
    reloadProblems = []
    watchConfig()  // the files named may have changed
  }

  /// Logs and announces a reload that failed; the previous configuration
  /// keeps running.
  func reloadFailed(_ problems: [String], by cause: String) {
    logger.error("reload failed: the previous configuration keeps running", metadata: ["by": "\(cause)"])
    reloadProblems = problems
    var failed = event(.reloadFailed, by: cause)
    failed.problems = Array(problems.prefix(DaemonEvent.maximumProblems))
    announce(failed)
  }

  /// Hands over to `newEngine`: it takes the keys held as they are (a key
  /// held through a reload is neither lifted nor pressed again) and follows
  /// the app rule and the desktop's layout in force. While the old engine
  /// types an expansion or waits for the session, the new one waits
  /// (checked each loop turn): nothing it types is cut short.
  func install(_ newEngine: Engine) {
    closePicker()  // a shared trigger's menu leaves the trigger as typed
    guard !engine.isBusy else {
      if waitingEngine == nil { logger.info("the new configuration waits for the expansion under way") }
      waitingEngine = newEngine
      return
    }
    waitingEngine = nil
    newEngine.takeOver(from: engine)
    let replaced = engine
    engine = newEngine
    askSession(from: engine)
    spelling.share(with: engine)
    configuredLayout = newEngine.layout
    desktop.defaultLocale = configuredLayout.names.locale
    context.apply(rules: appRules, global: globalSettings, to: engine)
    if let report = desktop.report { desktopLayoutChanged(report) }
    discard(replaced)
  }

  /// Lets go of what a load replaced (an engine, a configuration, the
  /// user's snippets) on a thread at the least priority: their frees never
  /// cost a key its turn. Their large blocks go back to the system as they
  /// are freed (`vkbd run` has glibc map them: ``Heap/mapBlocks(over:)``);
  /// the small ones a load left in its thread's arena go back once the
  /// keyboard rests (``trimWhenIdle()``).
  func discard(_ values: Any...) {
    let box = Discarded(values)
    BackgroundWork<Void>.detached { box.values.removeAll() }
    trimWhenIdle()
  }

  /// Gives the heap's free pages back to the system (`malloc_trim`, on a
  /// thread at the least priority) once no key has come for
  /// ``trimmingRest``: the trim walks every arena and unmaps their free
  /// pages in the kernel, which held keys typed meanwhile back for
  /// milliseconds in the VM. Loads in a row trim once.
  func trimWhenIdle() {
    guard scheduledTrim == nil else { return }
    let due = max(monotonicMicroseconds(), statistics.lastKeyTime) + Self.trimmingRest
    scheduledTrim = loop.schedule(at: due) { [unowned self] in
      scheduledTrim = nil
      if monotonicMicroseconds() - statistics.lastKeyTime < Self.trimmingRest {
        trimWhenIdle()  // keys came meanwhile: wait for the next rest
        return
      }
      BackgroundWork<Void>.detached { _ = malloc_trim(0) }
    }
  }

  /// How long the keyboard must rest before the heap is trimmed, in µs.
  static let trimmingRest: Int64 = 5_000_000

}

/// Values handed to another thread to be freed there.
private final class Discarded: @unchecked Sendable {
  var values: [Any]
  init(_ values: [Any]) { self.values = values }
}
