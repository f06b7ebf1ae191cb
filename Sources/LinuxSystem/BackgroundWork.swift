import CLinuxSystem
import Glibc
import SystemPackage

/// Work run on a thread of its own (`pthread_create`), for what the main
/// thread must not wait on: a start-up step that mostly waits in the
/// kernel, or a long load the event loop hears the end of (``done``);
/// ``wait()`` joins it (`pthread_join`). The work must share nothing with
/// what the main thread does meanwhile.
public final class BackgroundWork<Value>: BackgroundWorkItem {
  private let body: () -> Value
  private var value: Value?
  private var thread = pthread_t()
  private var isRunning = false
  /// Readable once the work is done (an eventfd), for an event loop to
  /// watch; nil unless asked for.
  public let done: FileDescriptor?

  /// Starts `body`; where no thread can be made, runs it here and now.
  /// `notifying`: ``done`` becomes readable when it ends. `yielding`: the
  /// thread runs at the least priority, only when nothing else wants the CPU.
  public init(notifying: Bool = false, yielding: Bool = false, _ body: @escaping () -> Value) {
    self.body = body
    let fd = notifying ? eventfd(0, Int32(EFD_CLOEXEC | EFD_NONBLOCK)) : -1
    done = fd >= 0 ? FileDescriptor(rawValue: fd) : nil
    super.init()
    self.yielding = yielding
    if let thread = Self.start(self) {
      self.thread = thread
      isRunning = true
    } else {
      run()
    }
  }

  /// Runs `body` on a thread of its own at the least priority that nobody
  /// waits for (detached): the values it lets go of are freed there, never
  /// in the caller's turn (an engine a reload replaced, and the heap given
  /// back after it).
  public static func detached(_ body: @escaping () -> Void) {
    let work = BackgroundWork<Void>(yielding: true, detached: body)
    if let thread = Self.start(work) { pthread_detach(thread) } else { work.run() }
  }

  private init(yielding: Bool, detached body: @escaping () -> Value) {
    self.body = body
    done = nil
    super.init()
    self.yielding = yielding
  }

  /// Starts `work` on a thread, which holds it until it is done; nil when
  /// no thread can be made.
  private static func start(_ work: BackgroundWorkItem) -> pthread_t? {
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
      return nil
    }
    return thread
  }

  deinit { done?.closeQuietly() }

  public override func run() {
    value = body()
    if let done {
      var one: UInt64 = 1
      _ = write(done.rawValue, &one, MemoryLayout<UInt64>.size)
    }
  }

  /// Waits for the work to end and returns what it made.
  public func wait() -> Value {
    if isRunning {
      pthread_join(thread, nil)
      isRunning = false
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
