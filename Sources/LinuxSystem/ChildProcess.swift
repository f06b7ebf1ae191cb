import CLinuxSystem
import Glibc
import SystemPackage

/// A program started as a child of this process (`posix_spawnp`, found on
/// PATH), in a process group of its own so that a signal reaches what it
/// started too, with default signal handling whatever this process blocks.
/// Its standard input is `input` (or /dev/null); its output and errors come
/// on non-blocking pipes, or go to /dev/null; its end makes ``exitFD`` (a
/// pidfd) readable. A child still running when its owner lets go of it is
/// killed and reaped: none is left behind.
public final class ChildProcess {
  /// How a child ended.
  public enum Termination: Equatable, Sendable {
    case exited(Int32)
    case signaled(Int32)
  }

  public let pid: pid_t
  /// Readable once the child has ended (`pidfd_open`).
  public let exitFD: FileDescriptor
  /// The read ends of its standard output and error, when captured.
  public private(set) var outputFD: FileDescriptor?
  public private(set) var errorFD: FileDescriptor?
  public private(set) var termination: Termination?

  /// Starts `arguments` with `environment` over this process's. Throws the
  /// reason it could not start (`posix_spawnp`'s error: ENOENT when the
  /// program is not found).
  public init(
    _ arguments: [String], environment: [(String, String)] = [], input: [UInt8]? = nil, capturingOutput: Bool = true
  ) throws(SystemError) {
    guard let program = arguments.first else { throw SystemError("posix_spawnp", errno: .invalidArgument) }
    var opened: [FileDescriptor] = []
    func closeAll() { for fd in opened { fd.closeQuietly() } }
    var output: [Int32] = [-1, -1]
    var errors: [Int32] = [-1, -1]
    var stdin: Int32 = -1
    do throws(SystemError) {
      if capturingOutput {
        try valueOrErrno("pipe2") { CLinuxSystem_pipe(&output) }
        opened += output.map(FileDescriptor.init(rawValue:))
        try valueOrErrno("pipe2") { CLinuxSystem_pipe(&errors) }
        opened += errors.map(FileDescriptor.init(rawValue:))
      }
      if let input {
        stdin = try valueOrErrno("memfd_create") { CLinuxSystem_memfdCreate("vkbd-input") }
        opened.append(FileDescriptor(rawValue: stdin))
        var written = 0
        while written < input.count {
          written += try valueOrErrno("write") {
            input[written...].withUnsafeBytes { Glibc.write(stdin, $0.baseAddress, $0.count) }
          }
        }
        _ = lseek(stdin, 0, SEEK_SET)
      }
    } catch {
      closeAll()
      throw error
    }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if input != nil {
      posix_spawn_file_actions_adddup2(&actions, stdin, 0)
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    if capturingOutput {
      posix_spawn_file_actions_adddup2(&actions, output[1], 1)
      posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    } else {
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    var signals = sigset_t()
    sigemptyset(&signals)
    posix_spawnattr_setsigmask(&attributes, &signals)
    sigfillset(&signals)
    posix_spawnattr_setsigdefault(&attributes, &signals)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var child: pid_t = 0
    let started = withCStrings(arguments) { argv in
      withCStrings(Self.environment(adding: environment)) { envp in
        posix_spawnp(&child, program, &actions, &attributes, argv, envp)
      }
    }
    guard started == 0 else {
      closeAll()
      throw SystemError("posix_spawnp", program, errno: Errno(rawValue: started))
    }
    let pidfd = CLinuxSystem_pidfdOpen(child)
    guard pidfd >= 0 else {
      let error = SystemError("pidfd_open", program)
      kill(-child, SIGKILL)
      _ = waitForChild(child)
      closeAll()
      throw error
    }
    pid = child
    exitFD = FileDescriptor(rawValue: pidfd)
    if capturingOutput {
      close(output[1])
      close(errors[1])
      outputFD = FileDescriptor(rawValue: output[0])
      errorFD = FileDescriptor(rawValue: errors[0])
    }
    if input != nil { close(stdin) }
  }

  deinit {
    if termination == nil {
      kill(-pid, SIGKILL)
      _ = waitForChild(pid)
    }
    exitFD.closeQuietly()
    outputFD?.closeQuietly()
    errorFD?.closeQuietly()
  }

  /// Sends `signal` to the child's process group (`kill`).
  public func signal(_ signal: Int32) {
    if termination == nil { kill(-pid, signal) }
  }

  /// How the child ended, once it has (`waitpid` WNOHANG, which reaps it);
  /// nil while it runs.
  @discardableResult
  public func reap() -> Termination? {
    if let termination { return termination }
    guard let (reaped, status) = waitForChild(pid, options: WNOHANG), reaped == pid else { return nil }
    termination = status & 0x7f == 0 ? .exited((status >> 8) & 0xff) : .signaled(status & 0x7f)
    return termination
  }

  /// Closes the read end of a pipe that reached its end.
  public func closeOutput(_ fd: FileDescriptor) {
    if fd == outputFD { outputFD = nil } else if fd == errorFD { errorFD = nil } else { return }
    fd.closeQuietly()
  }

  /// This process's environment (`environ`) with `added` set over it.
  private static func environment(adding added: [(String, String)]) -> [String] {
    var names = [String: Int]()
    var entries: [String] = []
    var pointer = environ
    while let entry = pointer.pointee {
      let text = String(cString: entry)
      names[String(text.prefix { $0 != "=" })] = entries.count
      entries.append(text)
      pointer += 1
    }
    for (name, value) in added {
      if let index = names[name] { entries[index] = "\(name)=\(value)" } else { entries.append("\(name)=\(value)") }
    }
    return entries
  }
}

/// `body` with a NULL-terminated array of C strings.
func withCStrings<Result>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result) -> Result {
  var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
  pointers.append(nil)
  defer { for pointer in pointers { free(pointer) } }
  return body(pointers)
}

/// `waitpid` for `pid`, again when a signal interrupts it: the process
/// reaped (0 with `WNOHANG` while it runs) and its status; nil when there
/// is no such child.
public func waitForChild(_ pid: pid_t, options: Int32 = 0) -> (pid: pid_t, status: Int32)? {
  var status: Int32 = 0
  guard case .done(let reaped)? = try? nonBlocking("waitpid", nil, { waitpid(pid, &status, options) }) else {
    return nil
  }
  return (reaped, status)
}
