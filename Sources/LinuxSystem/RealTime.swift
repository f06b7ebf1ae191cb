import CLinuxSystem
import Glibc
import SystemPackage

/// The real-time policy the daemon's loop runs under (sched(7)). A thread
/// of an ordinary policy woken by a key waits until the scheduler prefers
/// it to the thread running, and the thread it wakes in turn may take the
/// CPU from it mid-write; a `SCHED_FIFO` thread runs as soon as it is woken
/// and until it waits again, before every thread of an ordinary policy.
public enum RealTime {
  /// The calling thread's policy and priority: `SCHED_FIFO` or `SCHED_RR`
  /// with theirs, nil under an ordinary policy.
  public static var current: (policy: Int32, priority: Int32)? {
    var priority: Int32 = 0
    let policy = CLinuxSystem_schedulingPolicy(&priority)
    return policy == SCHED_FIFO || policy == SCHED_RR ? (policy, priority) : nil
  }

  /// Puts the calling thread under `SCHED_FIFO` at `priority`; the threads
  /// it makes afterwards start under the ordinary policy.
  public static func enter(priority: Int32) throws(SystemError) {
    let status = CLinuxSystem_runInRealTime(priority)
    guard status == 0 else { throw SystemError("sched_setscheduler(SCHED_FIFO)", errno: Errno(rawValue: status)) }
  }

  /// A real-time thread of this process that runs `microseconds` without
  /// waiting is sent SIGXCPU (which ends the process), and SIGKILL at twice
  /// that (RLIMIT_RTTIME): a loop that never waits again cannot keep a CPU
  /// from the rest of the system, and with the process gone the kernel
  /// releases its virtual keyboard's keys.
  public static func bound(_ microseconds: UInt) throws(SystemError) {
    let status = CLinuxSystem_boundRealTime(microseconds)
    guard status == 0 else { throw SystemError("setrlimit(RLIMIT_RTTIME)", errno: Errno(rawValue: status)) }
  }
}
