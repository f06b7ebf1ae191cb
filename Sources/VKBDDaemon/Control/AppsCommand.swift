import ArgumentParser

extension VKBD {
  struct Apps: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "apps",
      abstract: "List the app rules in the order they are tried, where each is written, and the one in force.")
    @OptionGroup var client: ClientOptions
    @OptionGroup var output: JSONOption

    func run() throws {
      let rules = try client.ask(ControlRequest(command: .apps)).apps ?? []
      output.print(rules) { Report.apps(rules) }
    }
  }
}
