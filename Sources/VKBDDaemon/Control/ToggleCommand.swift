import ArgumentParser

extension VKBD {
  struct Toggle: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "toggle", abstract: "Pause the daemon if it runs, resume it if paused.")
    @OptionGroup var client: ClientOptions

    func run() throws { try VKBD.setState(.toggle, client) }
  }

  static func setState(_ command: ControlRequest.Command, _ client: ClientOptions) throws {
    let status = try client.ask(ControlRequest(command: command), \.status)
    print("vkbd is \(status.state)")
  }
}
