import AgentProtocol
import CLinuxSystem
import KeyboardEngine
import LinuxSystem

/// The daemon's spelling dictionaries (DESIGN 9) and the words the active
/// user taught autocorrect.
struct SpellingState {
  /// The dictionaries wanted, as the config chooses them, and those loaded.
  var wanted: [String] = []
  var loadedNames: [String] = []
  var spelling: Spelling?
  /// The load under way, away from the keys, and its token on the loop.
  var loading: (work: BackgroundWork<(Spelling?, problems: [String])>, names: [String], token: UInt64)?
  /// Why a dictionary wanted did not load.
  var problems: [String] = []
  /// The active user's learned words, as their agent sent them and as
  /// they teach more.
  var learned: Set<String> = []
  /// The names of the active user's own programs, as their agent sent them.
  var programs: Set<String> = []
}

extension Daemon {
  /// Loads the dictionaries the config chooses on a thread of their own
  /// (hundreds of milliseconds for a large one: the keys never wait); the
  /// engine corrects nothing until they are in. They load the first time
  /// autocorrect is on (an agent reports a window where it applies):
  /// without a session agent it never is, and they cost nothing. A config
  /// that wants the ones loaded keeps them.
  func loadDictionaries() {
    guard engine.configuration.autocorrect || !spellingState.loadedNames.isEmpty || spellingState.loading != nil
    else { return }
    let autocorrects =
      configuration.engine.autocorrect || configuration.apps.rules.contains { $0.settings.autocorrect == true }
    spellingState.wanted = autocorrects ? configuration.dictionaryNames : []
    guard spellingState.loading == nil, spellingState.wanted != spellingState.loadedNames else { return }
    let names = spellingState.wanted
    if names.isEmpty {
      spellingState.loadedNames = []
      spellingState.spelling = nil
      engine.spelling = nil
      return
    }
    let start = monotonicMicroseconds()
    let work = BackgroundWork(notifying: true, yielding: true) { Dictionaries.load(names) }
    guard let done = work.done, let token = try? loop.watch(done, { [unowned self] _ in dictionariesLoaded(start) })
    else {
      dictionariesLoaded(work.wait(), names: names, start: start)
      return
    }
    spellingState.loading = (work, names, token)
  }

  private func dictionariesLoaded(_ start: Int64) {
    guard let loading = spellingState.loading.take() else { return }
    loop.unwatch(loading.work.done!, token: loading.token)
    dictionariesLoaded(loading.work.wait(), names: loading.names, start: start)
  }

  private func dictionariesLoaded(_ loaded: (Spelling?, problems: [String]), names: [String], start: Int64) {
    for problem in loaded.problems { logger.warning("autocorrect: \(problem)") }
    spellingState.problems = loaded.problems
    spellingState.loadedNames = names
    spellingState.spelling = loaded.0
    engine.spelling = loaded.0
    if let spelling = loaded.0 {
      let forms = spelling.languages.reduce(0) { $0 + $1.formCount }
      logger.info(
        "autocorrect dictionaries loaded",
        metadata: [
          "languages": "\(spelling.languages.map(\.name).joined(separator: " "))", "word forms": "\(forms)",
          "ms": "\((monotonicMicroseconds() - start) / 1000)",
        ])
    }
    trimWhenIdle()  // the word lists read and the forms' hashes were freed
    // The config changed while they loaded: load what it wants now.
    if spellingState.wanted != names { loadDictionaries() }
  }

  /// What `vkbd status` says of autocorrect: its dictionaries and the
  /// words the user taught.
  var autocorrectStatus: String {
    let state = spellingState
    let names = configuration.dictionaryNames
    var text: String
    if !configuration.engine.autocorrect
      && !configuration.apps.rules.contains(where: { $0.settings.autocorrect == true })
    {
      text = "autocorrect off"
    } else if names.isEmpty {
      text = "no hunspell dictionary installed for the locale or the layout"
    } else if state.loading != nil {
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

  /// Gives a new engine the dictionaries and the user's words, and sends
  /// the words it learns to the user's agent.
  func shareSpelling(with engine: Engine) {
    engine.spelling = spellingState.spelling
    engine.learnedWords = spellingState.learned
    engine.userPrograms = spellingState.programs
    engine.onLearned = { [unowned self] word in
      spellingState.learned.insert(word)
      // A word the protocol cannot carry (a letter with no lowercase of
      // its own) is kept here until the daemon stops.
      if AgentProtocol.isLearnableWord(word) { agents?.teach(word) }
    }
  }

  /// The active user's learned words and programs, as their agent sent
  /// them (nil: none in use any more).
  func learnedWordsChanged(_ words: LearnedWords?) {
    spellingState.learned = Set(words?.words ?? [])
    spellingState.programs = Set(words?.programs ?? [])
    engine.learnedWords = spellingState.learned
    engine.userPrograms = spellingState.programs
  }

}
