import ArgumentParser

extension VKBD {
  struct Stats: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "stats",
      abstract: "Show event counts and the latency from a key's kernel timestamp to vkbd's write.")
    @OptionGroup var client: ClientOptions
    @OptionGroup var output: JSONOption
    @Flag(name: .long, help: "Zero the counts and the histogram after showing them.")
    var reset = false

    func run() throws {
      let stats = try client.ask(ControlRequest(command: .stats, reset: reset), \.stats)
      output.print(stats) { Report.stats(stats) }
    }
  }
}
