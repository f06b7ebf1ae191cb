#if canImport(Glibc)
  import Glibc
#endif

/// A mutex (`pthread_mutex_t`) for the few things engines on several
/// threads share: libxkbcommon's reference counts, the layouts in use.
/// Keys never wait on one.
package final class Lock: @unchecked Sendable {
  private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)

  package init() { pthread_mutex_init(mutex, nil) }

  deinit {
    pthread_mutex_destroy(mutex)
    mutex.deallocate()
  }

  package func withLock<Result>(_ body: () throws -> Result) rethrows -> Result {
    pthread_mutex_lock(mutex)
    defer { pthread_mutex_unlock(mutex) }
    return try body()
  }
}
