import Histogram
import LinuxSystem
import Logging

/// What `vkbd stats` shows: events in and out, and the latency from each
/// source event's kernel timestamp to the write of what it made the engine
/// emit, in microseconds.
struct Statistics {
  var eventsIn: UInt64 = 0
  /// The kernel time of the last key event read (CLOCK_MONOTONIC, µs).
  var lastKeyTime: Int64 = 0
  var eventsOut: UInt64 = 0
  private(set) var since = monotonicMicroseconds()
  private(set) var latency = Histogram<UInt64>(
    highestTrackableValue: 60_000_000, numberOfSignificantValueDigits: .three)

  /// Records `events` written `microseconds` after their source event.
  mutating func record(latency microseconds: Int64, events: Int) {
    _ = latency.record(UInt64(max(microseconds, 0)), count: UInt64(events))
  }

  /// Starts counting afresh.
  mutating func reset() {
    self = Statistics()
  }

  var report: StatsReport {
    StatsReport(
      eventsIn: eventsIn, eventsOut: eventsOut,
      samples: latency.totalCount, p50: latency.valueAtPercentile(50), p90: latency.valueAtPercentile(90),
      p99: latency.valueAtPercentile(99), p999: latency.valueAtPercentile(99.9), max: latency.max,
      sinceSeconds: (monotonicMicroseconds() - since) / 1_000_000)
  }

  /// The latency percentiles, for the log.
  var summary: Logger.Metadata {
    [
      "events": "\(latency.totalCount)", "p50": "\(latency.valueAtPercentile(50))",
      "p90": "\(latency.valueAtPercentile(90))", "p99": "\(latency.valueAtPercentile(99))",
      "p99.9": "\(latency.valueAtPercentile(99.9))", "max": "\(latency.max)",
    ]
  }
}
