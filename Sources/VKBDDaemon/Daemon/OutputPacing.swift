import KeyboardEngine

/// How fast key events go onto the virtual keyboard: a burst's worth (the
/// expansion's `burst_keys`) within any burst gap, however they come (an
/// expansion's bursts, the keys that waited behind it, a burst whose
/// planning took long). The kernel keeps 64 events for each reader of a
/// device, two bursts' worth with their SYN_REPORTs, and a reader that
/// misses more loses keys. A person's typing never comes near the bound.
///
/// Two writers share it (``Typist``): the event loop writes what a key or
/// an answer makes at once when nothing waits and the bound allows
/// (``takeAtOnce(_:at:)``); everything else waits, in order, for the
/// typist's thread, which writes it burst by burst (``next(at:)``).
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
  /// Whether keys taken by ``next(at:)`` are being written: what comes now
  /// must not overtake them.
  private var writing = false

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

  /// Whether keys wait or are being written.
  var isBusy: Bool { writing || head < waiting.count }

  /// When the next of the keys that wait may go (monotonic µs): a gap
  /// after the newest write, when a whole burst may; nil when none wait.
  var deadline: Int64? { head < waiting.count ? times[(oldest + burst - 1) % burst] + gapMicroseconds : nil }

  /// Whether `count` key events may go at `now`, written by the caller
  /// (noted as written): nothing waits and the `count`th oldest of the last
  /// burst is a gap old. The key path's one test.
  mutating func takeAtOnce(_ count: Int, at now: Int64) -> Bool {
    guard !isBusy && count <= burst && times[(oldest + count - 1) % burst] <= now - gapMicroseconds else {
      return false
    }
    wrote(count, at: now)
    return true
  }

  /// Queues `keys` behind those that wait.
  mutating func append(_ keys: [OutputKey]) { waiting.append(contentsOf: keys) }

  /// The keys that may go at `now`, noted as written: what the last burst
  /// leaves room for, at most a burst; none while a write is under way. The
  /// caller writes them and then calls ``landed()``.
  mutating func next(at now: Int64) -> [OutputKey] {
    guard !writing else { return [] }
    var room = 0
    while room < burst && times[(oldest + room) % burst] <= now - gapMicroseconds { room += 1 }
    return take(min(room, waiting.count - head), at: now)
  }

  /// Every key that waits, at once (the daemon exits: the keys it releases
  /// go out before it does).
  mutating func all(at now: Int64) -> [OutputKey] { take(waiting.count - head, at: now) }

  /// The keys of the last ``next(at:)`` are written.
  mutating func landed() { writing = false }

  private mutating func take(_ count: Int, at now: Int64) -> [OutputKey] {
    guard count > 0 else { return [] }
    let keys = Array(waiting[head..<head + count])
    head += count
    if head == waiting.count {
      waiting.removeAll(keepingCapacity: true)
      head = 0
    }
    wrote(count, at: now)
    writing = true
    return keys
  }

  private mutating func wrote(_ count: Int, at now: Int64) {
    for _ in 0..<min(count, burst) {
      times[oldest] = now
      oldest = oldest + 1 == burst ? 0 : oldest + 1
    }
  }
}
