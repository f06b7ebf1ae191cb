import Glibc
import LinuxSystem

/// The config file and the match files it names, watched through their
/// directories (an editor may save by writing a new file and renaming it
/// over the old one): once they have been quiet for ``settleTime``, the
/// daemon reloads. Other files in those directories are left alone, but
/// for new match files (`.yml`, `.yaml`) beside the named ones, which a
/// glob may take in.
final class ConfigWatch {
  /// How long the files must be quiet before the reload, in microseconds:
  /// an editor's save is a few writes and a rename in a row.
  static let settleTime: Int64 = 300_000

  private let inotify: Inotify
  private let loop: EventLoop
  private var token: UInt64 = 0
  /// The names watched in each directory.
  private var names: [String: Set<String>] = [:]
  /// The directories of match files, where any new match file counts.
  private var matchDirectories: Set<String> = []
  /// The reload, once the files are quiet.
  private let settling: RestartingTimer
  /// What is watched, when every folder of it is.
  private var watched: (config: String, matchFiles: [String])?

  init(loop: EventLoop, onChange: @escaping () -> Void) throws(SystemError) {
    inotify = try Inotify()
    self.loop = loop
    settling = RestartingTimer(loop: loop, action: onChange)
    token = try loop.watch(inotify.fd) { [unowned self] _ in changed() }
  }

  deinit { loop.unwatch(inotify.fd, token: token) }

  /// Watches `config` and `matchFiles` from now on, instead of what was
  /// watched; returns the directories that could not be watched (missing).
  @discardableResult
  func watch(config: String, matchFiles: [String]) -> [String] {
    // The same files, all watched: nothing to do (a reload's usual case;
    // adding watches looks the folders up, which may wait on a disk).
    if watched?.config == config && watched?.matchFiles == matchFiles { return [] }
    inotify.removeAll()
    watched = nil
    names = [:]
    matchDirectories = Set(matchFiles.map(MatchPaths.directory(of:)))
    for file in [config] + matchFiles {
      names[MatchPaths.directory(of: file), default: []].insert(String(file.split(separator: "/").last ?? ""))
    }
    var missing: [String] = []
    for directory in names.keys.sorted() {
      do {
        try inotify.watch(directory, for: Inotify.directoryChanges)
      } catch {
        missing.append(directory)
      }
    }
    if missing.isEmpty { watched = (config, matchFiles) }
    return missing
  }

  private func changed() {
    var relevant = false
    inotify.readEvents { directory, name in
      if names[directory]?.contains(name) == true
        || (matchDirectories.contains(directory) && !name.hasPrefix(".")
          && (name.hasSuffix(".yml") || name.hasSuffix(".yaml")))
      {
        relevant = true
      }
    }
    if relevant { settling.restart(after: Self.settleTime) }
  }
}

extension Daemon {
  /// Watches the config in force and its match files (the daemon's file
  /// when it runs on the embedded default: one written there loads).
  func watchConfig() {
    let config =
      configuration.source == Configuration.embeddedName
      ? (configPath ?? ConfigLoader.defaultPath) : configuration.source
    do {
      if configWatch == nil {
        configWatch = try ConfigWatch(loop: loop) { [unowned self] in configFilesChanged() }
      }
      for directory in configWatch?.watch(config: config, matchFiles: configuration.snippetFiles) ?? [] {
        logger.debug("not watched for changes: \(directory) cannot be watched")
      }
    } catch {
      logger.notice("the config is not watched for changes: \(error)")
    }
  }

  /// The config or a match file changed and settled: reload, unless the
  /// config file in force is gone (deleted, or renamed away for good),
  /// which leaves the running configuration as it is.
  private func configFilesChanged() {
    let source = configuration.source
    if source != Configuration.embeddedName && access(source, F_OK) != 0 {
      logger.error("reload: \(source) is gone")
      reloadFailed(["\(source): the file is gone; the running configuration stays until it is back"], by: "file")
      return
    }
    reload(by: "file")
  }
}
