import ArgumentParser

extension VKBD {
  struct Pause: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "pause",
      abstract: "Pause the daemon: keys pass through untouched, no typing aid, no snippet.")
    @OptionGroup var client: ClientOptions

    func run() throws { try VKBD.setState(.pause, client) }
  }
}
