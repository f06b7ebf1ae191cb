import AgentProtocol
import Glibc
import LinuxSystem
import SystemPackage

/// The words a user taught autocorrect by undoing its corrections (DESIGN
/// 9): one word a line in `$XDG_DATA_HOME/vkbd/words`, mode 0600, in the
/// user's own directory, written only by the user's processes (the agent,
/// `vkbd words`), never by the root daemon. They are typed text, so no
/// message names one; a bad line is named by its number only.
public struct LearnedWordsFile {
  public let path: String

  /// The largest file read: more than the most words ever kept.
  public static let largestFile = 256 << 10

  /// The file of the user running this process.
  public init(path: String = LearnedWordsFile.userPath) { self.path = path }

  public static var userPath: String {
    let data = Programs.environmentVariable("XDG_DATA_HOME", or: "")
    return (data.isEmpty ? Programs.environmentVariable("HOME", or: "/") + "/.local/share" : data) + "/vkbd/words"
  }

  /// The words, in the file's order, and what was wrong with the file (a
  /// line that is not one lowercase word of at most 32 letters in UTF-8,
  /// words past the most kept, a file too big): each is left out. A file
  /// that is not there holds no words.
  public func read() -> (words: [String], problems: [String]) {
    let bytes: [UInt8]
    do {
      bytes = try Files.read(path, limit: Self.largestFile)
    } catch {
      if error.errno == .noSuchFileOrDirectory { return ([], []) }
      return ([], ["\(path): \(error.description); no learned words"])
    }
    var words: [String] = []
    var seen = Set<String>()
    var problems: [String] = []
    for (index, line) in bytes.split(separator: UInt8(ascii: "\n"), omittingEmptySubsequences: false).enumerated() {
      guard !line.isEmpty else { continue }
      guard let word = String(validating: line, as: UTF8.self), AgentProtocol.isLearnableWord(word) else {
        problems.append("\(path):\(index + 1): not a word of 1 to 32 lowercase letters in UTF-8; left out")
        continue
      }
      guard words.count < AgentProtocol.maximumLearnedWords else {
        problems.append("\(path): more than \(AgentProtocol.maximumLearnedWords) words; the rest are left out")
        break
      }
      if seen.insert(word).inserted { words.append(word) }
    }
    return (words, problems)
  }

  /// Adds `word` (in lowercase) unless it is there; false when the file
  /// holds the most words already. Creates the directory (0700) and the
  /// file (0600) as needed.
  @discardableResult
  public func add(_ word: String) throws(SystemError) -> Bool {
    let (words, _) = read()
    guard !words.contains(word) else { return true }
    guard words.count < AgentProtocol.maximumLearnedWords else { return false }
    try write(words + [word])
    return true
  }

  /// Removes `word`; false when it was not there.
  public func remove(_ word: String) throws(SystemError) -> Bool {
    let (words, _) = read()
    guard words.contains(word) else { return false }
    try write(words.filter { $0 != word })
    return true
  }

  /// The file's directory.
  public var directory: String { String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)]) }

  /// Makes the file's directory and those above it that are missing (0700).
  public func makeDirectory() throws(SystemError) { try Self.makeDirectories(directory) }

  private func write(_ words: [String]) throws(SystemError) {
    try makeDirectory()
    try Files.writeAtomically(words.map { $0 + "\n" }.joined(), to: path)
  }

  /// `mkdir -p` with mode 0700 for what it makes.
  private static func makeDirectories(_ directory: String) throws(SystemError) {
    guard !directory.isEmpty, Files.kind(of: directory) == nil else { return }
    try makeDirectories(String(directory[..<(directory.lastIndex(of: "/") ?? directory.startIndex)]))
    guard mkdir(directory, 0o700) == 0 || errno == EEXIST else { throw SystemError("mkdir", directory) }
  }
}
