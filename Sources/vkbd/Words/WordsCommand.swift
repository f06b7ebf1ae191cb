import AgentProtocol
import ArgumentParser
import LinuxSystem
import SessionWork

extension VKBD {
  /// `vkbd words`: the words the user taught autocorrect.
  struct Words: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "words",
      abstract: "List the words you taught autocorrect, or forget one.",
      discussion: """
        Backspace right after a correction gives back what you typed and teaches vkbd that \
        word: it is never corrected again for you. Your session agent keeps these words in \
        $XDG_DATA_HOME/vkbd/words (~/.local/share/vkbd/words), one a line, and tells the \
        daemon whenever the file changes. Run this as yourself, not as root.
        """
    )

    @Argument(help: "remove WORD: forget WORD (it is corrected again); nothing: list the words.")
    var action: [String] = []

    func validate() throws {
      guard action.isEmpty || (action.count == 2 && action[0] == "remove") else {
        throw ValidationError("say 'vkbd words' or 'vkbd words remove WORD'")
      }
    }

    func run() throws {
      let file = LearnedWordsFile()
      guard action.count == 2 else {
        let (words, problems) = file.read()
        for problem in problems { printError(problem) }
        for word in words { print(word) }
        return
      }
      let word = action[1].lowercased()
      do {
        guard try file.remove(word) else {
          printError("\(file.path) does not hold that word")
          throw ExitCode.failure
        }
      } catch let error as SystemError {
        printError(error.description)
        throw ExitCode.failure
      }
    }
  }
}
