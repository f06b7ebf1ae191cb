import Glibc

/// CLOCK_MONOTONIC now, in microseconds (`clock_gettime`): the clock of
/// every evdev fd once libevdev sets it, of the timers and of the agent's
/// deadlines.
public func monotonicMicroseconds() -> Int64 { microseconds(of: CLOCK_MONOTONIC) }

/// `clock` now, in microseconds (`clock_gettime`).
public func microseconds(of clock: clockid_t) -> Int64 {
  var now = timespec()
  clock_gettime(clock, &now)
  return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}
