import ArgumentParser

extension VKBD {
  struct Resume: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "resume", abstract: "Resume the typing aids and snippets after a pause.")
    @OptionGroup var client: ClientOptions

    func run() throws { try VKBD.setState(.resume, client) }
  }
}
