import ArgumentParser

extension VKBD {
  /// `vkbd config`: the configuration a user starts from.
  struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "config",
      abstract: "Print the embedded default configuration, a commented file to start from.",
      discussion: """
        The daemon runs on this configuration when \(ConfigLoader.defaultPath) does not exist. \
        To change it: vkbd config --print-default > \(ConfigLoader.defaultPath), edit, then \
        vkbd check and vkbd reload.
        """
    )

    @Flag(name: .long, help: "Print the embedded default configuration as YAML.")
    var printDefault = false

    func validate() throws {
      guard printDefault else { throw ValidationError("say what to do: --print-default") }
    }

    func run() throws {
      print(Configuration.embeddedDefaultText, terminator: "")
    }
  }
}
