import Glibc
import SystemPackage

/// A system call that failed: the operation, what it was done to (a path,
/// a device's name), and errno.
public struct SystemError: Error, Equatable, CustomStringConvertible, Sendable {
  public var operation: String
  public var subject: String?
  public var errno: Errno

  /// A failure of `operation` with `errno`, by default the calling thread's.
  public init(_ operation: String, _ subject: String? = nil, errno: Errno = Errno(rawValue: Glibc.errno)) {
    self.operation = operation
    self.subject = subject
    self.errno = errno
  }

  public var description: String { "\(operation)\(subject.map { " \($0)" } ?? ""): \(errno)" }
}

/// What a non-blocking call did: its result, or nothing yet (EAGAIN).
public enum NonBlocking<Value> {
  case done(Value)
  case wouldBlock
}

/// The one errno helper: runs a system call that returns -1 and sets errno
/// on failure, again when a signal interrupted it (EINTR); EAGAIN (the
/// call would block) is ``NonBlocking/wouldBlock``. Any other failure is
/// thrown with the operation's name. Inlinable: specialized where it is
/// called (a key's read and write go through it), not run generically.
@inlinable
public func nonBlocking<Result: FixedWidthInteger>(
  _ operation: String, _ subject: String? = nil, _ call: () -> Result
) throws(SystemError) -> NonBlocking<Result> {
  while true {
    let result = call()
    if result >= 0 { return .done(result) }
    switch Errno(rawValue: Glibc.errno) {
    case .interrupted: continue
    case .resourceTemporarilyUnavailable: return .wouldBlock
    case let other: throw SystemError(operation, subject, errno: other)
    }
  }
}

/// ``nonBlocking(_:_:_:)`` for a call that blocks, or must not fail to:
/// would-block is a failure like any other.
@inlinable @discardableResult
public func valueOrErrno<Result: FixedWidthInteger>(
  _ operation: String, _ subject: String? = nil, _ call: () -> Result
) throws(SystemError) -> Result {
  switch try nonBlocking(operation, subject, call) {
  case .done(let result): return result
  case .wouldBlock: throw SystemError(operation, subject, errno: .resourceTemporarilyUnavailable)
  }
}

extension FileDescriptor {
  /// Closes the descriptor, ignoring the result: what an owner's `deinit`
  /// does (Linux releases the descriptor even when close fails).
  public func closeQuietly() { _ = Glibc.close(rawValue) }
}
