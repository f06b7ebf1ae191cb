import AgentProtocol
import ArgumentParser
import Glibc
import LinuxSystem
import SystemPackage

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
      throw failure(error)
    }
  }

  /// The reply's `field`, the answer to `request`. A reply without it (from
  /// a daemon of another version) exits 76 with a message.
  func ask<Answer>(_ request: ControlRequest, _ field: KeyPath<ControlReply, Answer?>) throws -> Answer {
    let reply = try ask(request)
    guard let answer = reply[keyPath: field] else {
      printError(
        reply.error
          ?? "the daemon answered \(request.command.rawValue) without its answer: a daemon of another version?")
      throw SysExit.protocolError
    }
    return answer
  }

  /// Prints why the daemon gave no answer; returns the exit status.
  func failure(_ error: ControlClient.Unanswered) -> ExitCode {
    switch error {
    case .notRunning:
      printError("the daemon is not running (nothing listens on \(socket))")
      return SysExit.unavailable
    case .socketForbidden:
      printError("permission denied: \(socket) is for root and control_group")
      return SysExit.noPermission
    case .refused:
      printError("permission denied: the daemon admits root and control_group only")
      return SysExit.noPermission
    case .failed(let failure):
      printError(failure.description)
      return SysExit.unavailable
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
      throw unanswered(error)
    }
    if !reply.ok && reply.error == "permission denied" { throw .refused }
    return reply
  }

  /// Asks for the daemon's events and hands each to `body` until the
  /// daemon closes the connection.
  static func listen(socket path: String, _ body: (DaemonEvent) -> Void) throws(Unanswered) {
    let fd: FileDescriptor
    do {
      fd = try UnixSocket.connect(to: path)
    } catch {
      throw unanswered(error)
    }
    let connection = LineConnection(
      fd, maximumLine: ControlServer.maximumListenerBacklog, maximumPending: ControlProtocol.maximumRequest)
    try? connection.send(ControlProtocol.encode(ControlRequest(command: .listen)))
    var refusal: ControlReply?
    do throws(LineConnection.End) {
      while refusal == nil {
        while let line = try connection.nextLine() {
          if let event = ControlProtocol.decode(DaemonEvent.self, from: line) {
            body(event)
          } else if let reply = ControlProtocol.decode(ControlReply.self, from: line), !reply.ok {
            refusal = reply
            break
          }
        }
        if refusal == nil { try connection.read() }
      }
    } catch .failed(let error) {
      throw .failed(error)
    } catch {}  // the daemon closed the connection
    if let refusal {
      throw refusal.error == "permission denied"
        ? .refused : .failed(SystemError("listen", refusal.error ?? "refused", errno: .protocolError))
    }
  }

  private static func unanswered(_ error: SystemError) -> Unanswered {
    switch error.errno {
    case .noSuchFileOrDirectory, .connectionRefused: .notRunning
    case .permissionDenied, .notPermitted: .socketForbidden
    default: .failed(error)
    }
  }

  /// The longest the client waits for the daemon: a reload's answer comes
  /// once the config has loaded (seconds for espanso's whole hub).
  static func timeoutSeconds(for command: ControlRequest.Command) -> Int { command == .reload ? 300 : 10 }

  static func exchange(_ request: ControlRequest, socket path: String) throws(SystemError) -> ControlReply {
    let fd = try UnixSocket.connect(to: path)
    var timeout = timeval(tv_sec: timeoutSeconds(for: request.command), tv_usec: 0)
    setsockopt(fd.rawValue, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    setsockopt(fd.rawValue, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
    let connection = LineConnection(
      fd, maximumLine: ControlProtocol.maximumReply, maximumPending: ControlProtocol.maximumRequest)
    // A daemon that closes before it read it all says why in its reply.
    try? connection.send(ControlProtocol.encode(request))
    do throws(LineConnection.End) {
      while true {
        if let line = try connection.nextLine() {
          guard let reply = ControlProtocol.decode(ControlReply.self, from: line) else { break }
          return reply
        }
        // A blocking read comes back empty once SO_RCVTIMEO passed.
        guard try connection.read() else { throw .failed(SystemError("read", path, errno: .timedOut)) }
      }
    } catch .failed(let error) {
      throw error
    } catch {}
    throw SystemError("read a reply from", path, errno: .protocolError)
  }
}
