import AgentProtocol
import Glibc
import LinuxSystem
import Logging
import SessionWork
import SystemPackage

/// The words the user taught autocorrect (``LearnedWordsFile``), kept by
/// the agent as the user: read and sent to the daemon whole at the start
/// and whenever the file changes (`vkbd words remove`, an editor), and a
/// word the daemon says the user just taught added to it.
final class LearnedWordsKeeper: Pollable {
  let file: LearnedWordsFile
  private let logger: Logger
  private let loop: EventLoop
  private let inotify: Inotify?
  /// The read a moment after a change.
  private lazy var reading = RestartingTimer(loop: loop) { [unowned self] in read() }
  /// Takes every word, each time the file is read.
  var onWords: ([String]) -> Void = { _ in }

  init(file: LearnedWordsFile = LearnedWordsFile(), loop: EventLoop, logger: Logger) {
    self.file = file
    self.loop = loop
    self.logger = logger
    inotify = try? Inotify()
  }

  var pollFD: FileDescriptor? { inotify?.fd }

  /// Reads the file now and watches its directory (made, 0700, when missing).
  func start() {
    do {
      try file.makeDirectory()
      try inotify?.watch(file.directory)
    } catch {
      logger.notice("cannot watch the learned words' directory: \(error)")
    }
    read()
  }

  func readable() throws(AgentExit) {
    inotify?.drain()
    reading.restart(after: UserSnippets.settleTime)
  }

  private func read() {
    let (words, problems) = file.read()
    for problem in problems { logger.notice("learned words: \(problem)") }
    onWords(words)
  }

  /// Keeps a word the user just taught (it is never logged).
  func learn(_ word: String) {
    do {
      if try !file.add(word) {
        logger.notice(
          "learned words: \(file.path) holds \(AgentProtocol.maximumLearnedWords) words already; a new one is not kept")
      }
    } catch {
      logger.warning("learned words: could not write \(file.path): \(error.errno)")
    }
  }
}
