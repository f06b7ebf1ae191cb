import Glibc
import KeyboardEngine
import LinuxSystem
import Logging
import Synchronization
import SystemPackage

/// The thread that types on the virtual keyboard what may not go out at
/// once (``OutputPacing``): an expansion's bursts after its first, the keys
/// that waited behind it. It runs under the ordinary policy whatever the
/// loop's, so that when the readers of the virtual keyboard cannot run,
/// neither does it, mostly: a woken reader that has not run yet comes
/// before it. A loop under a real-time policy would type on regardless,
/// and a reader held up for two gaps loses keys.
final class Typist: @unchecked Sendable {
  private struct Shared {
    var pacing: OutputPacing
    var stopping = false
  }

  private let shared: Mutex<Shared>
  /// Posted when keys are queued, and to stop.
  private let wake = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
  private let fd: FileDescriptor
  private let frames = KeyFrames()
  private let logger: Logger
  /// Made on the first keys queued, once the daemon has dropped its
  /// privileges: a thread keeps those it was made with.
  private var thread: BackgroundWork<Void>?

  init(fd: FileDescriptor, pacing: OutputPacing, logger: Logger) {
    self.fd = fd
    self.logger = logger
    shared = Mutex(Shared(pacing: pacing))
    sem_init(wake, 0, 0)
  }

  deinit {
    sem_destroy(wake)
    wake.deallocate()
  }

  /// Paces by `configuration` from now on (a reload).
  func adopt(_ configuration: ExpansionConfiguration) { shared.withLock { $0.pacing.adopt(configuration) } }

  /// Whether the caller may write `count` key events itself at `now`
  /// (noted as written): nothing waits for the thread and the pacing
  /// allows it.
  func mayWrite(_ count: Int, at now: Int64) -> Bool { shared.withLock { $0.pacing.takeAtOnce(count, at: now) } }

  /// Hands `keys` to the thread, behind those that wait. Where no thread
  /// can be made, what waits goes out here and now, unpaced, rather than
  /// never.
  func queue(_ keys: [OutputKey]) {
    shared.withLock { $0.pacing.append(keys) }
    if thread == nil { thread = BackgroundWork.onItsOwnThread { [self] in run() } }
    guard thread != nil else {
      logger.error("no thread could be made for the typist: its keys go out unpaced")
      let waiting = shared.withLock { $0.pacing.all(at: monotonicMicroseconds()) }
      do {
        try frames.write(waiting[...], to: fd)
      } catch {
        logger.error("\(error)")
      }
      shared.withLock { $0.pacing.landed() }
      return
    }
    sem_post(wake)
  }

  /// Writes every key that waits at once and ends the thread (exit).
  func finish() {
    guard let thread else { return }
    shared.withLock { $0.stopping = true }
    sem_post(wake)
    thread.wait()
    self.thread = nil
  }

  private func run() {
    while true {
      while sem_wait(wake) != 0 && errno == EINTR {}
      while true {
        let now = monotonicMicroseconds()
        let (keys, deadline, stopping) = shared.withLock { shared in
          shared.stopping
            ? (shared.pacing.all(at: now), nil, true) : (shared.pacing.next(at: now), shared.pacing.deadline, false)
        }
        if !keys.isEmpty {
          do {
            try frames.write(keys[...], to: fd)
          } catch {
            logger.error("\(error)")
          }
          shared.withLock { $0.pacing.landed() }
        }
        if stopping { return }
        guard let deadline else { break }  // nothing waits: until the next keys
        var until = timespec(tv_sec: Int(deadline / 1_000_000), tv_nsec: Int(deadline % 1_000_000) * 1000)
        while clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &until, nil) == EINTR {}
      }
    }
  }
}
