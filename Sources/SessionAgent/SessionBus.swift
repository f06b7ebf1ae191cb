import CSystemd
import Glibc
import LinuxSystem
import SystemPackage

/// The agent's own connection to the session bus, for what it sends the
/// desktop: notifications and the status icon. It never waits: calls are
/// asynchronous and sd-bus's work is done on the loop, including its
/// timeouts (a loop timer at sd-bus's next deadline).
final class SessionBus: Pollable {
  let bus: OpaquePointer
  private let deadline: BusDeadline

  /// Connects to the session bus (`sd_bus_open_user`); throws when there
  /// is none.
  init(loop: EventLoop) throws(AgentExit) {
    bus = try DBus.openSessionBus()
    deadline = BusDeadline(loop: loop)
  }

  deinit {
    sd_bus_flush_close_unref(bus)
  }

  var pollFD: FileDescriptor? { FileDescriptor(rawValue: sd_bus_get_fd(bus)) }

  /// Handles what sd-bus already read, sends what is pending, and arms a
  /// timer for sd-bus's next deadline.
  func beforeWait() {
    while sd_bus_process(bus, nil) > 0 {}
    _ = sd_bus_flush(bus)
    deadline.arm(for: bus) { [unowned self] in while sd_bus_process(bus, nil) > 0 {} }
  }

  func readable() throws(AgentExit) { try DBus.processSessionBus(bus) }
}

/// A loop timer at a bus's next deadline: sd-bus times an asynchronous
/// call out only when it is processed after the call's time is up.
final class BusDeadline {
  private let loop: EventLoop
  private var timer: ScheduledTimer?
  private var armedAt: UInt64 = .max

  init(loop: EventLoop) { self.loop = loop }

  deinit {
    if let timer { loop.cancel(timer) }
  }

  /// Sets the timer to `bus`'s next deadline (sd_bus_get_timeout), where
  /// `process` is to run; none when it has none.
  func arm(for bus: OpaquePointer, process: @escaping () -> Void) {
    var deadline: UInt64 = .max
    guard sd_bus_get_timeout(bus, &deadline) >= 0, deadline != armedAt else { return }
    if let timer { loop.cancel(timer) }
    timer = nil
    armedAt = deadline
    guard deadline != .max else { return }
    timer = loop.schedule(at: Int64(clamping: deadline)) { [unowned self] in
      timer = nil
      armedAt = .max
      process()
    }
  }
}
