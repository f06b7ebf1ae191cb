import ArgumentParser
import Glibc
import KeyboardEngine

/// The commands that read snippets: from the daemon, or what it would load
/// read here (``VKBD/SnippetSource``).
extension VKBD {
  struct Snippets: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "snippets",
      abstract: "List the loaded snippets: triggers, label, and where each is defined.",
      discussion: """
        It asks the running daemon (every snippet it has, the user's own included). With \
        --config, --no-user, --no-system or --espanso, or when the daemon is not running or \
        you may not ask it, it reads what the daemon would load here, as vkbd check does: \
        the config (--config FILE, else \(ConfigLoader.defaultPath)) and your own espanso files.
        """)
    @OptionGroup var client: ClientOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var source: SnippetSource

    func run() throws {
      let snippets =
        switch try source.snippets(ControlRequest(command: .snippets), client: client, command: "snippets") {
        case .daemon(let reply): reply.snippets ?? []
        case .read(let table): table.map(SnippetReport.init)
        }
      output.print(snippets) { Report.snippets(snippets) }
    }
  }

  struct Expand: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "expand",
      abstract: "Print what a trigger would type now, without typing it.",
      discussion: """
        It asks the running daemon; with --config, --no-user, --no-system or --espanso, or \
        when the daemon cannot be asked, it reads the config and your own espanso files \
        here, as vkbd check does. Variables only the user's session can give \
        (shell, script, clipboard, dialogs) are left empty. Exits 65 when no snippet has \
        the trigger.
        """)
    @OptionGroup var client: ClientOptions
    @OptionGroup var source: SnippetSource
    @Argument(help: "A trigger, quoted for the shell: ';date'.") var trigger: String

    func run() throws {
      let expansion: String?
      switch try source.snippets(ControlRequest(command: .expand, trigger: trigger), client: client, command: "expand")
      {
      case .read(let table):
        let matcher = SnippetMatcher(table)
        expansion = matcher.snippet(forTrigger: trigger)?.preview(
          typed: trigger, world: .system, nested: matcher.snippet(forTrigger:))
        if expansion == nil { printError("no snippet has the trigger '\(trigger)'") }
      case .daemon(let reply):
        expansion = reply.expansion
        if expansion == nil { printError(reply.error ?? "no expansion") }
      }
      guard let expansion else { throw SysExit.dataError }
      print(expansion)
    }
  }

  /// Where `snippets`, `expand` and `search` take the snippets from: the
  /// daemon, or what it would load read here (the config and the user's
  /// espanso files, as vkbd check reads them).
  struct SnippetSource: ParsableArguments {
    @Option(
      name: .long,
      help: ArgumentHelp(
        "Read the snippets of config FILE and your espanso files, without the daemon.", valueName: "file"))
    var config: String?
    @OptionGroup var user: UserFilesOptions

    /// The snippets: the daemon's reply to `request` when no option asks
    /// for a read here and the daemon can be asked; else what it would
    /// load, read here (with a word on standard error when the daemon
    /// could not be asked). Exits 78 when snippets failed and none loaded.
    func snippets(_ request: ControlRequest, client: ClientOptions, command: String) throws -> Snippets {
      if config == nil && !user.noUser && !user.noSystem && user.espanso == nil {
        do {
          return .daemon(try ControlClient.ask(request, socket: client.socket))
        } catch .failed(let failure) {
          throw client.failure(.failed(failure))
        } catch {
          let why = if case .notRunning = error { "the daemon is not running" } else { "you may not ask the daemon" }
          printError("\(why): reading what it would load (\(ConfigLoader.defaultPath) and your espanso files)")
        }
      }
      let configuration = try ConfigLoader.loadReporting(
        path: config, fallback: .daemonFile, joining: user, command: command)
      if configuration.snippets.isEmpty && !configuration.snippetProblems.isEmpty {
        printError("\(configuration.source): no snippet loaded")
        throw SysExit.config
      }
      return .read(configuration.snippets)
    }

    enum Snippets {
      case daemon(ControlReply)
      case read(SnippetTable)
    }
  }

  struct Search: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "search",
      abstract: "Find snippets as the picker does: by trigger, label, search terms and replacement.",
      discussion: """
        Prints the best matches of QUERY, best first, exactly as the snippet picker ranks \
        them: its words in any order, case and accents aside, a word matching whole, as a \
        word's start, with one typo, or with letters skipped. It asks the running daemon \
        (every snippet it has, the user's own included); with --config, --no-user, \
        --no-system or --espanso, or when the daemon is not running or you may not ask it, \
        it reads the config and your own espanso files here, as vkbd check does: \
        what loaded is searched, what did not is said on standard error, and when no \
        snippet loaded at all it exits 78. \
        --json prints an array of objects with replace (as the file writes it), label, \
        triggers, file and line. Never logs the query.
        """)
    @OptionGroup var client: ClientOptions
    @OptionGroup var output: JSONOption
    @OptionGroup var source: SnippetSource
    @Option(name: .long, help: ArgumentHelp("Print at most N results (1 to 1000).", valueName: "n"))
    var limit = 20
    @Argument(help: "The words to look for.") var query: [String]

    func validate() throws {
      guard (1...SearchResult.maximumLimit).contains(limit) else {
        throw ValidationError("--limit must be 1 to \(SearchResult.maximumLimit)")
      }
    }

    func run() throws {
      let text = query.joined(separator: " ")
      let results: [SearchResult]
      let matched: Int
      switch try source.snippets(
        ControlRequest(command: .search, query: text, limit: limit), client: client, command: "search")
      {
      case .read(let snippets):
        let found = SnippetSearch(snippets).search(text, limit: limit)
        results = found.snippets.map { SearchResult(snippets[$0]) }
        matched = found.total
      case .daemon(let reply):
        results = reply.results ?? []
        matched = reply.matched ?? results.count
      }
      output.print(results) { Report.search(results, matched: matched) }
    }
  }

}
