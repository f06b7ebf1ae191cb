import KeyboardEngine
import LinuxSystem

/// How fast key events go onto the virtual keyboard: a burst's worth (the
/// expansion's `burst_keys`) within any burst gap, however they come (an
/// expansion's bursts, the keys that waited behind it, a burst whose
/// planning took long); what may not go yet waits, in order, and what
/// comes after it waits behind it. The kernel keeps 64 events for each
/// reader of a device, two bursts' worth with their SYN_REPORTs, and a
/// reader that misses more loses keys. The engine's own timing does not
/// bound this alone: a loop under a real-time policy is not interrupted by
/// the readers its writes wake. A person's typing never comes near it.
struct OutputPacing {
  /// The key events a gap may hold.
  private(set) var burst: Int
  private(set) var gapMicroseconds: Int64
  /// When each of the last `burst` key events went out, oldest first from
  /// `oldest` (a ring); `Int64.min` for none.
  private var times: [Int64]
  private var oldest = 0
  /// The keys that wait, in order, from `head`.
  private var waiting: [OutputKey] = []
  private var head = 0

  init(_ configuration: ExpansionConfiguration) {
    burst = max(configuration.burstKeys, 1)
    gapMicroseconds = configuration.burstGapMilliseconds * 1000
    times = [Int64](repeating: Int64.min, count: burst)
  }

  /// Takes `configuration`'s burst and gap (a reload); what waits goes on
  /// waiting.
  mutating func adopt(_ configuration: ExpansionConfiguration) {
    let fresh = OutputPacing(configuration)
    guard fresh.burst != burst || fresh.gapMicroseconds != gapMicroseconds else { return }
    (burst, gapMicroseconds, times, oldest) = (fresh.burst, fresh.gapMicroseconds, fresh.times, 0)
  }

  /// When the keys that wait may go on (monotonic µs): a gap after the
  /// newest write, when a whole burst may go; nil when none wait.
  var deadline: Int64? { head < waiting.count ? times[(oldest + burst - 1) % burst] + gapMicroseconds : nil }

  /// Hands `keys` to `write` at `now` (monotonic µs), or as many as may go
  /// and the rest later (``writeWaiting(at:_:)``), behind those that wait
  /// already; true when they all went now. The key path's one test: the
  /// `count`th oldest of the last burst's key events is a gap old.
  mutating func send(
    _ keys: [OutputKey], at now: Int64, _ write: (ArraySlice<OutputKey>) throws(SystemError) -> Void
  ) throws(SystemError) -> Bool {
    if head == waiting.count && keys.count <= burst && times[(oldest + keys.count - 1) % burst] <= now - gapMicroseconds {
      try write(keys[...])
      wrote(keys.count, at: now)
      return true
    }
    waiting.append(contentsOf: keys)
    try writeWaiting(at: now, write)
    return false
  }

  /// Hands `write` as many of the keys that wait as may go at `now`.
  mutating func writeWaiting(at now: Int64, _ write: (ArraySlice<OutputKey>) throws(SystemError) -> Void)
    throws(SystemError)
  {
    var room = 0
    while room < burst && times[(oldest + room) % burst] <= now - gapMicroseconds { room += 1 }
    try writeWaiting(min(room, waiting.count - head), at: now, write)
  }

  /// Hands `write` every key that waits at once: the keys released at
  /// exit go out before the process does.
  mutating func writeAllWaiting(_ write: (ArraySlice<OutputKey>) throws(SystemError) -> Void) throws(SystemError) {
    try writeWaiting(waiting.count - head, at: monotonicMicroseconds(), write)
  }

  private mutating func writeWaiting(
    _ count: Int, at now: Int64, _ write: (ArraySlice<OutputKey>) throws(SystemError) -> Void
  ) throws(SystemError) {
    guard count > 0 else { return }
    let keys = waiting[head..<head + count]
    head += count  // a write that fails is not tried again
    if head == waiting.count {
      waiting.removeAll(keepingCapacity: true)
      head = 0
    }
    try write(keys)
    wrote(count, at: now)
  }

  private mutating func wrote(_ count: Int, at now: Int64) {
    for _ in 0..<min(count, burst) {
      times[oldest] = now
      oldest = oldest + 1 == burst ? 0 : oldest + 1
    }
  }
}
