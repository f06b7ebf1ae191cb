import Glibc

/// Work run on a thread of its own (`pthread_create`), for a start-up step
/// that mostly waits in the kernel while the main thread computes;
/// ``wait()`` joins it (`pthread_join`). The work must share nothing with
/// what the main thread does meanwhile.
public final class BackgroundWork<Value>: BackgroundWorkItem {
  private let body: () -> Value
  private var value: Value?
  private var thread = pthread_t()
  private var isRunning = false

  /// Starts `body`; where no thread can be made, runs it here and now.
  public init(_ body: @escaping () -> Value) {
    self.body = body
    super.init()
    let context = Unmanaged.passRetained(self as BackgroundWorkItem).toOpaque()
    isRunning =
      pthread_create(
        &thread, nil,
        { context in
          Unmanaged<BackgroundWorkItem>.fromOpaque(context!).takeRetainedValue().run()
          return nil
        }, context) == 0
    if !isRunning {
      Unmanaged<BackgroundWorkItem>.fromOpaque(context).release()
      run()
    }
  }

  public override func run() { value = body() }

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
  public func run() {}
}
