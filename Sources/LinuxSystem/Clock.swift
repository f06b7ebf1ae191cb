import Glibc

/// CLOCK_MONOTONIC now, in microseconds (`clock_gettime`): the clock of
/// every evdev fd once libevdev sets it, of the timers and of the agent's
/// deadlines.
public func monotonicMicroseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}
