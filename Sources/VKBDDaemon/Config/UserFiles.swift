import ArgumentParser
import Glibc
import KeyboardEngine
import LinuxSystem
import SessionWork

/// A user's own snippets, parsed from their espanso files (what their
/// session agent sent, or what an offline command read), with the app
/// rules and settings of their espanso config.
struct UserSnippets {
  var snippets = SnippetTable()
  var rules: [AppRule] = []
  var settings = EspansoConfig.Settings()
  /// Whose they are (for the log).
  var uid: uid_t = 0
  /// The match files read.
  var files: [String] = []

  var isEmpty: Bool { snippets.isEmpty && rules.isEmpty && settings == EspansoConfig.Settings() }

  /// The match files a session agent sent, as the daemon has them.
  struct Sent {
    var files: [String: String]
    var directory: String
    var uid: uid_t
  }

  /// Parses what an agent sent, with the limits and checks of the config's
  /// own match files; errors leave out what they are in, warnings say what
  /// was passed over.
  static func parse(_ sent: Sent) -> (UserSnippets, errors: [ConfigProblem], warnings: [ConfigProblem]) {
    let files = SentFiles(files: sent.files)
    let root = MatchPaths.normalized(sent.directory)
    var loader = SnippetLoader(store: files)
    loader.load(directory: root + "/match")
    loader.finish()
    let (rules, skipped) = EspansoConfig.rules(in: files, root: root)
    let (settings, settingsProblems) = EspansoConfig.settings(in: files, root: root)
    var user = UserSnippets(
      snippets: loader.snippets, rules: rules, settings: settings, uid: sent.uid, files: loader.files)
    if let trigger = settings.trigger { user.snippets = user.snippets + SnippetTable([trigger]) }
    return (user, loader.problems, loader.warnings + skipped + settingsProblems)
  }

  /// The espanso files under `directory`, read here as the agent reads
  /// them and parsed as the daemon parses them; a file the agent would
  /// not send is an error.
  static func read(directory: String) -> (UserSnippets, errors: [ConfigProblem], warnings: [ConfigProblem]) {
    let found = EspansoFiles(reading: directory)
    let sent = Sent(
      files: Dictionary(found.files.map { ($0.path, $0.text) }, uniquingKeysWith: { first, _ in first }),
      directory: directory, uid: getuid())
    let (user, errors, warnings) = parse(sent)
    let leftOut = found.leftOut.map {
      ConfigProblem(
        file: $0.path, line: 1, column: 1, message: "not read: \($0.reason)",
        kind: $0.overLimit ? .tooLarge : .missingFile)
    }
    return (user, leftOut + errors, warnings)
  }
}

extension Configuration {
  /// This configuration as the daemon runs it while `user` is the active
  /// user: their snippets after the config's, their app rules before the
  /// built-in ones, and the espanso settings they may choose.
  func joined(with user: UserSnippets) -> Configuration {
    var joined = self
    joined.snippets = snippets + user.snippets
    joined.userFiles = user.files
    joined.apps = apps.adding(user.rules)
    joined.engine = engine(with: user.settings)
    return joined
  }

  /// The engine's settings with those of a user's espanso config that
  /// vkbd honours: `search_shortcut` where vkbd.yaml names no picker
  /// shortcut, and `undo_backspace: false`.
  func engine(with settings: EspansoConfig.Settings) -> EngineConfiguration {
    var result = engine
    if !pickerShortcutWritten, let shortcut = settings.shortcut { result.pickerShortcut = shortcut }
    result.expansion.undoBackspace = engine.expansion.undoBackspace && settings.undoBackspace
    return result
  }
}

/// What the offline commands (`check`, `simulate`, `search`, `snippets`,
/// `expand`, `doctor`) read besides the config: the espanso files of the
/// user who runs them, as their session agent would send them, unless left
/// out.
struct UserFilesOptions: ParsableArguments {
  @Flag(name: .customLong("no-user"), help: "Leave out your own espanso files.")
  var noUser = false
  @Flag(name: .customLong("no-system"), help: "Leave out the config's own snippets (its settings still apply).")
  var noSystem = false
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Read your espanso files from DIR (default: $XDG_CONFIG_HOME/espanso, else ~/.config/espanso).",
      valueName: "dir"))
  var espanso: String?

  /// The espanso directory read, nil with --no-user.
  var directory: String? { noUser ? nil : espanso ?? Programs.espansoDirectory }

  /// `configuration` as the daemon would run it for this user: their files
  /// joined (their problems said on standard error, with the config's
  /// warnings), the config's snippets left out with --no-system. Under
  /// sudo, says that the files read are root's.
  func join(_ configuration: Configuration, command: String) -> Configuration {
    var base = configuration
    if noSystem {
      base.snippets = SnippetTable()
      base.snippetFiles = []
      base.snippetProblems = []
    }
    guard let directory else { return base }
    if espanso == nil && Files.kind(of: directory) == .directory { warnUnderSudo(command, on: directory) }
    let (user, errors, warnings) = UserSnippets.read(directory: directory)
    var joined = base.joined(with: user)
    joined.snippetProblems += errors
    joined.warnings += warnings
    return joined
  }
}
