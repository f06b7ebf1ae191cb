import AgentProtocol
import ArgumentParser
import LinuxSystem
import SessionWork

extension VKBD {
  /// `vkbd words`: the words the user taught autocorrect.
  struct Words: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "words",
      abstract: "List the words you taught autocorrect, teach one, or forget one.",
      discussion: """
        Backspace right after a correction gives back what you typed and teaches vkbd that \
        word: it is never corrected again for you. Your session agent keeps these words in \
        $XDG_DATA_HOME/vkbd/words (~/.local/share/vkbd/words), one a line, and tells the \
        daemon whenever the file changes. 'vkbd words add WORD' teaches a word as that \
        Backspace does. Run this as yourself, not as root.
        """
    )

    @Argument(
      help: "add WORD: never correct WORD; remove WORD: forget WORD (it is corrected again); nothing: list the words.")
    var action: [String] = []

    func validate() throws {
      guard action.isEmpty || (action.count == 2 && ["add", "remove"].contains(action[0])) else {
        throw ValidationError("say 'vkbd words', 'vkbd words add WORD' or 'vkbd words remove WORD'")
      }
      // The word is not repeated: it is the user's text.
      guard action.count < 2 || AgentProtocol.isLearnableWord(action[1].lowercased()) else {
        throw ValidationError("a word to \(action[0]) is 1 to 32 letters")
      }
    }

    func run() throws {
      let file = LearnedWordsFile()
      warnUnderSudo("words", on: file.path)
      guard action.count == 2 else {
        let (words, problems) = file.read()
        for problem in problems { printError(problem) }
        for word in words { print(word) }
        if words.isEmpty && problems.isEmpty {
          printError(
            "no learned words in \(file.path): Backspace right after a correction teaches one, and so does"
              + " 'vkbd words add WORD'")
        }
        return
      }
      let word = action[1].lowercased()
      do {
        if action[0] == "add" {
          guard try file.add(word) else {
            printError("\(file.path) holds \(AgentProtocol.maximumLearnedWords) words, the most kept: remove one first")
            throw ExitCode.failure
          }
          return
        }
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
