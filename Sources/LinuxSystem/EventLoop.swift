import CLinuxSystem
import Glibc
import SystemPackage

/// An epoll instance: the one place a process of vkbd waits (the daemon
/// and the agent alike). Each watched fd carries a token that says what it
/// is: the caller's own (the daemon's devices, read before anything else),
/// or one the loop hands out with a handler that ``dispatch(at:)`` calls.
/// Level-triggered: an fd left unread is reported again by the next wait.
public final class EventLoop {
  /// What to wait for on an fd.
  public struct Interest: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let readable = Interest(rawValue: EPOLLIN.rawValue)
    public static let writable = Interest(rawValue: EPOLLOUT.rawValue)
  }

  /// What a wait found of an fd: hang-ups and errors come with either.
  public struct Readiness: OptionSet, Sendable {
    public let rawValue: UInt32
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    public static let readable = Readiness(rawValue: EPOLLIN.rawValue)
    public static let writable = Readiness(rawValue: EPOLLOUT.rawValue)
    public static let hangUp = Readiness(rawValue: EPOLLHUP.rawValue)
    public static let error = Readiness(rawValue: EPOLLERR.rawValue)
  }

  /// Tokens from here up are the loop's, handed out with handlers; below
  /// are the caller's.
  public static let handlerTokens: UInt64 = 1 << 56

  private let epoll: FileDescriptor
  /// What the last wait found ready: allocated once, so that reading it
  /// on the key path neither checks uniqueness nor takes a reference.
  private let ready = UnsafeMutableBufferPointer<epoll_event>.allocate(capacity: 64)
  private var handlers: [UInt64: (Readiness) -> Void] = [:]
  private var nextToken = EventLoop.handlerTokens
  /// The timers of ``schedule(at:_:)``, on one timerfd.
  private lazy var timers = Timers(loop: self)

  public init() throws(SystemError) {
    ready.initialize(repeating: epoll_event())
    do {
      epoll = FileDescriptor(rawValue: try valueOrErrno("epoll_create1") { epoll_create1(Int32(EPOLL_CLOEXEC)) })
    } catch {
      ready.deallocate()
      throw error
    }
  }

  deinit {
    epoll.closeQuietly()
    ready.deallocate()
  }

  /// Watches `fd` with the caller's `token` (`epoll_ctl` EPOLL_CTL_ADD).
  public func watch(_ fd: FileDescriptor, token: UInt64, for interest: Interest = .readable) throws(SystemError) {
    precondition(token < Self.handlerTokens, "tokens from EventLoop.handlerTokens up are the loop's")
    try control(EPOLL_CTL_ADD, fd, token: token, interest: interest)
  }

  /// Watches `fd` and calls `handler` with what each wait finds of it;
  /// returns the fd's token, for ``change(_:token:to:)`` and
  /// ``unwatch(_:token:)``.
  @discardableResult
  public func watch(
    _ fd: FileDescriptor, for interest: Interest = .readable, _ handler: @escaping (Readiness) -> Void
  ) throws(SystemError) -> UInt64 {
    let token = nextToken
    try control(EPOLL_CTL_ADD, fd, token: token, interest: interest)
    nextToken += 1
    handlers[token] = handler
    return token
  }

  /// Waits for something else on `fd` (`epoll_ctl` EPOLL_CTL_MOD).
  public func change(_ fd: FileDescriptor, token: UInt64, to interest: Interest) throws(SystemError) {
    try control(EPOLL_CTL_MOD, fd, token: token, interest: interest)
  }

  private func control(_ operation: Int32, _ fd: FileDescriptor, token: UInt64, interest: Interest) throws(SystemError)
  {
    var event = epoll_event()
    event.events = interest.rawValue
    event.data.u64 = token
    try valueOrErrno("epoll_ctl") { epoll_ctl(epoll.rawValue, operation, fd.rawValue, &event) }
  }

  /// Stops watching `fd` (`epoll_ctl` EPOLL_CTL_DEL), and forgets the
  /// handler of `token`: an event of it still in this turn's list finds
  /// none. Call it before closing `fd` (closing alone removes it too, but
  /// not its handler).
  public func unwatch(_ fd: FileDescriptor, token: UInt64? = nil) {
    _ = epoll_ctl(epoll.rawValue, EPOLL_CTL_DEL, fd.rawValue, nil)
    if let token { handlers[token] = nil }
  }

  /// Waits until a watched fd is ready or `timeoutMilliseconds` pass (-1:
  /// no timeout), and returns how many are ready (`epoll_wait`).
  public func wait(timeoutMilliseconds: Int32 = -1) throws(SystemError) -> Int {
    Int(try valueOrErrno("epoll_wait") { epoll_wait(epoll.rawValue, ready.baseAddress, Int32(ready.count), timeoutMilliseconds) })
  }

  /// The token of the `index`th fd the last ``wait(timeoutMilliseconds:)`` found ready.
  public func token(at index: Int) -> UInt64 { ready[index].data.u64 }

  /// What the last wait found of the `index`th ready fd.
  public func readiness(at index: Int) -> Readiness { Readiness(rawValue: ready[index].events) }

  /// Calls the handler of the `index`th ready fd; false when its token is
  /// the caller's (or its handler is gone).
  @discardableResult
  public func dispatch(at index: Int) -> Bool {
    guard let handler = handlers[token(at: index)] else { return false }
    handler(readiness(at: index))
    return true
  }

  /// Waits once and calls the handlers of what is ready.
  public func runOnce(timeoutMilliseconds: Int32 = -1) throws(SystemError) {
    let count = try wait(timeoutMilliseconds: timeoutMilliseconds)
    for index in 0..<count { dispatch(at: index) }
  }

  // MARK: - Timers

  /// Calls `handler` once, at `deadline` (CLOCK_MONOTONIC, microseconds) or
  /// in the first turn after it; returns what cancels it.
  @discardableResult
  public func schedule(at deadline: Int64, _ handler: @escaping () -> Void) -> ScheduledTimer {
    timers.add(deadline, handler)
  }

  /// Cancels a timer that has not fired; one that has is left alone.
  public func cancel(_ timer: ScheduledTimer) { timers.remove(timer) }
}

/// A timer of ``EventLoop/schedule(at:_:)``.
public struct ScheduledTimer: Hashable, Sendable {
  fileprivate let id: UInt64
}

/// The loop's timers: a timerfd armed for the earliest.
private final class Timers {
  private let timer: DeadlineTimer?
  private var pending: [(deadline: Int64, id: UInt64, handler: () -> Void)] = []
  private var nextID: UInt64 = 1
  private var armed: Int64?
  /// The timers being fired, until each runs.
  private var firing: Set<UInt64> = []

  init(loop: EventLoop) {
    timer = try? DeadlineTimer()
    if let timer {
      do {
        try loop.watch(timer.fd) { [unowned self] _ in fire() }
      } catch {
        preconditionFailure("a new timerfd cannot be watched: \(error)")
      }
    }
  }

  func add(_ deadline: Int64, _ handler: @escaping () -> Void) -> ScheduledTimer {
    let id = nextID
    nextID += 1
    let index = pending.firstIndex { $0.deadline > deadline } ?? pending.count
    pending.insert((deadline, id, handler), at: index)
    arm()
    return ScheduledTimer(id: id)
  }

  func remove(_ timer: ScheduledTimer) {
    firing.remove(timer.id)
    pending.removeAll { $0.id == timer.id }
    arm()
  }

  /// Runs the handlers due (those they schedule run in a later turn; one
  /// that a handler before it cancels does not run).
  private func fire() {
    self.timer?.acknowledge()
    armed = nil
    let now = monotonicMicroseconds()
    let due = Array(pending.prefix { $0.deadline <= now })
    pending.removeFirst(due.count)
    firing = Set(due.map(\.id))
    for timer in due where firing.remove(timer.id) != nil { timer.handler() }
    arm()
  }

  private func arm() {
    let deadline = pending.first?.deadline
    guard deadline != armed else { return }
    timer?.arm(at: deadline)
    armed = deadline
  }
}

/// A timerfd on CLOCK_MONOTONIC, armed for one deadline at a time.
public final class DeadlineTimer {
  public let fd: FileDescriptor

  public init() throws(SystemError) {
    fd = FileDescriptor(
      rawValue: try valueOrErrno("timerfd_create") {
        timerfd_create(CLOCK_MONOTONIC, Int32(TFD_CLOEXEC | TFD_NONBLOCK))
      })
  }

  deinit { fd.closeQuietly() }

  /// Fires once at `microseconds` on CLOCK_MONOTONIC; nil disarms it
  /// (`timerfd_settime`, TFD_TIMER_ABSTIME).
  public func arm(at microseconds: Int64?) {
    var spec = itimerspec()
    if let microseconds {
      // A zero it_value disarms: a deadline already past still needs to fire.
      let due = Swift.max(microseconds, 1)
      spec.it_value = timespec(tv_sec: Int(due / 1_000_000), tv_nsec: Int(due % 1_000_000) * 1000)
    }
    _ = timerfd_settime(fd.rawValue, Int32(TFD_TIMER_ABSTIME), &spec, nil)
  }

  /// Clears the expiry count after it fired.
  public func acknowledge() {
    var expirations: UInt64 = 0
    _ = read(fd.rawValue, &expirations, MemoryLayout<UInt64>.size)
  }
}

/// Signals delivered through a signalfd instead of handlers.
public final class SignalReceiver {
  public let fd: FileDescriptor

  /// Blocks `signals` for the process and receives them on an fd.
  public init(_ signals: [Int32]) throws(SystemError) {
    var mask = sigset_t()
    sigemptyset(&mask)
    for signal in signals { sigaddset(&mask, signal) }
    try valueOrErrno("sigprocmask") { sigprocmask(SIG_BLOCK, &mask, nil) }
    fd = FileDescriptor(
      rawValue: try valueOrErrno("signalfd") { signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK)) })
  }

  deinit { fd.closeQuietly() }

  /// The next pending signal, nil when none is pending.
  public func next() -> Int32? {
    var info = signalfd_siginfo()
    let count = read(fd.rawValue, &info, MemoryLayout<signalfd_siginfo>.size)
    return count == MemoryLayout<signalfd_siginfo>.size ? Int32(info.ssi_signo) : nil
  }
}

/// How many handlers of one kind a loop turn runs: the others find their
/// fd ready again in the next turn (the loop is level-triggered), after
/// what came in between.
public final class TurnBudget {
  public let perTurn: Int
  private var left: Int

  public init(perTurn: Int) {
    self.perTurn = perTurn
    left = perTurn
  }

  /// Takes one from this turn's budget; false when none is left.
  public func take() -> Bool {
    guard left > 0 else { return false }
    left -= 1
    return true
  }

  /// A new turn.
  public func renew() { left = perTurn }
}
