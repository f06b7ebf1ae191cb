import Foundation
import LinuxSystem
import Testing

/// The loop's timer that each restart puts off (the settling of a file
/// watch, the agent's reads).
struct RestartingTimerTests {
  /// Runs `loop` until `deadline` (monotonic µs).
  static func run(_ loop: EventLoop, until deadline: Int64) {
    while monotonicMicroseconds() < deadline { try? loop.runOnce(timeoutMilliseconds: 5) }
  }

  @Test func restartsPutTheActionOffAndItRunsOnceAfterTheLast() throws {
    let loop = try EventLoop()
    var runs: [Int64] = []
    let timer = RestartingTimer(loop: loop) { runs.append(monotonicMicroseconds()) }
    let start = monotonicMicroseconds()
    timer.restart(after: 40_000)
    Self.run(loop, until: start + 20_000)
    let last = monotonicMicroseconds()
    timer.restart(after: 40_000)
    #expect(timer.isPending)
    Self.run(loop, until: start + 200_000)
    #expect(runs.count == 1)
    #expect(runs.first.map { $0 >= last + 40_000 } == true, "it ran before the last restart's delay")
    #expect(!timer.isPending)
  }

  @Test func aCancelledOrLetGoTimerNeverRuns() throws {
    let loop = try EventLoop()
    var runs = 0
    let cancelled = RestartingTimer(loop: loop) { runs += 1 }
    cancelled.restart(after: 10_000)
    cancelled.cancel()
    var letGo: RestartingTimer? = RestartingTimer(loop: loop) { runs += 1 }
    letGo?.restart(after: 10_000)
    letGo = nil
    Self.run(loop, until: monotonicMicroseconds() + 80_000)
    #expect(runs == 0)
    #expect(!cancelled.isPending)
  }
}
