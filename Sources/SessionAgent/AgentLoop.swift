import AgentProtocol
import Glibc
import LinuxSystem
import SystemPackage

/// Why the agent, or one of its parts, stops; the agent's exit status
/// follows from it (vkbd-agent(1), EXIT STATUS).
enum AgentExit: Error, CustomStringConvertible {
  /// Its work is over, as it should be: the session or its display server
  /// ended, a signal came, another agent serves the session (status 0).
  case ended(String)
  /// What it needs is not there or refused it: a protocol, a bus, a
  /// service, a file of vkbd's (status 1).
  case unavailable(String)
  /// A call into the system failed (status 1).
  case system(SystemError)

  var message: String {
    switch self {
    case .ended(let message), .unavailable(let message): message
    case .system(let error): error.description
    }
  }

  var status: Int32 {
    if case .ended = self { 0 } else { 1 }
  }

  var description: String { message }
}

/// Something the agent's loop watches: a connection to the desktop or the
/// daemon, an inotify fd.
protocol Pollable: AnyObject {
  /// The fd to wait on now; nil: none at the moment.
  var pollFD: FileDescriptor? { get }
  /// Whether it waits for room to write as well.
  var wantsWritable: Bool { get }
  /// Called before each wait (to flush what is to be sent).
  func beforeWait()
  /// The fd is readable, or hung up.
  func readable() throws(AgentExit)
  /// The fd has room to write.
  func writable()
}

extension Pollable {
  var wantsWritable: Bool { false }
  func beforeWait() {}
  func writable() {}
}

/// A ``Pollable`` whose fd changes: it connects again, or gives its
/// connection up. It calls ``onDescriptorChange`` when it did, before it
/// closes the old fd.
protocol Reconnecting: Pollable {
  var onDescriptorChange: () -> Void { get set }
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
  /// Whether its text role may stand for a password in a browser: it
  /// tells every field of an application that gives no purpose as text.
  var freeFormMayBeSecret: Bool { get }
  /// Reads the field again and tells it, changed or not: a better source
  /// tells of a field without its text, which may be the one this source
  /// read before (Chromium refocuses IBus's context without a word to
  /// AT-SPI).
  func reread()
  /// How many times the focus moved from one object to another, where the
  /// source tells objects apart (AT-SPI); nil where it cannot.
  var focusChanges: Int? { get }
  /// Where a report comes after what it answers (AT-SPI's questions go on
  /// while the agent does): how many reads of the field it started, and
  /// the one its latest report answers; nil where a report tells what is.
  var readsStarted: Int { get }
  var readAnswered: Int? { get }
  /// Whether it hears the desktop now: false while the bus it follows is
  /// gone (IBus quit), and its word that no field has the focus says
  /// nothing of the applications' fields.
  var isConnected: Bool { get }
}

extension FieldSource {
  var freeFormMayBeSecret: Bool { false }
  func reread() {}
  var focusChanges: Int? { nil }
  var readsStarted: Int { 0 }
  var readAnswered: Int? { nil }
  var isConnected: Bool { true }
}

/// Where the agent learns the desktop's keyboard layout and its group.
protocol LayoutSource: Pollable {
  /// What `vkbd status` calls it: `sway`, `x11`, `gnome-shell`, `kwin`.
  var name: String { get }
  /// Takes the layout whenever its names or its group change.
  var onLayout: (LayoutReport) -> Void { get set }
}

/// The agent's one loop: the shared ``EventLoop`` with the agent's
/// sources, the daemon's socket, the programs it runs for the daemon, its
/// timers and a signalfd (SIGTERM and SIGINT end it; SIGHUP is ignored).
/// Nothing in it waits but the loop itself.
final class AgentLoop {
  let loop: EventLoop
  private let signals: SignalReceiver
  private var items: [(item: Pollable, fd: FileDescriptor?, token: UInt64?, writable: Bool)] = []
  private var exit: AgentExit?

  init() throws(AgentExit) {
    do {
      loop = try EventLoop()
      signals = try SignalReceiver([SIGTERM, SIGINT, SIGHUP])
      try loop.watch(signals.fd) { [unowned self] _ in
        while let signal = signals.next() {
          if signal != SIGHUP { end(AgentExit.ended("signal \(signal)")) }
        }
      }
    } catch {
      throw AgentExit.system(error)
    }
  }

  /// Watches `item`'s fd from now on.
  func add(_ item: Pollable) {
    guard !items.contains(where: { $0.item === item }) else { return }
    items.append((item, nil, nil, false))
    if let changing = item as? Reconnecting {
      changing.onDescriptorChange = { [unowned self, unowned item] in refresh(item) }
    }
    refresh(item)
  }

  /// Watches the fd `item` has now instead of the one it had: call it when
  /// it changed, before the old one is closed.
  func refresh(_ item: Pollable) {
    guard let index = items.firstIndex(where: { $0.item === item }) else { return }
    let fd = item.pollFD
    guard fd != items[index].fd || (fd != nil && items[index].token == nil) else { return }
    if let old = items[index].fd, let token = items[index].token {
      loop.unwatch(old, token: token)
    }
    items[index].fd = fd
    items[index].writable = item.wantsWritable
    items[index].token = fd.flatMap { fd in
      try? loop.watch(fd, for: item.wantsWritable ? [.readable, .writable] : .readable) {
        [unowned self, unowned item] readiness in
        if readiness.contains(.writable) { item.writable() }
        guard readiness.contains(.readable) || readiness.contains(.hangUp) || readiness.contains(.error) else { return }
        do throws(AgentExit) {
          try item.readable()
        } catch {
          end(error)
        }
      }
    }
  }

  /// Waits for room to write on the fds of the items that want it, and no
  /// longer on the others'.
  private func followWritable() {
    for index in items.indices where items[index].item.wantsWritable != items[index].writable {
      guard let fd = items[index].fd, let token = items[index].token else { continue }
      let wants = items[index].item.wantsWritable
      try? loop.change(fd, token: token, to: wants ? [.readable, .writable] : .readable)
      items[index].writable = wants
    }
  }

  /// Ends the run with `exit` once the current turn is done.
  func end(_ exit: AgentExit) {
    if self.exit == nil { self.exit = exit }
  }

  /// Runs until a source, a signal or ``end(_:)`` ends it.
  func run() throws(AgentExit) {
    while exit == nil { try turn() }
    throw exit!
  }

  /// One turn: each item flushes what it has to send, then the loop waits
  /// (at most `timeoutMilliseconds`; -1: until something happens) and
  /// calls the handlers of what is ready.
  func turn(timeoutMilliseconds: Int32 = -1) throws(AgentExit) {
    for (item, _, _, _) in items { item.beforeWait() }
    followWritable()
    do {
      try loop.runOnce(timeoutMilliseconds: timeoutMilliseconds)
    } catch {
      throw AgentExit.system(error)
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
