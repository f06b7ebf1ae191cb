import AgentProtocol
import LinuxSystem

/// A user's espanso files as vkbd takes them: the match files under
/// `match/` (at any depth, `_…` ones too: they are imported) and the
/// configs in `config/`, within the limits an agent may send. The session
/// agent reads them so and sends them to the daemon; `vkbd check`,
/// `simulate` and the other offline commands read them so for the user who
/// runs them: one walk, so both see the same files.
public struct EspansoFiles {
  /// The files read, in the walk's order.
  public var files: [SnippetFile] = []
  /// The directories walked (the agent watches them).
  public var directories: [String] = []
  /// Files left out, each with why (too big, unreadable, not UTF-8, or
  /// past the limits), and whether a limit is why.
  public var leftOut: [(path: String, reason: String, overLimit: Bool)] = []
  private var bytes = 0

  /// Reads the files under `directory` (espanso's directory); nothing when
  /// it is not a directory.
  public init(reading directory: String) {
    guard Files.kind(of: directory) == .directory else { return }
    directories.append(directory)
    walk(directory + "/match", deep: true)
    walk(directory + "/config", deep: false)
  }

  private mutating func walk(_ path: String, deep: Bool) {
    guard let names = Files.names(in: path) else { return }
    directories.append(path)
    for name in names where !name.hasPrefix(".") {
      let child = path + "/" + name
      switch Files.kind(of: child) {
      case .directory?:
        if deep { walk(child, deep: true) }
      case .file? where name.hasSuffix(".yml") || name.hasSuffix(".yaml"):
        read(child)
      default:
        break
      }
    }
  }

  private mutating func read(_ path: String) {
    guard files.count < AgentProtocol.maximumSnippetFiles else {
      leftOut.append((path, "more than \(AgentProtocol.maximumSnippetFiles) match files", true))
      return
    }
    let text: String
    do {
      text = try Files.readText(path, limit: AgentProtocol.maximumValueMessage / 2)
    } catch {
      let limit = AgentProtocol.maximumValueMessage / 2
      let why = [.fileTooLarge, .illegalByteSequence].contains(error.errno) ? " (at most \(limit) bytes of UTF-8)" : ""
      leftOut.append((path, "\(error.errno)\(why)", error.errno == .fileTooLarge))
      return
    }
    guard bytes + text.utf8.count <= AgentProtocol.maximumSnippetBytes else {
      leftOut.append((path, "more than \(AgentProtocol.maximumSnippetBytes) bytes of match files in all", true))
      return
    }
    bytes += text.utf8.count
    files.append(SnippetFile(path: path, text: text))
  }
}
