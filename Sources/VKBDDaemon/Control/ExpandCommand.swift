import ArgumentParser
import KeyboardEngine

extension VKBD {
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
}
