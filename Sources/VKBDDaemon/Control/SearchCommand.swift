import ArgumentParser
import KeyboardEngine

extension VKBD {
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
