import ArgumentParser

extension VKBD {
  struct Status: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "status",
      abstract: "Show whether the daemon runs or is paused, its config, layout, devices and snippets.")
    @OptionGroup var client: ClientOptions
    @OptionGroup var output: JSONOption

    func run() throws {
      let status = try client.ask(ControlRequest(command: .status), \.status)
      output.print(status) { Report.status(status) }
    }
  }
}
