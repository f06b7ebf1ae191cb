import AgentProtocol
import ArgumentParser
import Glibc

/// The options every command that talks to the daemon takes.
struct ClientOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp("The daemon's control socket (control_socket in the config).", valueName: "path"))
  var socket = Configuration().controlSocket

  /// Sends `request` and returns the daemon's reply. Exits 69 when the
  /// daemon is not running and 77 when permission is denied, with a message.
  func ask(_ request: ControlRequest) throws -> ControlReply {
    do {
      return try ControlClient.ask(request, socket: socket)
    } catch {
      switch error {
      case .notRunning:
        printError("the daemon is not running (nothing listens on \(socket))")
        throw SysExit.unavailable
      case .socketForbidden:
        printError("permission denied: \(socket) is for root and control_group")
        throw SysExit.noPermission
      case .refused:
        printError("permission denied: the daemon admits root and control_group only")
        throw SysExit.noPermission
      case .failed(let failure):
        printError(failure.description)
        throw SysExit.unavailable
      }
    }
  }
}

/// One request over the control socket, one reply back.
enum ControlClient {
  /// Why the daemon gave no reply to use.
  enum Unanswered: Error {
    /// Nothing listens on the socket.
    case notRunning
    /// The socket's permissions keep this user out.
    case socketForbidden
    /// The daemon refused this user (not root, not in control_group).
    case refused
    case failed(SystemError)
  }

  /// ``exchange(_:socket:)``, with its failures sorted as the commands tell them.
  static func ask(_ request: ControlRequest, socket path: String) throws(Unanswered) -> ControlReply {
    let reply: ControlReply
    do {
      reply = try exchange(request, socket: path)
    } catch {
      switch error.errno {
      case ENOENT, ECONNREFUSED: throw .notRunning
      case EACCES, EPERM: throw .socketForbidden
      default: throw .failed(error)
      }
    }
    if !reply.ok && reply.error == "permission denied" { throw .refused }
    return reply
  }

  /// The longest the client waits for the daemon.
  static let timeoutSeconds = 10

  static func exchange(_ request: ControlRequest, socket path: String) throws(SystemError) -> ControlReply {
    let fd = try valueOrErrno("socket") {
      socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    }
    defer { close(fd) }
    var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    try valueOrErrno("connect", path) { withSocketAddress(path) { connect(fd, $0, $1) } }
    let message = ControlProtocol.encode(request)
    var sent = 0
    while sent < message.count {
      let count = message.withUnsafeBytes { send(fd, $0.baseAddress! + sent, $0.count - sent, Int32(MSG_NOSIGNAL)) }
      if count < 0 && errno == EINTR { continue }
      guard count > 0 else { break }  // the daemon closed early: its reply says why
      sent += count
    }
    var received: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 65_536)
    while !received.contains(UInt8(ascii: "\n")) {
      let count = read(fd, &chunk, chunk.count)
      if count < 0 && errno == EINTR { continue }
      if count < 0 && received.isEmpty { throw SystemError("read", path) }
      if count <= 0 { break }
      received += chunk[..<count]
    }
    let line = received.prefix { $0 != UInt8(ascii: "\n") }
    guard let reply = ControlProtocol.decode(ControlReply.self, from: line) else {
      throw SystemError("read a reply from", path, errno: EPROTO)
    }
    return reply
  }
}
