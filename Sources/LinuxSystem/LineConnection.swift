import Glibc
import SystemPackage

/// A connected stream socket that carries one message per line, each way:
/// bounded, and non-blocking where the socket is. A read takes at most
/// ``readSize`` bytes (a peer that floods it gets no more of a loop turn
/// than that), a line longer than ``maximumLine`` ends the connection, and
/// what the socket cannot take at once waits, up to ``maximumPending``
/// bytes, for ``flush()``. The socket closes with the connection.
public final class LineConnection {
  /// Why a connection cannot go on. Never quotes what was sent.
  public enum End: Error, Equatable, CustomStringConvertible {
    /// The peer closed its end.
    case closed
    /// A line passed ``LineConnection/maximumLine`` bytes.
    case lineTooLong(Int)
    /// More than ``LineConnection/maximumPending`` bytes would wait to be
    /// written: the peer does not read.
    case overflow(Int)
    case failed(SystemError)

    public var description: String {
      switch self {
      case .closed: "the connection was closed"
      case .lineTooLong(let limit): "a message longer than \(limit) bytes"
      case .overflow(let limit): "more than \(limit) bytes wait to be sent: the other end does not read"
      case .failed(let error): "\(error)"
      }
    }
  }

  public let fd: FileDescriptor
  public let maximumLine: Int
  public let maximumPending: Int
  public let readSize: Int
  private var received: [UInt8] = []
  /// Where the next line starts in `received`, and how far from there no
  /// newline was found.
  private var lineStart = 0
  private var searched = 0
  private var pending: [UInt8] = []
  private var pendingStart = 0
  private let chunk: UnsafeMutableRawBufferPointer

  /// Takes `fd`, a connected stream socket, which it closes.
  public init(_ fd: FileDescriptor, maximumLine: Int, maximumPending: Int, readSize: Int = 65_536) {
    self.fd = fd
    self.maximumLine = maximumLine
    self.maximumPending = maximumPending
    self.readSize = readSize
    chunk = .allocate(byteCount: readSize, alignment: 1)
  }

  deinit {
    fd.closeQuietly()
    chunk.deallocate()
  }

  /// Whether bytes wait for ``flush()``: the owner then waits for the
  /// socket to be writable.
  public var hasPendingOutput: Bool { pendingStart < pending.count }

  /// How many bytes wait for ``flush()``.
  public var pendingCount: Int { pending.count - pendingStart }

  /// Reads once, at most ``readSize`` bytes; false when nothing was there
  /// (EAGAIN). The lines it completed come from ``nextLine()``.
  @discardableResult
  public func read() throws(End) -> Bool {
    let result: NonBlocking<Int>
    do {
      result = try nonBlocking("read") { Glibc.read(fd.rawValue, chunk.baseAddress, readSize) }
    } catch {
      throw .failed(error)
    }
    guard case .done(let count) = result else { return false }
    guard count > 0 else { throw .closed }
    if lineStart > 0 {  // the lines taken go; a partial one moves to the front
      received.removeFirst(lineStart)
      lineStart = 0
    }
    received.append(contentsOf: UnsafeRawBufferPointer(rebasing: chunk[..<count]))
    return true
  }

  /// The next whole line read, without its newline; nil when none is whole
  /// yet. Each byte is searched for the newline once.
  public func nextLine() throws(End) -> ArraySlice<UInt8>? {
    let from = lineStart + searched
    guard let newline = received[from...].firstIndex(of: UInt8(ascii: "\n")) else {
      searched = received.count - lineStart
      if searched > maximumLine { throw .lineTooLong(maximumLine) }
      return nil
    }
    guard newline - lineStart <= maximumLine else { throw .lineTooLong(maximumLine) }
    let line = received[lineStart..<newline]
    lineStart = newline + 1
    searched = 0
    return line
  }

  /// Queues `bytes` (one or more whole lines) after what waits and writes
  /// what the socket takes now.
  public func send(_ bytes: [UInt8]) throws(End) {
    if !hasPendingOutput {
      pending.removeAll(keepingCapacity: true)
      pendingStart = 0
    }
    guard pending.count - pendingStart + bytes.count <= maximumPending else { throw .overflow(maximumPending) }
    pending += bytes
    try flush()
  }

  /// Writes what waits, as much as the socket takes (MSG_NOSIGNAL: a peer
  /// that went away is an error, not a SIGPIPE).
  public func flush() throws(End) {
    while hasPendingOutput {
      let result: NonBlocking<Int>
      do {
        result = try nonBlocking("send") {
          pending[pendingStart...].withUnsafeBytes {
            Glibc.send(fd.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
          }
        }
      } catch {
        throw .failed(error)
      }
      guard case .done(let count) = result else { return }
      pendingStart += count
    }
  }
}
