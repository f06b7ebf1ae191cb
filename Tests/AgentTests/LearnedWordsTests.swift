import AgentProtocol
import Foundation
import Glibc
import LinuxSystem
import SessionWork
import Testing

/// The user's learned words (issue 29): the file the agent keeps as the
/// user and `vkbd words` edits, and the messages that carry them.
@Suite struct LearnedWordsTests {
  static func scratchFile() -> LearnedWordsFile {
    LearnedWordsFile(path: NSTemporaryDirectory() + "vkbd-words-\(UUID().uuidString)/share/vkbd/words")
  }

  @Test func wordsAreAddedOnceKeptPrivateAndRemoved() throws {
    let file = Self.scratchFile()
    defer { try? FileManager.default.removeItem(atPath: file.directory + "/../..") }
    #expect(file.read().words.isEmpty && file.read().problems.isEmpty)
    #expect(try file.add("wrold"))
    #expect(try file.add("teh"))
    #expect(try file.add("wrold"))
    #expect(file.read().words == ["wrold", "teh"])
    var info = stat()
    #expect(stat(file.path, &info) == 0 && info.st_mode & 0o777 == 0o600)
    #expect(stat(file.directory, &info) == 0 && info.st_mode & 0o777 == 0o700)
    #expect(try file.remove("wrold"))
    #expect(try !file.remove("wrold"))
    #expect(file.read().words == ["teh"])
  }

  @Test func badLinesAreNamedByNumberAndLeftOut() throws {
    let file = Self.scratchFile()
    try file.makeDirectory()
    defer { try? FileManager.default.removeItem(atPath: file.directory + "/../..") }
    var bytes = Array("good\nWith Capital\n".utf8) + [0x66, 0xFC, 0x72, 0x0A] + Array("x1\n\nfine\n".utf8)
    bytes += Array((String(repeating: "a", count: 33) + "\n").utf8)
    try Data(bytes).write(to: URL(fileURLWithPath: file.path))
    let (words, problems) = file.read()
    #expect(words == ["good", "fine"])
    #expect(
      problems.map { $0.replacingOccurrences(of: file.path, with: "F") } == [
        "F:2: not a word of 1 to 32 lowercase letters in UTF-8; left out",
        "F:3: not a word of 1 to 32 lowercase letters in UTF-8; left out",
        "F:4: not a word of 1 to 32 lowercase letters in UTF-8; left out",
        "F:7: not a word of 1 to 32 lowercase letters in UTF-8; left out",
      ])
    // No problem quotes the line.
    #expect(!problems.joined().contains("Capital"))
  }

  @Test func aHugeFileIsReadOnlyToItsBound() throws {
    let file = Self.scratchFile()
    try file.makeDirectory()
    defer { try? FileManager.default.removeItem(atPath: file.directory + "/../..") }
    try String(repeating: "word\n", count: 1 << 20).write(toFile: file.path, atomically: true, encoding: .utf8)
    let (words, problems) = file.read()
    #expect(words.isEmpty && problems.count == 1 && problems[0].contains("too large"), "\(problems)")
    var many = ""
    for index in 0..<5000 {
      var value = index
      for _ in 0..<4 {
        many.unicodeScalars.append(Unicode.Scalar(UInt8(97 + value % 26)))
        value /= 26
      }
      many += "\n"
    }
    try many.write(toFile: file.path, atomically: true, encoding: .utf8)
    let bounded = file.read()
    #expect(bounded.words.count == AgentProtocol.maximumLearnedWords, "\(bounded.problems)")
    #expect(try !file.add("another"))
  }

  @Test func theMessagesCarryOnlyWordsAndProgramNames() throws {
    let words = LearnedWords(words: ["wrold", "grüße"])
    #expect(try decodeMessage(LearnedWords.self, from: words.encoded().dropLast()) == words)
    for bad in [["Capital"], ["two words"], [""], [String(repeating: "a", count: 33)]] {
      #expect(throws: AgentProtocolError.self) { try LearnedWords(words: bad).validate() }
    }
    #expect(throws: AgentProtocolError.self) {
      try LearnedWords(words: Array(repeating: "a", count: AgentProtocol.maximumLearnedWords + 1)).validate()
    }
    #expect(throws: AgentProtocolError.self) { try WordLearned(word: "wr0ld").validate() }
    // The user's programs come with them; an agent that sends none is heard.
    let programs = LearnedWords(words: ["wrold"], programs: ["kubectx", "nl"])
    #expect(try decodeMessage(LearnedWords.self, from: programs.encoded().dropLast()) == programs)
    let without = #"{"version":2,"type":"learned-words","words":["wrold"]}"#
    #expect(try decodeMessage(LearnedWords.self, from: Array(without.utf8)).programs == [])
    for bad in [["x"], ["Kubectx"], ["kube-ctx"], ["grüße"], [String(repeating: "a", count: 33)]] {
      #expect(throws: AgentProtocolError.self) { try LearnedWords(words: [], programs: bad).validate() }
    }
    #expect(throws: AgentProtocolError.self) {
      try LearnedWords(words: [], programs: Array(repeating: "ab", count: AgentProtocol.maximumPrograms + 1)).validate()
    }
    #expect(try decodeMessage(WordLearned.self, from: WordLearned(word: "wrold").encoded().dropLast()).word == "wrold")
  }

  @Test func theUsersProgramsAreThoseOfTheirOwnDirectories() throws {
    let home = NSTemporaryDirectory() + "vkbd-home-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: home) }
    let other = home + "/opt/bin"
    for directory in [home + "/.local/bin", other] {
      try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }
    for name in ["kubectx", "Frobnicate", "ls", "x", "run-me", "tool2"] {
      #expect(FileManager.default.createFile(atPath: "\(home)/.local/bin/\(name)", contents: nil))
    }
    #expect(FileManager.default.createFile(atPath: "\(other)/zorbtool", contents: nil))
    // The system's directories, a relative entry and a repeat are left out;
    // ~/.local/bin and ~/bin count though PATH lacks them.
    let path = "/usr/bin:relative/bin:\(other):/bin:\(other)/"
    #expect(
      ProgramWords.userDirectories(path: path, home: home) == [other, home + "/.local/bin", home + "/bin"])
    // `ls` is the system's too: the daemon knows it already.
    #expect(ProgramWords.user(path: path, home: home) == ["frobnicate", "kubectx", "zorbtool"])
    #expect(ProgramWords.user(path: nil, home: nil).isEmpty)
  }
}
