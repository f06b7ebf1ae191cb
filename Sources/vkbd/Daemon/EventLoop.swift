import CEvdev
import Glibc

/// An epoll instance: the one place the daemon waits. Each watched fd carries
/// a token that says what it is.
final class EventLoop {
  private let epoll: Int32
  private var ready = [epoll_event](repeating: epoll_event(), count: 64)

  init() throws(SystemError) {
    epoll = try valueOrErrno("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) }
  }

  deinit { close(epoll) }

  /// Watches `fd` for input (`epoll_ctl` EPOLL_CTL_ADD).
  func watch(_ fd: Int32, token: UInt64) throws(SystemError) {
    try control(EPOLL_CTL_ADD, fd, token: token, events: EPOLLIN.rawValue)
  }

  /// Watches `fd` for room to write instead of input (EPOLL_CTL_MOD).
  func watchWritable(_ fd: Int32, token: UInt64) throws(SystemError) {
    try control(EPOLL_CTL_MOD, fd, token: token, events: EPOLLOUT.rawValue)
  }

  private func control(_ operation: Int32, _ fd: Int32, token: UInt64, events: UInt32) throws(SystemError) {
    var event = epoll_event()
    event.events = events
    event.data.u64 = token
    try valueOrErrno("epoll_ctl") { epoll_ctl(epoll, operation, fd, &event) }
  }

  /// Stops watching `fd` (`epoll_ctl` EPOLL_CTL_DEL); closing it does too.
  func unwatch(_ fd: Int32) {
    _ = epoll_ctl(epoll, EPOLL_CTL_DEL, fd, nil)
  }

  /// Waits until a watched fd is ready (`epoll_wait`; the daemon waits with
  /// no timeout: its timers are timerfds) and returns how many are;
  /// ``token(at:)`` says which. An fd left unhandled is reported again by
  /// the next wait (level-triggered).
  func wait(milliseconds timeout: Int32 = -1) throws(SystemError) -> Int {
    Int(try valueOrErrno("epoll_wait") { epoll_wait(epoll, &ready, Int32(ready.count), timeout) })
  }

  /// The token of the `index`th fd the last ``wait()`` found ready.
  func token(at index: Int) -> UInt64 { ready[index].data.u64 }
}

/// A timerfd on CLOCK_MONOTONIC, armed for the engine's next deadline.
final class DeadlineTimer {
  let fd: Int32

  init() throws(SystemError) {
    fd = try valueOrErrno("timerfd_create") {
      timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
    }
  }

  deinit { close(fd) }

  /// Fires once at `microseconds` on CLOCK_MONOTONIC; nil disarms it
  /// (`timerfd_settime`, TFD_TIMER_ABSTIME).
  func arm(at microseconds: Int64?) {
    var spec = itimerspec()
    if let microseconds {
      // A zero it_value disarms: a deadline already past still needs to fire.
      let due = Swift.max(microseconds, 1)
      spec.it_value = timespec(tv_sec: Int(due / 1_000_000), tv_nsec: Int(due % 1_000_000) * 1000)
    }
    _ = timerfd_settime(fd, Int32(TFD_TIMER_ABSTIME), &spec, nil)
  }

  /// Clears the expiry count after it fired.
  func acknowledge() {
    var expirations: UInt64 = 0
    _ = read(fd, &expirations, MemoryLayout<UInt64>.size)
  }
}

/// Signals delivered through a signalfd instead of handlers.
final class SignalReceiver {
  let fd: Int32

  /// Blocks `signals` for the process and receives them on an fd.
  init(_ signals: [Int32]) throws(SystemError) {
    var mask = sigset_t()
    sigemptyset(&mask)
    for signal in signals { sigaddset(&mask, signal) }
    try valueOrErrno("sigprocmask") { sigprocmask(SIG_BLOCK, &mask, nil) }
    fd = try valueOrErrno("signalfd") { signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) }
  }

  deinit { close(fd) }

  /// The next pending signal, nil when none is pending.
  func next() -> Int32? {
    var info = signalfd_siginfo()
    let count = read(fd, &info, MemoryLayout<signalfd_siginfo>.size)
    return count == MemoryLayout<signalfd_siginfo>.size ? Int32(info.ssi_signo) : nil
  }
}

/// CLOCK_MONOTONIC now, in microseconds: the clock of every device fd.
func monotonicMicroseconds() -> Int64 {
  var now = timespec()
  clock_gettime(CLOCK_MONOTONIC, &now)
  return Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
}
