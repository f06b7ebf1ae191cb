import Glibc
import Logging
import Testing

@testable import LogOptions

/// The daemon's log lines: a line a message, its level as the journal's
/// priority where the journal reads it.
@Suite struct LineLogHandlerTests {
  @Test func aTerminalLineHasTheTimeTheLevelAndTheSortedMetadata() throws {
    let handler = LineLogHandler(label: "vkbd", toJournal: false)
    let line = handler.line(.notice, "reloaded", ["ms": "12", "by": "file"], source: "vkbd")
    let time = try #require(line.split(separator: " ").first)
    #expect(time.count == "2026-11-27T14:00:00+0000".count && time.contains("T"))
    #expect(line.hasSuffix(" notice vkbd: by=file ms=12 [vkbd] reloaded\n"))
  }

  @Test func aJournalLineStartsWithItsPriorityAndCarriesNoTime() {
    let handler = LineLogHandler(label: "vkbd", toJournal: true)
    #expect(handler.line(.error, "reload failed", [:], source: "vkbd") == "<3>vkbd: [vkbd] reload failed\n")
    #expect(handler.line(.info, "ready", [:], source: "vkbd") == "<6>vkbd: [vkbd] ready\n")
    #expect(
      [Logger.Level.trace, .debug, .info, .notice, .warning, .error, .critical].map(LineLogHandler.priority)
        == [7, 7, 6, 5, 4, 3, 2])
  }

  @Test func theJournalIsTheStreamJournalStreamNames() throws {
    var status = stat()
    let fd = open("/dev/null", O_WRONLY)
    defer { close(fd) }
    try #require(fstat(fd, &status) == 0)
    #expect(LineLogHandler.isJournal("\(status.st_dev):\(status.st_ino)", fd: fd))
    #expect(!LineLogHandler.isJournal("\(status.st_dev):\(status.st_ino + 1)", fd: fd))
    #expect(!LineLogHandler.isJournal(nil, fd: fd))
    #expect(!LineLogHandler.isJournal("journal", fd: fd))
  }
}
