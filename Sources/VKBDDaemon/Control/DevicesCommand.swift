import ArgumentParser

extension VKBD {
  struct Devices: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "devices",
      abstract: "List every input device the daemon has seen: grabbed, or why not.")
    @OptionGroup var client: ClientOptions
    @OptionGroup var output: JSONOption

    func run() throws {
      let devices = try client.ask(ControlRequest(command: .devices)).devices ?? []
      output.print(devices) { Report.devices(devices) }
    }
  }
}
