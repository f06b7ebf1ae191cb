import AgentProtocol
import Glibc
import Logging
import SessionCommands

/// The user's own espanso files (`$XDG_CONFIG_HOME/espanso`: the match
/// files under `match/`, the application configs in `config/`): read here,
/// as the user, and sent to the daemon whole, again whenever one changes
/// (inotify, a moment after the last change). The daemon parses them and
/// never opens a path in the user's home.
final class UserSnippets: Pollable, Timed {
  /// How long after a change the files are read: an editor's save is
  /// several events.
  static let settleTime: Int64 = 300_000
  /// How often a missing directory is looked for.
  static let lookInterval: Int64 = 5_000_000

  let directory: String
  private let logger: Logger
  private let inotify: Int32
  private var watched: [Int32: String] = [:]
  private(set) var due: Int64? = 0
  /// Takes the files (path and text) and their directory.
  var onFiles: ([(path: String, text: String)], String) -> Void = { _, _ in }

  init(directory: String = SessionWork.espansoDirectory, logger: Logger) {
    self.directory = directory
    self.logger = logger
    inotify = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
  }

  deinit { if inotify >= 0 { close(inotify) } }

  var pollFD: Int32? { inotify >= 0 ? inotify : nil }

  func readable() throws(AgentExit) {
    var buffer = [UInt8](repeating: 0, count: 16384)
    while read(inotify, &buffer, buffer.count) > 0 {}
    due = monotonicMicroseconds() + Self.settleTime
  }

  func tick(at now: Int64) {
    guard let due, now >= due else { return }
    self.due = nil
    var kind = stat()
    guard stat(directory, &kind) == 0, kind.st_mode & S_IFMT == S_IFDIR else {
      if !watched.isEmpty || due == 0 { onFiles([], directory) }
      for descriptor in watched.keys { inotify_rm_watch(inotify, descriptor) }
      watched = [:]
      self.due = now + Self.lookInterval
      return
    }
    var files: [(path: String, text: String)] = []
    watch(directory)
    walk(directory + "/match", into: &files)
    walk(directory + "/config", into: &files, deep: false)
    onFiles(files, directory)
  }

  /// Reads the match files under `path` (those named `_…` too: they are
  /// imported), watching every directory.
  private func watch(_ path: String) {
    guard !watched.values.contains(path) else { return }
    let mask = UInt32(IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF)
    let descriptor = inotify_add_watch(inotify, path, mask)
    if descriptor >= 0 { watched[descriptor] = path }
  }

  private func walk(_ path: String, into files: inout [(path: String, text: String)], deep: Bool = true) {
    guard let names = Directory.names(in: path) else { return }
    watch(path)
    for name in names where !name.hasPrefix(".") {
      let child = path + "/" + name
      var info = stat()
      guard stat(child, &info) == 0 else { continue }
      if info.st_mode & S_IFMT == S_IFDIR {
        if deep { walk(child, into: &files) }
      } else if name.hasSuffix(".yml") || name.hasSuffix(".yaml") {
        guard files.count < AgentProtocol.maximumSnippetFiles else { return }
        guard info.st_size < AgentProtocol.maximumValueMessage / 2, let text = readText(child) else {
          logger.notice("a match file is too big or unreadable; not sent", metadata: ["file": "\(child)"])
          continue
        }
        files.append((child, text))
      }
    }
  }
}
