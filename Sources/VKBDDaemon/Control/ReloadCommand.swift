import ArgumentParser

extension VKBD {
  struct Reload: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "reload",
      abstract: "Read the config again; on any problem, print it and keep the old config (exit 78).")
    @OptionGroup var client: ClientOptions

    func run() throws {
      let reply = try client.ask(ControlRequest(command: .reload))
      guard reply.ok, let status = reply.status else {
        for problem in reply.problems ?? [] { printError(problem) }
        printError(reply.error ?? "reload failed")
        throw SysExit.config
      }
      print("reloaded \(status.config): layout \(status.layout), \(plural(status.snippets, "snippet"))")
    }
  }
}
