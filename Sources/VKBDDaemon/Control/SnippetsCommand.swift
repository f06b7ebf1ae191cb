import ArgumentParser

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
}
