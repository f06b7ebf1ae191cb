import ArgumentParser
import Glibc
import KeyboardEngine

extension VKBD {
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
}
