import AgentProtocol
import LinuxSystem

#if canImport(Glibc)
  import Glibc
#endif

/// Works out a snippet variable in the user's session (DESIGN 7), as the
/// user who runs this process: the session agent for the daemon, `vkbd
/// simulate` for itself. Nothing waits: each program runs as a child the
/// event loop watches, bounded in time and output, and a failure says why
/// without quoting what the program printed or what it was asked.
public final class SessionWorker {
  /// The longest a program may run, whatever the daemon waits (µs).
  public static let programTimeout: Int64 = 10_000_000
  /// The longest a clipboard tool may run.
  public static let clipboardTimeout: Int64 = 2_000_000
  /// The longest a dialog may stay open.
  public static let dialogTimeout: Int64 = 600_000_000
  /// How long after the paste chord the clipboard gets its content back
  /// (espanso waits 300 ms; a slow application needs longer).
  public static let restoreDelay: Int64 = 500_000
  /// How often, and how many times, the clipboard is read back after it
  /// was set, until it holds the text.
  static let clipboardCheckInterval: Int64 = 20_000
  static let clipboardChecks = 50

  public typealias Answer = Result<VariableValueText, AgentProtocolError>

  private let loop: EventLoop
  /// What the clipboard held before a paste changed it (`.some(nil)`: no
  /// text), until it is put back; nil when no paste changed it.
  private var kept: String??
  /// While a paste is under way, the clipboard's restores wait for its end.
  private var pasting = false
  private var afterPaste: [() -> Void] = []

  public init(loop: EventLoop) { self.loop = loop }

  /// A worker on a loop of its own, for ``performNow(_:)``.
  public convenience init() throws(SystemError) { self.init(loop: try EventLoop()) }

  /// Starts the work `request` asks for. `dialogStarted` hears that a
  /// dialog's program started (it is about to take the keyboard);
  /// `answer` gets the value, or why there is none, once.
  public func perform(
    _ request: VariableRequest, dialogStarted: @escaping () -> Void = {}, answer: @escaping (Answer) -> Void
  ) {
    let environment = Array(request.environment) + [("CONFIG", Programs.espansoDirectory)]
    let done: (Result<VariableValueText, Failure>) -> Void = { result in
      answer(
        result.mapError { AgentProtocolError($0.description) }.flatMap { value in
          value.text.unicodeScalars.count <= AgentProtocol.maximumValue
            ? .success(value)
            : .failure(AgentProtocolError("the value is longer than \(AgentProtocol.maximumValue) characters"))
        })
    }
    func output(_ arguments: [String], strict: Bool = false) {
      run(arguments, environment: environment, timeout: Self.programTimeout, strict: strict) { result in
        done(result.map { VariableValueText(request.trim ? Programs.trimmed($0) : $0) })
      }
    }
    switch request.kind {
    case .shell:
      guard let command = request.arguments.first else { return done(.failure("a shell variable without a command")) }
      guard let arguments = Programs.shellArguments(request.shell, command: command) else {
        return done(.failure(Failure("the shell '\(request.shell ?? "")' does not run on Linux")))
      }
      output(arguments)
    case .script:
      let home = Programs.environmentVariable("HOME", or: "/")
      output(
        request.arguments.map { Programs.expandingPlaceholders($0, home: home, config: Programs.espansoDirectory) },
        strict: true)
    case .clipboard:
      run(Programs.clipboardReader, timeout: Self.clipboardTimeout) { result in
        done(
          result.flatMap { $0.isEmpty ? .failure("the clipboard holds no text") : .success(VariableValueText($0)) })
      }
    case .choice, .form:
      guard let zenity = Programs.dialogProgram else {
        return done(.failure("no dialog program (zenity) is installed"))
      }
      let arguments =
        request.kind == .choice
        ? [zenity, "--list", "--title=vkbd", "--text=Choose", "--column=Choice", "--hide-header"] + request.arguments
        : [zenity, "--forms", "--title=vkbd", "--text=\(request.layout ?? "")", "--separator=\u{1}"]
          + request.arguments.map { "--add-entry=\($0)" }
      let started = run(arguments, environment: environment, timeout: Self.dialogTimeout) { result in
        done(result.flatMap { Self.dialogValue($0, for: request) })
      }
      if started { dialogStarted() }
    case .paste:
      paste(request.arguments.first ?? "", done: done)
    case .restoreClipboard:
      if pasting {
        afterPaste.append { [self] in perform(request, answer: answer) }
        return
      }
      // The application takes its paste first.
      loop.schedule(at: monotonicMicroseconds() + Self.restoreDelay) { [self] in
        switch kept.take() {
        case nil:
          done(.success(VariableValueText("")))  // no paste changed it
        case .some(let text?):
          run(Programs.clipboardWriter, input: text, discardingOutput: true, timeout: Self.clipboardTimeout) {
            done($0.map { _ in VariableValueText("") })
          }
        case .some(nil):
          run(Programs.clipboardClearer, discardingOutput: true, timeout: Self.clipboardTimeout) { _ in
            done(.success(VariableValueText("")))
          }
        }
      }
    }
  }

  /// Runs `request` to its end, turning the worker's loop until it is
  /// answered: for a caller that waits (`vkbd simulate`, tests).
  public func performNow(_ request: VariableRequest) -> Answer {
    var result: Answer?
    perform(request) { result = $0 }
    while result == nil {
      do { try loop.runOnce() } catch { return .failure(AgentProtocolError(error.description)) }
    }
    return result!
  }

  /// What the dialog printed, as the variable's value: the choice's value
  /// for its label, or the form's fields.
  private static func dialogValue(_ text: String, for request: VariableRequest) -> Result<VariableValueText, Failure> {
    if request.kind == .choice {
      let picked = Programs.trimmed(text)
      guard let index = request.arguments.firstIndex(of: picked) else { return .failure("nothing was chosen") }
      return .success(VariableValueText(index < request.values.count ? request.values[index] : picked))
    }
    let answers = (text.hasSuffix("\n") ? text.dropLast() : Substring(text)).split(
      separator: "\u{1}", omittingEmptySubsequences: false)
    var fields: [String: String] = [:]
    for (index, name) in request.arguments.enumerated() where fields[name] == nil {
      fields[name] = index < answers.count ? String(answers[index]) : ""
    }
    return .success(VariableValueText("", fields: fields))
  }

  /// Keeps what the clipboard holds (nothing, when it holds no text), puts
  /// `text` in it, and answers once the clipboard gives `text` back. A
  /// restore asked meanwhile (the daemon stopped waiting and typed the
  /// text) waits for the end.
  private func paste(_ text: String, done: @escaping (Result<VariableValueText, Failure>) -> Void) {
    pasting = true
    let finish = { [self] (result: Result<VariableValueText, Failure>) in
      pasting = false
      done(result)
      let waiting = afterPaste
      afterPaste = []
      for restore in waiting { restore() }
    }
    run(Programs.clipboardReader, timeout: Self.clipboardTimeout) { [self] held in
      if kept == nil { kept = .some(try? held.get()) }  // a paste not yet put back kept the user's already
      run(Programs.clipboardWriter, input: text, discardingOutput: true, timeout: Self.clipboardTimeout) { set in
        if case .failure(let failure) = set { return finish(.failure(failure)) }
        check(Self.clipboardChecks)
      }
    }
    func check(_ left: Int) {
      run(Programs.clipboardReader, timeout: Self.clipboardTimeout) { [self] read in
        if (try? read.get()) == text { return finish(.success(VariableValueText(""))) }
        guard left > 1 else { return finish(.failure("the clipboard did not take the text")) }
        loop.schedule(at: monotonicMicroseconds() + Self.clipboardCheckInterval) { check(left - 1) }
      }
    }
  }

  /// Why a program gave no value.
  struct Failure: Error, CustomStringConvertible, ExpressibleByStringLiteral {
    var description: String
    init(_ description: String) { self.description = description }
    init(stringLiteral value: String) { description = value }
  }

  /// Runs `arguments` (the program found on PATH) with `environment` added
  /// to this process's, and passes on its standard output as text. Fails
  /// when it cannot start, runs past `timeout` (it is stopped), prints more
  /// than a megabyte, exits other than 0, or (with `strict`, as espanso's
  /// `script`) writes to standard error. With `discardingOutput` its output
  /// goes nowhere: a program that leaves a process behind holding it
  /// (wl-copy and xclip serve the clipboard in the background) ends the
  /// run when it exits itself. False when it did not start.
  @discardableResult
  private func run(
    _ arguments: [String], environment: [(String, String)] = [], input: String? = nil,
    discardingOutput: Bool = false, timeout: Int64, strict: Bool = false,
    _ completion: @escaping (Result<String, Failure>) -> Void
  ) -> Bool {
    let program = arguments.first?.split(separator: "/").last.map(String.init) ?? "?"
    var started = true
    ProgramRun.start(
      arguments, environment: environment, input: input.map { Array($0.utf8) }, capturingOutput: !discardingOutput,
      timeoutMicroseconds: timeout, on: loop
    ) { result in
      switch result {
      case .failure(.didNotStart(let error)):
        started = false
        completion(.failure(Failure("\(program) did not start: \(error.errno)")))
      case .failure(.timedOut):
        completion(.failure(Failure("\(program) ran longer than \(timeout / 1000) ms and was stopped")))
      case .failure(.outputTooLong(let limit)):
        completion(.failure(Failure("\(program) printed more than \(limit) bytes and was stopped")))
      case .success(let output):
        completion(Self.text(of: output, program: program, strict: strict))
      }
    }
    return started
  }

  /// The output of a program that ended, or why it failed.
  private static func text(of output: ProgramRun.Output, program: String, strict: Bool) -> Result<String, Failure> {
    switch output.termination {
    case .signaled(let signal): return .failure(Failure("\(program) was killed by signal \(signal)"))
    case .exited(127) where output.standardOutput.isEmpty: return .failure(Failure("\(program): command not found"))
    case .exited(let code) where code != 0: return .failure(Failure("\(program) exited with status \(code)"))
    case .exited: break
    }
    if strict && !output.standardError.allSatisfy({ $0 == 10 || $0 == 32 || $0 == 9 || $0 == 13 }) {
      return .failure(Failure("\(program) wrote to its standard error"))
    }
    return .success(String(decoding: output.standardOutput, as: UTF8.self))
  }
}
