import Glibc
import LinuxSystem
import SystemPackage
import Testing

/// Work on a thread of its own that tells an event loop when it is done.
@Suite struct BackgroundWorkTests {
  @Test func aNotifyingWorkWakesTheLoopWithItsValue() throws {
    let loop = try EventLoop()
    let work = BackgroundWork(notifying: true) { (1...1000).reduce(0, +) }
    var value: Int?
    let done = try #require(work.done)
    try loop.watch(done) { _ in value = work.wait() }
    try loop.runOnce(timeoutMilliseconds: 10_000)
    #expect(value == 500_500)
  }
}

extension BackgroundWorkTests {
  @Test func yieldingWorkRunsAtTheLeastPriorityAndLeavesTheCallersAlone() {
    let nice = { Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0)) }
    let before = nice()
    #expect(BackgroundWork(yielding: true) { nice() }.wait() == 19)
    #expect(BackgroundWork(yielding: true) { sched_getscheduler(0) }.wait() == 5)  // SCHED_IDLE
    #expect(BackgroundWork { sched_getscheduler(0) }.wait() == sched_getscheduler(0))
    #expect(BackgroundWork { nice() }.wait() == before)
    #expect(nice() == before)
  }
}

extension BackgroundWorkTests {
  @Test func aValueIsTakenAsOftenAsAskedAndDetachedWorkRunsAtTheLeastPriority() throws {
    let work = BackgroundWork { "made" }
    #expect(work.wait() == "made")
    #expect(work.wait() == "made")
    let loop = try EventLoop()
    var ends: [Int32] = [0, 0]
    try #require(pipe(&ends) == 0)
    let (readEnd, writeEnd) = (FileDescriptor(rawValue: ends[0]), ends[1])
    defer {
      try? readEnd.close()
      close(writeEnd)
    }
    nonisolated(unsafe) var nice = 0
    BackgroundWork<Void>.detached {
      nice = Int(getpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0))
      var one: UInt64 = 1
      _ = write(writeEnd, &one, 8)
    }
    var woke = false
    try loop.watch(readEnd) { _ in woke = true }
    while !woke { try loop.runOnce(timeoutMilliseconds: 10_000) }
    #expect(nice == 19)
  }
}
