import KeyboardEngine
import LinuxSystem
import TestSupport
import Testing

@testable import vkbd

/// The virtual keyboard's pacing: never more than a burst within a gap,
/// nothing lost, nothing reordered.
@Suite struct OutputPacingTests {
  /// A pacing and what it wrote: (time, keys) per write.
  struct Writer {
    var pacing = OutputPacing(ExpansionConfiguration())
    var writes: [(time: Int64, keys: [OutputKey])] = []
    var sent: [OutputKey] = []

    mutating func send(_ count: Int, at now: Int64) -> Bool {
      let keys = (0..<count).map { OutputKey(code: UInt16((sent.count + $0) % 200 + 1), value: .down) }
      sent += keys
      var wrote: [[OutputKey]] = []
      let all = try! pacing.send(keys, at: now) { wrote.append(Array($0)) }
      writes += wrote.map { (now, $0) }
      return all
    }

    /// Runs the pacing's timer until nothing waits.
    mutating func drain() {
      while let deadline = pacing.deadline {
        var wrote: [[OutputKey]] = []
        try! pacing.writeWaiting(at: deadline) { wrote.append(Array($0)) }
        writes += wrote.map { (deadline, $0) }
      }
    }

    /// The most key events written within any gap (a sliding window).
    var mostWithinAGap: Int {
      writes.indices.map { start in
        writes[start...].prefix { $0.time - writes[start].time < pacing.gapMicroseconds }.reduce(0) { $0 + $1.keys.count }
      }.max() ?? 0
    }
  }

  @Test func aPersonsTypingGoesOutAtOnce() {
    var writer = Writer()
    // 200 keys, a press or a release every 10 ms (fifty keys a second).
    for index in 0..<200 {
      let atOnce = writer.send(1, at: 1_000_000 + Int64(index) * 10_000)
      #expect(atOnce)
    }
    #expect(writer.pacing.deadline == nil && writer.writes.count == 200)
  }

  @Test func aBurstPlannedLateWaitsTheGapAfterTheBurstBefore() {
    // Measured in the VM under SCHED_FIFO: an expansion's first burst went
    // out 13 ms after the answer's time, and its next burst and the keys
    // that waited behind it 3 ms later, 34 key events, more than a reader
    // keeps. Now the second write waits for the gap.
    var writer = Writer()
    let first = writer.send(15, at: 10_000)
    #expect(first)
    let second = writer.send(19, at: 13_000)
    #expect(!second)
    #expect(writer.writes.count == 1)
    #expect(writer.pacing.deadline == 18_000)
    writer.drain()
    #expect(writer.writes.map(\.time) == [10_000, 18_000, 26_000])
    #expect(writer.writes.map(\.keys.count) == [15, 15, 4])
    #expect(writer.writes.flatMap(\.keys) == writer.sent)
  }

  @Test func whatComesWhileKeysWaitGoesBehindThem() {
    var writer = Writer()
    let twenty = writer.send(20, at: 0)
    #expect(!twenty)
    // A gap later there is room again, but five keys still wait.
    let behind = writer.send(1, at: 9_000)
    #expect(!behind)
    writer.drain()
    #expect(writer.writes.flatMap(\.keys) == writer.sent)
    #expect(writer.mostWithinAGap <= 15)
  }

  @Test(arguments: 0..<40) func anyStreamIsWrittenWholeInOrderAndNeverMoreThanABurstWithinAGap(seed: Int) {
    var generator = SeededGenerator(state: UInt64(seed) &* 0x9E37_79B9 &+ 7)
    var writer = Writer()
    var now: Int64 = 1_000_000
    for _ in 0..<200 {
      now += Int64.random(in: 0...12_000, using: &generator)
      // Some timer turns between the writes, as the daemon's loop has them.
      if let deadline = writer.pacing.deadline, deadline <= now {
        var wrote: [[OutputKey]] = []
        try! writer.pacing.writeWaiting(at: deadline) { wrote.append(Array($0)) }
        writer.writes += wrote.map { (deadline, $0) }
      }
      _ = writer.send(Int.random(in: 1...40, using: &generator), at: now)
    }
    writer.drain()
    #expect(writer.writes.flatMap(\.keys) == writer.sent)
    #expect(writer.mostWithinAGap <= writer.pacing.burst, "seed \(seed)")
  }

  @Test func atExitEveryKeyThatWaitsGoesAtOnceAndAReloadKeepsThem() {
    var writer = Writer()
    let forty = writer.send(40, at: 0)
    #expect(!forty)
    var faster = ExpansionConfiguration()
    faster.burstKeys = 5
    writer.pacing.adopt(faster)
    #expect(writer.pacing.burst == 5 && writer.pacing.deadline != nil)
    var wrote: [[OutputKey]] = []
    try! writer.pacing.writeAllWaiting { wrote.append(Array($0)) }
    #expect(wrote.map(\.count) == [25])
    #expect(writer.writes.flatMap(\.keys) + wrote.flatMap { $0 } == writer.sent)
    #expect(writer.pacing.deadline == nil)
  }
}
