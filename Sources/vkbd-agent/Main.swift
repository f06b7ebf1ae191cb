import SessionAgent

/// The `vkbd-agent` executable: the agent lives in the SessionAgent
/// library, which the tests import.
@main
enum Main {
  static func main() { AgentProgram.main() }
}
