import ArgumentParser

extension VKBD {
  struct ReleaseAll: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "release-all", abstract: "Release every key held on the virtual keyboard (stuck keys).")
    @OptionGroup var client: ClientOptions

    func run() throws {
      _ = try client.ask(ControlRequest(command: .releaseAll))
      print("released every key")
    }
  }
}
