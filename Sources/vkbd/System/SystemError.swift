import Glibc

/// A system call that failed: the operation, what it was done to, and errno.
struct SystemError: Error, CustomStringConvertible {
  var operation: String
  /// A path or device name, when there is one.
  var subject: String?
  var errno: Int32

  init(_ operation: String, _ subject: String? = nil, errno: Int32 = Glibc.errno) {
    self.operation = operation
    self.subject = subject
    self.errno = errno
  }

  var description: String {
    "\(operation)\(subject.map { " \($0)" } ?? ""): \(String(cString: strerror(errno)))"
  }
}

/// Runs a system call that returns -1 and sets errno on failure, again when a
/// signal interrupted it (EINTR). Throws the failure with the operation's name.
@discardableResult
func valueOrErrno<Result: BinaryInteger>(
  _ operation: String, _ subject: String? = nil, _ call: () -> Result
) throws(SystemError) -> Result {
  while true {
    let result = call()
    if result >= 0 { return result }
    if errno != EINTR { throw SystemError(operation, subject) }
  }
}
