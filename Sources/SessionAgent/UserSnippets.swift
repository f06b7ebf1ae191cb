import AgentProtocol
import LinuxSystem
import Logging
import SessionWork
import SystemPackage

/// The user's own espanso files (`$XDG_CONFIG_HOME/espanso`: the match
/// files under `match/`, the application configs in `config/`): read here,
/// as the user, and sent to the daemon whole, again whenever one changes
/// (inotify, a moment after the last change). The daemon parses them and
/// never opens a path in the user's home.
final class UserSnippets: Pollable {
  /// How long after a change the files are read: an editor's save is
  /// several events.
  static let settleTime: Int64 = 300_000
  /// How often a missing directory is looked for.
  static let lookInterval: Int64 = 5_000_000

  let directory: String
  private let logger: Logger
  private let loop: EventLoop
  private let inotify: Inotify?
  /// The next read: a moment after a change, or a while after a look.
  private lazy var reading = RestartingTimer(loop: loop) { [unowned self] in read() }
  /// Whether the files were ever sent: a directory missing from the start
  /// is reported once as no files.
  private var sent = false
  /// Takes the files and their directory.
  var onFiles: ([SnippetFile], String) -> Void = { _, _ in }

  init(directory: String = Programs.espansoDirectory, loop: EventLoop, logger: Logger) {
    self.directory = directory
    self.loop = loop
    self.logger = logger
    inotify = try? Inotify()
  }

  var pollFD: FileDescriptor? { inotify?.fd }

  /// Reads the files now, and watches them.
  func start() { read() }

  func readable() throws(AgentExit) {
    inotify?.drain()
    reading.restart(after: Self.settleTime)
  }

  private func read() {
    guard Files.kind(of: directory) == .directory else {
      if !(inotify?.watched.isEmpty ?? true) || !sent { onFiles([], directory) }
      sent = true
      inotify?.removeAll()
      reading.restart(after: Self.lookInterval)
      return
    }
    let found = EspansoFiles(reading: directory)
    for watched in found.directories { try? inotify?.watch(watched) }
    for (path, reason, _) in found.leftOut {
      logger.notice("a match file is not sent: \(reason)", metadata: ["file": "\(path)"])
    }
    sent = true
    onFiles(found.files, directory)
  }
}
