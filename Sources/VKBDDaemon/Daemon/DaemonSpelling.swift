import AgentProtocol
import CLinuxSystem
import KeyboardEngine
import LinuxSystem
import Logging

/// The daemon's spelling dictionaries (DESIGN 9) and the words the active
/// user taught autocorrect. The dictionaries load on a thread of their
/// own (hundreds of milliseconds for a large one: the keys never wait);
/// each engine gets what is loaded, and the words its user teaches go to
/// ``onTaught``.
final class DaemonSpelling {
  /// The dictionaries wanted, as the config chooses them, and those loaded.
  private(set) var wanted: [String] = []
  private(set) var loadedNames: [String] = []
  private(set) var spelling: Spelling?
  /// The load under way, away from the keys, and its token on the loop.
  private var loading: (work: BackgroundWork<(Spelling?, problems: [String])>, names: [String], token: UInt64)?
  /// Why a dictionary wanted did not load.
  private(set) var problems: [String] = []
  /// The active user's learned words, as their agent sent them and as
  /// they teach more.
  private(set) var learned: Set<String> = []
  /// The names of the active user's own programs, as their agent sent them.
  private(set) var programs: Set<String> = []
  /// The engine in use, which gets the dictionaries as they load.
  private weak var engine: Engine?
  /// Hears of the dictionaries loaded (the daemon then gives back the
  /// memory the load used), and of a word the user taught, for their agent.
  var onLoaded: () -> Void = {}
  var onTaught: (String) -> Void = { _ in }
  private let loop: EventLoop
  private let logger: Logger

  init(loop: EventLoop, logger: Logger) {
    self.loop = loop
    self.logger = logger
  }

  var isLoading: Bool { loading != nil }

  /// Loads `names` once `autocorrect` is on (an agent reports a window
  /// where it applies): without a session agent it never is, and they
  /// cost nothing. Dictionaries loaded stay while the config wants them;
  /// none wanted (no rule turns autocorrect on) drops them.
  func want(_ names: [String], autocorrect: Bool) {
    guard autocorrect || !loadedNames.isEmpty || loading != nil else { return }
    wanted = names
    guard loading == nil, wanted != loadedNames else { return }
    if names.isEmpty {
      loadedNames = []
      spelling = nil
      engine?.spelling = nil
      return
    }
    let start = monotonicMicroseconds()
    let work = BackgroundWork(notifying: true, yielding: true) { Dictionaries.load(names) }
    guard let done = work.done, let token = try? loop.watch(done, { [unowned self] _ in loaded(start) })
    else {
      loaded(work.wait(), names: names, start: start)
      return
    }
    loading = (work, names, token)
  }

  private func loaded(_ start: Int64) {
    guard let loading = loading.take() else { return }
    loop.unwatch(loading.work.done!, token: loading.token)
    loaded(loading.work.wait(), names: loading.names, start: start)
  }

  private func loaded(_ loaded: (Spelling?, problems: [String]), names: [String], start: Int64) {
    for problem in loaded.problems { logger.warning("autocorrect: \(problem)") }
    problems = loaded.problems
    loadedNames = names
    spelling = loaded.0
    engine?.spelling = loaded.0
    if let spelling = loaded.0 {
      let forms = spelling.languages.reduce(0) { $0 + $1.formCount }
      logger.info(
        "autocorrect dictionaries loaded",
        metadata: [
          "languages": "\(spelling.languages.map(\.name).joined(separator: " "))", "word forms": "\(forms)",
          "ms": "\((monotonicMicroseconds() - start) / 1000)",
        ])
    }
    onLoaded()  // the word lists read and the forms' hashes were freed
    // The config changed while they loaded: load what it wants now.
    if wanted != names { want(wanted, autocorrect: true) }
  }

  /// Gives `engine`, the one in use from now on, the dictionaries and the
  /// user's words, and passes on the words it learns.
  func share(with engine: Engine) {
    self.engine = engine
    engine.spelling = spelling
    engine.learnedWords = learned
    engine.userPrograms = programs
    engine.onLearned = { [unowned self] word in
      learned.insert(word)
      // A word the protocol cannot carry (a letter with no lowercase of
      // its own) is kept here until the daemon stops.
      if AgentProtocol.isLearnableWord(word) { onTaught(word) }
    }
  }

  /// The active user's learned words and programs, as their agent sent
  /// them (nil: none in use any more).
  func learnedWordsChanged(_ words: LearnedWords?) {
    learned = Set(words?.words ?? [])
    programs = Set(words?.programs ?? [])
    engine?.learnedWords = learned
    engine?.userPrograms = programs
  }
}

extension Daemon {
  /// Loads the dictionaries the config chooses, the first time autocorrect
  /// is on (``DaemonSpelling/want(_:autocorrect:)``).
  func loadDictionaries() {
    let autocorrects =
      configuration.engine.autocorrect || configuration.apps.rules.contains { $0.settings.autocorrect == true }
    spelling.want(autocorrects ? configuration.dictionaryNames : [], autocorrect: engine.configuration.autocorrect)
  }

  /// What `vkbd status` says of autocorrect: its dictionaries and the
  /// words the user taught.
  var autocorrectStatus: String {
    let state = spelling
    let names = configuration.dictionaryNames
    var text: String
    if !configuration.engine.autocorrect
      && !configuration.apps.rules.contains(where: { $0.settings.autocorrect == true })
    {
      text = "autocorrect off"
    } else if names.isEmpty {
      text = "no hunspell dictionary installed for the locale or the layout"
    } else if state.isLoading {
      text = "loading " + state.wanted.joined(separator: ", ")
    } else if let spelling = state.spelling {
      let forms = spelling.languages.reduce(0) { $0 + $1.formCount }
      let bytes = spelling.languages.reduce(0) { $0 + $1.indexBytes }
      text =
        "\(spelling.languages.map(\.name).joined(separator: ", ")) (\(forms) word forms, index \(Report.mebibytes(bytes)))"
    } else if state.loadedNames.isEmpty {
      text = names.joined(separator: ", ") + ", loaded once a session agent reports a window where autocorrect applies"
    } else {
      text = "no dictionary loaded"
    }
    if !state.problems.isEmpty { text += "; \(state.problems.count) not loaded (see the log)" }
    return text + "; \(plural(state.learned.count, "word")) taught"
  }
}
