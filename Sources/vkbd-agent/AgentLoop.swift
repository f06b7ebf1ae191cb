import AgentProtocol
import CAgent
import Glibc

/// Why the agent stops: the session ended, or it cannot serve it.
struct AgentExit: Error, CustomStringConvertible {
  var message: String
  /// Zero when stopping is normal (the session ended, a signal).
  var status: Int32

  init(_ message: String, status: Int32 = 1) {
    self.message = message
    self.status = status
  }

  var description: String { message }
}

/// Something the agent's loop waits on.
protocol Pollable: AnyObject {
  /// The fd to wait on now; nil: none at the moment.
  var pollFD: Int32? { get }
  /// Called before each wait (to flush what is to be sent).
  func beforeWait()
  /// The fd is readable, or hung up.
  func readable() throws(AgentExit)
}

extension Pollable {
  func beforeWait() {}
}

/// Something that has work at a time of its own.
protocol Timed: AnyObject {
  /// When it has work, on CLOCK_MONOTONIC in microseconds; nil: none.
  var due: Int64? { get }
  /// Does the work that is due at `now`.
  func tick(at now: Int64)
}

/// Where the agent learns the focused window.
protocol FocusSource: Pollable {
  /// What the agent's hello calls it.
  var name: String { get }
  /// Takes the focused window whenever it changes.
  var onFocus: (FocusReport) -> Void { get set }
  /// Reports the window that has the focus now, and from then on every
  /// change; throws when the desktop will not report.
  func start() throws(AgentExit)
}

/// Where the agent learns the focused text field: its role and the text
/// before the cursor (an input method, the accessibility bus).
protocol FieldSource: Pollable {
  /// What `vkbd status` calls it: `input-method`, `at-spi`.
  var name: String { get }
  /// Takes the field whenever it changes: another field, its text before
  /// the cursor, or no text field (role and text nil).
  var onField: (FieldReport) -> Void { get set }
}

/// Where the agent learns the desktop's keyboard layout and its group.
protocol LayoutSource: Pollable {
  /// What `vkbd status` calls it: `sway`, `x11`, `gnome-shell`, `kwin`.
  var name: String { get }
  /// Takes the layout whenever its names or its group change.
  var onLayout: (LayoutReport) -> Void { get set }
}

/// The agent's one loop: `poll` on its sources, the daemon's socket and a
/// signalfd, with a timeout while something waits for its time.
struct AgentLoop {
  private let signals: Int32

  /// Blocks SIGTERM, SIGINT and SIGHUP and takes them on a signalfd.
  init() throws(AgentExit) {
    var mask = sigset_t()
    sigemptyset(&mask)
    for signal in [SIGTERM, SIGINT, SIGHUP] { sigaddset(&mask, signal) }
    sigprocmask(SIG_BLOCK, &mask, nil)
    signals = signalfd(-1, &mask, Int32(SFD_CLOEXEC | SFD_NONBLOCK))
    guard signals >= 0 else { throw AgentExit("signalfd: \(String(cString: strerror(errno)))") }
  }

  /// Waits on `items` until one throws or a signal comes; `timeout()`
  /// gives the longest wait in milliseconds (-1: none), and `tick` runs
  /// after every wait, for what was waiting for its time.
  func run(_ items: [Pollable], timeout: () -> Int32, tick: () -> Void) throws(AgentExit) {
    while true {
      for item in items { item.beforeWait() }
      var fds = [pollfd(fd: signals, events: Int16(POLLIN), revents: 0)]
      var owners: [Pollable] = []
      for item in items {
        guard let fd = item.pollFD else { continue }
        fds.append(pollfd(fd: fd, events: Int16(POLLIN), revents: 0))
        owners.append(item)
      }
      let count = poll(&fds, nfds_t(fds.count), timeout())
      if count < 0 && errno == EINTR { continue }
      guard count >= 0 else { throw AgentExit("poll: \(String(cString: strerror(errno)))") }
      defer { tick() }
      if count == 0 { continue }
      if fds[0].revents != 0 {
        var info = signalfd_siginfo()
        _ = read(signals, &info, MemoryLayout<signalfd_siginfo>.size)
        if info.ssi_signo != UInt32(SIGHUP) { throw AgentExit("signal \(info.ssi_signo)", status: 0) }
      }
      for (index, owner) in owners.enumerated() where fds[index + 1].revents != 0 {
        try owner.readable()
      }
    }
  }
}

/// Stable ids for windows a source names by something else (a pointer, a
/// string): the same window keeps its id, another gets the next one.
struct WindowIDs<Key: Hashable> {
  private var ids: [Key: Int64] = [:]
  private var next: Int64 = 1

  mutating func id(for key: Key) -> Int64 {
    if let id = ids[key] { return id }
    defer { next += 1 }
    ids[key] = next
    return next
  }

  mutating func forget(_ key: Key) { ids[key] = nil }
}
