#if canImport(Glibc)
  import Glibc
#endif

/// Runs `other` on a thread of its own while `here` runs on the caller's,
/// and returns both values once both are done: load-time work that splits
/// in two halves sharing nothing, on the machine's second core. Where no
/// thread can be made, `other` runs here first. The thread takes the
/// caller's priority and scheduling (never the loop's: loads run off it).
func alongside<First, Second>(_ other: () -> First, _ here: () -> Second) -> (First, Second) {
  withoutActuallyEscaping(other) { other in
    let work = ThreadWork(other)
    var thread = pthread_t()
    let context = Unmanaged.passRetained(work as ThreadBody).toOpaque()
    let started =
      pthread_create(
        &thread, nil,
        { context in
          Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
          return nil
        }, context) == 0
    if !started {
      Unmanaged<ThreadBody>.fromOpaque(context).release()
      work.run()
    }
    let second = here()
    if started { pthread_join(thread, nil) }
    return (work.value!, second)
  }
}

/// What a thread of ``alongside(_:_:)`` runs, its value's type out of sight.
private class ThreadBody {
  func run() {}
}

private final class ThreadWork<Value>: ThreadBody {
  let body: () -> Value
  var value: Value?
  init(_ body: @escaping () -> Value) { self.body = body }
  override func run() { value = body() }
}
