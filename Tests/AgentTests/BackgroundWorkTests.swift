import LinuxSystem
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
