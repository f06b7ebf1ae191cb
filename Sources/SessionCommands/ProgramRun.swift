#if canImport(Glibc)
  import Glibc
#endif

/// Runs the programs of espanso's `shell` and `script` variables, as the
/// user who runs this process (the session agent, or `vkbd simulate`),
/// never the daemon. Each run is bounded in time and output, and its
/// failure says why without quoting what the program printed.
public enum ProgramRun {
  /// Why a program gave no value. Never quotes its output or command: they
  /// may hold typed text.
  public struct Failure: Error, Equatable, CustomStringConvertible, Sendable {
    public var description: String
    public init(_ description: String) { self.description = description }
  }

  /// The longest output read, in bytes: a program that prints more fails.
  public static let outputLimit = 1 << 20

  /// The program and arguments that run `command` in `shell` (espanso's
  /// names; bash when none is named).
  public static func shellArguments(_ shell: String?, command: String) throws(Failure) -> [String] {
    switch shell ?? "bash" {
    case "bash", "sh", "zsh": return [shell ?? "bash", "-c", command]
    case "nu": return ["nu", "--commands", command]
    case "pwsh": return ["pwsh", "-Command", command]
    case let other: throw Failure("the shell '\(other)' does not run on Linux")
    }
  }

  /// espanso's placeholders in a script's arguments: `%HOME%` and
  /// `%CONFIG%` (espanso's directory).
  public static func expandingPlaceholders(_ argument: String, home: String, config: String) -> String {
    argument.replacing("%HOME%", with: home).replacing("%CONFIG%", with: config).replacing(
      "%PACKAGES%", with: config + "/match/packages")
  }

  /// Runs `arguments` (the program found on PATH) with `environment` added
  /// to this process's, and returns its standard output. Fails when it
  /// cannot start, runs past `timeoutMilliseconds` (it is killed), prints
  /// more than ``outputLimit``, exits other than 0, or (with
  /// `failOnStandardError`, as espanso's `script`) writes to standard error.
  public static func run(
    _ arguments: [String], environment: [(String, String)] = [], timeoutMilliseconds: Int,
    failOnStandardError: Bool = false, input: String? = nil, discardingOutput: Bool = false
  ) throws(Failure) -> String {
    guard let program = arguments.first else { throw Failure("no program to run") }
    var output: [Int32] = [0, 0]
    var errors: [Int32] = [0, 0]
    guard pipe(&output) == 0 else { throw Failure("pipe: \(String(cString: strerror(errno)))") }
    guard pipe(&errors) == 0 else {
      close(output[0])
      close(output[1])
      throw Failure("pipe: \(String(cString: strerror(errno)))")
    }
    var stdin: [Int32] = [-1, -1]
    if input != nil && pipe(&stdin) != 0 { throw Failure("pipe: \(String(cString: strerror(errno)))") }
    for descriptor in output + errors + stdin where descriptor >= 0 { _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC) }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    if input != nil {
      posix_spawn_file_actions_adddup2(&actions, stdin[0], 0)
    } else {
      posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    }
    if discardingOutput {
      // A program that leaves a process behind holding its output (wl-copy,
      // xclip serve the clipboard in the background) is waited for alone.
      posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
      posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    } else {
      posix_spawn_file_actions_adddup2(&actions, output[1], 1)
      posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
    }
    var attributes = posix_spawnattr_t()
    posix_spawnattr_init(&attributes)
    defer { posix_spawnattr_destroy(&attributes) }
    // Its own process group, so that a timeout kills what it started too;
    // default signal handling and mask, whatever this process blocks.
    var signals = sigset_t()
    sigemptyset(&signals)
    posix_spawnattr_setsigmask(&attributes, &signals)
    sigfillset(&signals)
    posix_spawnattr_setsigdefault(&attributes, &signals)
    posix_spawnattr_setpgroup(&attributes, 0)
    posix_spawnattr_setflags(
      &attributes, Int16(POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
    var names = [String: Int]()
    var entries: [String] = []
    var pointer = environ
    while let entry = pointer.pointee {
      let text = String(cString: entry)
      names[String(text.prefix { $0 != "=" })] = entries.count
      entries.append(text)
      pointer += 1
    }
    for (name, value) in environment {
      if let index = names[name] { entries[index] = "\(name)=\(value)" } else { entries.append("\(name)=\(value)") }
    }
    var pid: pid_t = 0
    let started = withCStrings(arguments) { argv in
      withCStrings(entries) { envp in posix_spawnp(&pid, program, &actions, &attributes, argv, envp) }
    }
    close(output[1])
    close(errors[1])
    defer {
      close(output[0])
      close(errors[0])
    }
    if let input {
      close(stdin[0])
      if started == 0 {
        let previous = signal(SIGPIPE, SIG_IGN)
        var bytes = Array(input.utf8)[...]
        while !bytes.isEmpty {
          let count = bytes.withUnsafeBytes { write(stdin[1], $0.baseAddress, $0.count) }
          if count < 0 && errno == EINTR { continue }
          guard count > 0 else { break }
          bytes = bytes.dropFirst(count)
        }
        signal(SIGPIPE, previous)
      }
      close(stdin[1])
    }
    guard started == 0 else { throw Failure("\(program) did not start: \(String(cString: strerror(started)))") }
    var standardOutput: [UInt8] = []
    var standardError: [UInt8] = []
    var failure: Failure?
    let deadline = monotonicMilliseconds() + timeoutMilliseconds
    var open = discardingOutput ? [] : [output[0], errors[0]]
    var buffer = [UInt8](repeating: 0, count: 65536)
    while !open.isEmpty && failure == nil {
      let left = deadline - monotonicMilliseconds()
      guard left > 0 else {
        failure = Failure("\(program) ran longer than \(timeoutMilliseconds) ms and was stopped")
        break
      }
      var polls = open.map { pollfd(fd: $0, events: Int16(POLLIN), revents: 0) }
      let ready = poll(&polls, nfds_t(polls.count), Int32(min(left, 1000)))
      if ready < 0 && errno != EINTR { break }
      for entry in polls where entry.revents != 0 {
        let count = read(entry.fd, &buffer, buffer.count)
        if count <= 0 {
          open.removeAll { $0 == entry.fd }
          continue
        }
        if entry.fd == output[0] {
          standardOutput += buffer[..<count]
        } else if standardError.count < 4096 {
          standardError += buffer[..<count]
        }
        if standardOutput.count > outputLimit {
          failure = Failure("\(program) printed more than \(outputLimit) bytes and was stopped")
        }
      }
    }
    var status: Int32 = 0
    if discardingOutput && failure == nil {
      while waitpid(pid, &status, WNOHANG) == 0 {
        guard monotonicMilliseconds() < deadline else {
          failure = Failure("\(program) ran longer than \(timeoutMilliseconds) ms and was stopped")
          break
        }
        usleep(5000)
      }
      if failure == nil {
        return try finish(program, status: status, output: [], errors: [], failOnStandardError: false)
      }
    }
    if failure != nil { kill(-pid, SIGKILL) }
    while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
    if let failure { throw failure }
    return try finish(
      program, status: status, output: standardOutput, errors: standardError, failOnStandardError: failOnStandardError)
  }

  /// The output of a program that ended with `status`, or why it failed.
  private static func finish(
    _ program: String, status: Int32, output: [UInt8], errors: [UInt8], failOnStandardError: Bool
  ) throws(Failure) -> String {
    if status & 0x7f != 0 { throw Failure("\(program) was killed by signal \(status & 0x7f)") }
    let code = (status >> 8) & 0xff
    if code == 127 && output.isEmpty { throw Failure("\(program): command not found") }
    if code != 0 { throw Failure("\(program) exited with status \(code)") }
    if failOnStandardError && !errors.allSatisfy({ $0 == 10 || $0 == 32 || $0 == 9 || $0 == 13 }) {
      throw Failure("\(program) wrote to its standard error")
    }
    return String(decoding: output, as: UTF8.self)
  }

  /// `text` without the white space at both ends (espanso's `trim`).
  public static func trimmed(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    return String(scalars[first...last])
  }

  private static func monotonicMilliseconds() -> Int {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return now.tv_sec * 1000 + now.tv_nsec / 1_000_000
  }

  /// `body` with a NULL-terminated array of C strings.
  private static func withCStrings<Result>(
    _ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> Result
  ) -> Result {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
  }
}
