import KeyboardEngine
import TestSupport
import Testing

@testable import VKBDDaemon

/// The virtual keyboard's pacing, with its two writers: never more than a
/// burst within a gap, nothing lost, nothing reordered.
@Suite struct OutputPacingTests {
  /// The loop and the typist as the daemon runs them, on a virtual clock:
  /// (time, keys) per write.
  struct Writers {
    var pacing = OutputPacing(ExpansionConfiguration())
    var writes: [(time: Int64, keys: [OutputKey])] = []
    var sent: [OutputKey] = []

    /// What the loop does with `count` keys a key (or, `timed`, a timer's
    /// turn) made at `now`: true when it wrote them itself.
    mutating func send(_ count: Int, at now: Int64, timed: Bool = false) -> Bool {
      let keys = (0..<count).map { OutputKey(code: UInt16((sent.count + $0) % 200 + 1), value: .down) }
      sent += keys
      if (!timed || count <= VirtualKeyboard.chord) && pacing.takeAtOnce(count, at: now) {
        writes.append((now, keys))
        return true
      }
      pacing.append(keys)
      typist(at: now)  // woken at once
      return false
    }

    /// One turn of the typist's thread at `now`.
    mutating func typist(at now: Int64) {
      let keys = pacing.next(at: now)
      guard !keys.isEmpty else { return }
      writes.append((now, keys))
      pacing.landed()
    }

    /// The typist's turns at its deadlines until nothing waits.
    mutating func drain() {
      while let deadline = pacing.deadline { typist(at: deadline) }
    }

    /// The most key events written within any gap (a sliding window).
    var mostWithinAGap: Int {
      writes.indices.map { start in
        writes[start...].prefix { $0.time - writes[start].time < pacing.gapMicroseconds }.reduce(0) {
          $0 + $1.keys.count
        }
      }.max() ?? 0
    }
  }

  @Test func aPersonsTypingGoesOutAtOnceFromTheLoop() {
    var writers = Writers()
    // 200 key events, one every 10 ms (fifty keys a second).
    for index in 0..<200 {
      let atOnce = writers.send(1, at: 1_000_000 + Int64(index) * 10_000)
      #expect(atOnce)
    }
    #expect(writers.pacing.deadline == nil && writers.writes.count == 200)
  }

  @Test func aBurstPlannedLateWaitsTheGapAfterTheBurstBefore() {
    // Measured in the VM under SCHED_FIFO: an expansion's first burst went
    // out 13 ms after the answer's time, and its next burst and the keys
    // that waited behind it 3 ms later, 34 key events, more than a reader
    // keeps. Now the rest waits for the gap.
    var writers = Writers()
    let first = writers.send(15, at: 10_000)
    let rest = writers.send(19, at: 13_000, timed: true)
    #expect(first && !rest)
    #expect(writers.writes.count == 1 && writers.pacing.deadline == 18_000)
    writers.drain()
    #expect(writers.writes.map(\.time) == [10_000, 18_000, 26_000])
    #expect(writers.writes.map(\.keys.count) == [15, 15, 4])
    #expect(writers.writes.flatMap(\.keys) == writers.sent)
  }

  @Test func aTimersBurstGoesToTheTypistAndAChordDoesNot() {
    var writers = Writers()
    let burst = writers.send(10, at: 0, timed: true)
    let chord = writers.send(2, at: 100_000, timed: true)
    #expect(!burst && chord)
    #expect(writers.writes.map(\.keys.count) == [10, 2])
  }

  @Test func whatComesWhileKeysWaitOrAreWrittenGoesBehindThem() {
    var writers = Writers()
    let twenty = writers.send(20, at: 0)
    // A gap later there is room again, but five keys still wait.
    let behind = writers.send(1, at: 9_000)
    #expect(!twenty && !behind)
    writers.drain()
    #expect(writers.writes.flatMap(\.keys) == writers.sent)
    #expect(writers.mostWithinAGap <= 15)
    // While the typist writes, nothing is written past it.
    writers.pacing.append([OutputKey(code: 1, value: .down)])
    let taken = writers.pacing.next(at: 1_000_000)
    let overtakes = writers.pacing.takeAtOnce(1, at: 1_000_000)
    #expect(taken.count == 1 && !overtakes)
    writers.pacing.landed()
    let after = writers.pacing.takeAtOnce(1, at: 1_000_000)
    #expect(after)
  }

  @Test(arguments: 0..<40) func anyStreamIsWrittenWholeInOrderAndNeverMoreThanABurstWithinAGap(seed: Int) {
    var generator = SplitMix64(seed: UInt64(seed) &* 0x9E37_79B9 &+ 7)
    var writers = Writers()
    var now: Int64 = 1_000_000
    for _ in 0..<200 {
      now += Int64.random(in: 0...12_000, using: &generator)
      // The typist's turns that came between, and sometimes one late.
      while let deadline = writers.pacing.deadline, deadline <= now {
        writers.typist(at: Bool.random(using: &generator) ? deadline : now)
      }
      _ = writers.send(Int.random(in: 1...40, using: &generator), at: now, timed: Bool.random(using: &generator))
    }
    writers.drain()
    #expect(writers.writes.flatMap(\.keys) == writers.sent)
    #expect(writers.mostWithinAGap <= writers.pacing.burst, "seed \(seed)")
  }

  @Test func atExitEveryKeyThatWaitsGoesAtOnceAndAReloadKeepsThem() {
    var writers = Writers()
    _ = writers.send(40, at: 0)
    var faster = ExpansionConfiguration()
    faster.burstKeys = 5
    writers.pacing.adopt(faster)
    #expect(writers.pacing.burst == 5 && writers.pacing.deadline != nil)
    let rest = writers.pacing.all(at: 1)
    #expect(rest.count == 25)
    #expect(writers.writes.flatMap(\.keys) + rest == writers.sent)
    writers.pacing.landed()
    #expect(writers.pacing.deadline == nil && !writers.pacing.isBusy)
  }
}
