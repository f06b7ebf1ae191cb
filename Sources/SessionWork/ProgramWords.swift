import AgentProtocol
import LinuxSystem

/// The names of programs that read as words (``AgentProtocol/isProgramWord(_:)``):
/// autocorrect leaves them as typed (`rsync` is no misspelling of `sync`,
/// nor `nl` of `ln`), and the word after one (its argument). The daemon
/// reads the system's directories; the agent sends the user's own.
public enum ProgramWords {
  /// Where the system's programs are (and the daemon's PATH under systemd).
  public static let systemDirectories = [
    "/usr/local/sbin", "/usr/local/bin", "/usr/sbin", "/usr/bin", "/sbin", "/bin", "/usr/games", "/usr/local/games",
  ]

  /// The names of the programs in `directories` that read as words, in
  /// lowercase, at most `limit` of them (the first directories first).
  public static func names(in directories: [String], limit: Int = .max) -> Set<String> {
    var names = Set<String>()
    for directory in directories {
      for name in Files.names(in: directory) ?? [] {
        let lowercase = name.lowercased()
        guard names.count < limit, AgentProtocol.isProgramWord(lowercase) else { continue }
        names.insert(lowercase)
      }
    }
    return names
  }

  /// The user's own program directories: those of `path` (the agent's
  /// PATH) and `~/.local/bin` and `~/bin` (which Debian's `~/.profile`
  /// adds to a login shell's PATH, though not to a systemd service's),
  /// without the system's, each once, in order.
  public static func userDirectories(path: String?, home: String?) -> [String] {
    var directories = (path ?? "").split(separator: ":").map(String.init).filter { $0.hasPrefix("/") }
    if let home, home.hasPrefix("/") { directories += ["\(home)/.local/bin", "\(home)/bin"] }
    var seen = Set(systemDirectories)
    return directories.filter { seen.insert($0.count > 1 && $0.hasSuffix("/") ? String($0.dropLast()) : $0).inserted }
  }

  /// The names of the user's own programs that read as words, those the
  /// system has too left out (the daemon knows them).
  public static func user(path: String?, home: String?) -> [String] {
    let system = names(in: systemDirectories)
    return names(in: userDirectories(path: path, home: home), limit: AgentProtocol.maximumPrograms + system.count)
      .subtracting(system).sorted().prefix(AgentProtocol.maximumPrograms).map { $0 }
  }
}
