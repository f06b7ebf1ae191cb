import Glibc
import KeyboardEngine
import LinuxSystem
import Logging

/// Loads the config and the user's snippets and builds their engine on a
/// thread at the least priority (DESIGN 4): the loop only swaps the
/// finished engine in, so a load of the whole espanso hub costs no key
/// its turn. One load runs at a time; what is asked meanwhile waits as one
/// more load, which starts when it ends (never more than one waits).
final class EngineLoader {
  /// What a load is to do, gathered from every request since the last one
  /// started.
  struct Request {
    /// Read the config file again (a reload); else the one in force serves.
    var rereadsConfig = false
    /// The user's match files to parse again: `.some(nil)` when the user
    /// has none in use any more; nil when the parsed ones in force serve.
    var userFiles: UserSnippets.Sent??
    /// What asked for it (`file`, `SIGHUP`, `vkbd reload`…), each once.
    var causes: [String] = []
    /// The control clients that wait for its outcome.
    var replies: [UInt64] = []

    mutating func merge(_ other: Request) {
      rereadsConfig = rereadsConfig || other.rereadsConfig
      if let files = other.userFiles { userFiles = files }
      for cause in other.causes where !causes.contains(cause) { causes.append(cause) }
      replies += other.replies
    }

    /// What the causes are called in the log and the events.
    var cause: String { causes.joined(separator: ", ") }
  }

  /// What a load starts from: the request, and what is in force.
  struct Job {
    var request: Request
    var configPath: String?
    var configuration: Configuration
    var user: UserSnippets
  }

  /// What a load made.
  struct Outcome {
    var request: Request
    /// The config read again, or why it was refused; nil when not read.
    var configuration: Result<Configuration, ConfigErrors>?
    /// The user's snippets parsed again, and what was wrong in them; nil
    /// when not parsed.
    var user: (snippets: UserSnippets, problems: [ConfigProblem])?
    /// The engine of what was made; nil when nothing new was (the config
    /// was refused and nothing else changed) or it could not be built.
    var engine: Result<Engine, SystemError>?
    /// How long the load took, in microseconds.
    var microseconds: Int64 = 0
  }

  private let loop: EventLoop
  private let logger: Logger
  /// What a load starts from, asked when it starts (what is in force
  /// then); set by the daemon.
  var job: ((Request) -> Job)?
  /// Takes each outcome, on the loop; set by the daemon.
  var finished: ((Outcome) -> Void)?
  private var running: (work: BackgroundWork<Outcome>, token: UInt64)?
  private var next: Request?

  /// Whether a load runs or waits.
  var isBusy: Bool { running != nil || next != nil }

  /// Loads on `loop`'s behalf.
  init(loop: EventLoop, logger: Logger) {
    self.loop = loop
    self.logger = logger
  }

  deinit {
    if let (work, token) = running {
      loop.unwatch(work.done!, token: token)
      _ = work.wait()
    }
  }

  /// Asks for a load: it starts now when none runs, else waits, merged
  /// with what waits already, until the one running ends.
  func request(_ request: Request) {
    if next == nil { next = request } else { next!.merge(request) }
    if running == nil { startNext() }
  }

  private func startNext() {
    guard let request = next.take(), let job = job?(request) else { return }
    let logger = logger
    let work = BackgroundWork(notifying: true, yielding: true) { Self.load(job, logger: logger) }
    guard let done = work.done, let token = try? loop.watch(done, { [unowned self] _ in ended() }) else {
      finished?(work.wait())  // no thread or no fd: it ran here
      startNext()
      return
    }
    running = (work, token)
  }

  private func ended() {
    guard let (work, token) = running.take() else { return }
    loop.unwatch(work.done!, token: token)
    finished?(work.wait())
    startNext()
  }

  /// The load itself, on its thread: shares nothing with the loop but the
  /// values in `job`.
  static func load(_ job: Job, logger: Logger) -> Outcome {
    let start = monotonicMicroseconds()
    var outcome = Outcome(request: job.request)
    var configuration = job.configuration
    if job.request.rereadsConfig {
      do throws(ConfigErrors) {
        let fresh = try ConfigLoader.load(path: job.configPath, fallback: .daemonFile)
        let unsafe = fresh.filesOthersCouldEdit(reader: geteuid())
        guard unsafe.isEmpty else { throw ConfigErrors(problems: unsafe) }
        configuration = fresh
        outcome.configuration = .success(fresh)
      } catch {
        outcome.configuration = .failure(error)
      }
    }
    var user = job.user
    if let sent = job.request.userFiles {
      let (parsed, errors, warnings) = sent.map(UserSnippets.parse) ?? (UserSnippets(), [], [])
      user = parsed
      outcome.user = (parsed, errors + warnings)
    }
    // A new config, or user snippets that are not none again, make an engine.
    let userChanged = outcome.user != nil && !(user.isEmpty && job.user.isEmpty)
    if case .success = outcome.configuration {
      outcome.engine = makeEngine(configuration, user: user, logger: logger)
    } else if userChanged {
      outcome.engine = makeEngine(configuration, user: user, logger: logger)
    }
    outcome.microseconds = monotonicMicroseconds() - start
    return outcome
  }

  private static func makeEngine(_ configuration: Configuration, user: UserSnippets, logger: Logger) -> Result<
    Engine, SystemError
  > {
    Result { () throws(SystemError) in
      try Daemon.makeEngine(configuration, user: user, logger: logger)
    }
  }
}
