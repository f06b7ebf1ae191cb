import CLinuxSystem
import Glibc
import SystemPackage

/// Work run on a thread of its own (`pthread_create`), for what the main
/// thread must not wait on: a start-up step that mostly waits in the
/// kernel, or a long load the event loop hears the end of (``done``);
/// ``wait()`` waits for its value. The work must share nothing with what
/// the main thread does meanwhile.
///
/// The thread is never joined: its value is handed over through a
/// semaphore posted before ``done`` is written, so a loop that heard
/// ``done`` takes the value at once. Joining would wait for the thread to
/// exit, and a thread at the least priority may be kept from its exit for
/// a scheduler's tick by any other (in the VM, a key came late by that).
public final class BackgroundWork<Value>: BackgroundWorkItem {
  /// Let go of on the work's thread once run: what it holds is freed
  /// there, never by whichever thread lets go of the work last.
  private var body: (() -> Value)?
  private var value: Value?
  /// Posted once `value` is set.
  private let finished = UnsafeMutablePointer<sem_t>.allocate(capacity: 1)
  private var taken = false
  /// Readable once the work is done (an eventfd), for an event loop to
  /// watch; nil unless asked for.
  public let done: FileDescriptor?

  /// Starts `body`; where no thread can be made, runs it here and now.
  /// `notifying`: ``done`` becomes readable when it ends. `yielding`: the
  /// thread runs at the least priority, only when nothing else wants the CPU.
  public convenience init(notifying: Bool = false, yielding: Bool = false, _ body: @escaping () -> Value) {
    self.init(body, notifying: notifying, yielding: yielding)
    if !started { run() }
  }

  /// Starts `body` on a thread of its own at the ordinary priority; nil
  /// where no thread can be made, for work that must never run on the
  /// caller's thread (it would not return).
  public static func onItsOwnThread(_ body: @escaping () -> Value) -> BackgroundWork? {
    let work = BackgroundWork(body, notifying: false, yielding: false)
    return work.started ? work : nil
  }

  /// Whether a thread runs the work.
  private var started = false

  private init(_ body: @escaping () -> Value, notifying: Bool, yielding: Bool) {
    self.body = body
    let fd = notifying ? eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) : -1
    done = fd >= 0 ? FileDescriptor(rawValue: fd) : nil
    sem_init(finished, 0, 0)
    super.init()
    self.yielding = yielding
    started = Self.start(self)
  }

  /// Runs `body` on a thread of its own at the least priority that nobody
  /// waits for (detached): the values it lets go of are freed there, never
  /// in the caller's turn (an engine a reload replaced, and the heap given
  /// back after it).
  public static func detached(_ body: @escaping () -> Void) {
    _ = BackgroundWork<Void>(yielding: true, body)
  }

  /// Starts `work` on a thread of its own (detached), which holds it until
  /// it is done; false when no thread can be made.
  private static func start(_ work: BackgroundWorkItem) -> Bool {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(work).toOpaque()
    let status = pthread_create(
      &thread, nil,
      { context in
        let work = Unmanaged<BackgroundWorkItem>.fromOpaque(context!).takeRetainedValue()
        if work.yielding { _ = CLinuxSystem_lowerThreadPriority() }
        work.run()
        return nil
      }, context)
    guard status == 0 else {
      Unmanaged<BackgroundWorkItem>.fromOpaque(context).release()
      return false
    }
    pthread_detach(thread)
    return true
  }

  deinit {
    done?.closeQuietly()
    sem_destroy(finished)
    finished.deallocate()
  }

  public override func run() {
    value = body?()
    body = nil
    sem_post(finished)
    if let done {
      var one: UInt64 = 1
      _ = write(done.rawValue, &one, MemoryLayout<UInt64>.size)
    }
  }

  /// Waits for the work to end and returns what it made: at once when
  /// ``done`` was heard.
  public func wait() -> Value {
    if !taken {
      while sem_wait(finished) != 0 && errno == EINTR {}
      taken = true
    }
    return value!
  }
}

/// What the thread's C entry point calls: ``BackgroundWork`` without its
/// generic parameter, which a C function cannot capture.
public class BackgroundWorkItem {
  /// Whether its thread runs at the least priority (never the caller's).
  var yielding = false
  public func run() {}
}
