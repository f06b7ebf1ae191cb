import Glibc
import SystemPackage

/// A program run on an event loop, never waited for: its output is read as
/// it comes, its end seen on its pidfd, and a deadline stops it (SIGTERM to
/// its process group, SIGKILL ``killGrace`` later for one that ignores
/// it). ``completion`` is called once: with the output once the program
/// ended and its pipes closed, or with the failure as soon as there is one.
/// A run keeps itself alive until its child is reaped.
public final class ProgramRun {
  /// What a program printed and how it ended.
  public struct Output: Equatable, Sendable {
    public var standardOutput: [UInt8]
    /// The first ``ProgramRun/errorLimit`` bytes of its standard error.
    public var standardError: [UInt8]
    public var termination: ChildProcess.Termination
  }

  /// Why a run gave no output. Never quotes the output or the command.
  public enum Failure: Error, Equatable, Sendable {
    case didNotStart(SystemError)
    case timedOut
    case outputTooLong(Int)
  }

  /// The most of standard error kept.
  public static let errorLimit = 4096
  /// How long a program stopped with SIGTERM has before SIGKILL, in
  /// microseconds.
  public static let killGrace: Int64 = 1_000_000

  private let loop: EventLoop
  private let child: ChildProcess
  private let outputLimit: Int
  private var completion: ((Result<Output, Failure>) -> Void)?
  private var output: [UInt8] = []
  private var errors: [UInt8] = []
  private var watches: [FileDescriptor: UInt64] = [:]
  private var timer: ScheduledTimer?

  /// Starts `arguments` (see ``ChildProcess``) on `loop`. A program that
  /// cannot start is reported through `completion` in the same call.
  @discardableResult
  public static func start(
    _ arguments: [String], environment: [(String, String)] = [], input: [UInt8]? = nil,
    capturingOutput: Bool = true, timeoutMicroseconds: Int64, outputLimit: Int = 1 << 20, on loop: EventLoop,
    completion: @escaping (Result<Output, Failure>) -> Void
  ) -> ProgramRun? {
    do {
      let child = try ChildProcess(
        arguments, environment: environment, input: input, capturingOutput: capturingOutput)
      return try ProgramRun(
        child, loop: loop, timeout: timeoutMicroseconds, outputLimit: outputLimit, completion: completion)
    } catch {
      completion(.failure(.didNotStart(error)))
      return nil
    }
  }

  private init(
    _ child: ChildProcess, loop: EventLoop, timeout: Int64, outputLimit: Int,
    completion: @escaping (Result<Output, Failure>) -> Void
  ) throws(SystemError) {
    self.child = child
    self.loop = loop
    self.outputLimit = outputLimit
    self.completion = completion
    // The handlers hold the run until its child is reaped and its pipes closed.
    watches[child.exitFD] = try loop.watch(child.exitFD) { _ in self.childEnded() }
    for fd in [child.outputFD, child.errorFD].compactMap({ $0 }) {
      watches[fd] = try loop.watch(fd) { _ in self.read(fd) }
    }
    timer = loop.schedule(at: monotonicMicroseconds() + timeout) { self.timedOut() }
  }

  /// Runs `arguments` to its end on a loop of its own: for a caller with
  /// no loop (`vkbd simulate`).
  public static func run(
    _ arguments: [String], environment: [(String, String)] = [], input: [UInt8]? = nil,
    capturingOutput: Bool = true, timeoutMicroseconds: Int64, outputLimit: Int = 1 << 20
  ) -> Result<Output, Failure> {
    guard let loop = try? EventLoop() else { return .failure(.didNotStart(SystemError("epoll_create1"))) }
    var result: Result<Output, Failure>?
    start(
      arguments, environment: environment, input: input, capturingOutput: capturingOutput,
      timeoutMicroseconds: timeoutMicroseconds, outputLimit: outputLimit, on: loop
    ) { result = $0 }
    while result == nil {
      do { try loop.runOnce() } catch { return .failure(.didNotStart(error)) }
    }
    return result!
  }

  /// Stops the program and forgets it: `completion` is not called.
  public func cancel() {
    completion = nil
    stop()
  }

  private func read(_ fd: FileDescriptor) {
    var chunk = [UInt8](repeating: 0, count: 65536)
    while true {
      let result = try? nonBlocking("read") {
        chunk.withUnsafeMutableBytes { Glibc.read(fd.rawValue, $0.baseAddress, $0.count) }
      }
      guard case .done(let count)? = result else {
        if result == nil { close(fd) }  // an error: the pipe is done
        break
      }
      guard count > 0 else {
        close(fd)
        break
      }
      if fd == child.outputFD {
        output += chunk[..<count]
        if output.count > outputLimit {
          finish(.failure(.outputTooLong(outputLimit)))
          stop()
          return
        }
      } else if errors.count < Self.errorLimit {
        errors += chunk[..<min(count, Self.errorLimit - errors.count)]
      }
    }
    finishIfDone()
  }

  private func close(_ fd: FileDescriptor) {
    if let token = watches.removeValue(forKey: fd) { loop.unwatch(fd, token: token) }
    child.closeOutput(fd)
  }

  private func childEnded() {
    guard child.reap() != nil else { return }
    if let token = watches.removeValue(forKey: child.exitFD) { loop.unwatch(child.exitFD, token: token) }
    finishIfDone()
    if completion == nil { release() }
  }

  /// Reports the output once the child ended and its pipes closed (a
  /// program it left behind may hold them: the deadline settles that).
  private func finishIfDone() {
    guard let termination = child.termination, child.outputFD == nil, child.errorFD == nil else { return }
    finish(.success(Output(standardOutput: output, standardError: errors, termination: termination)))
    release()
  }

  private func timedOut() {
    timer = nil
    finish(.failure(.timedOut))
    stop()
  }

  private func finish(_ result: Result<Output, Failure>) {
    guard let completion else { return }
    self.completion = nil
    if let timer { loop.cancel(timer) }
    timer = nil
    completion(result)
  }

  /// SIGTERM to the program's group now, SIGKILL after the grace; its
  /// pipes are closed, its end still watched, to reap it.
  private func stop() {
    child.signal(SIGTERM)
    for fd in [child.outputFD, child.errorFD].compactMap({ $0 }) { close(fd) }
    if child.termination == nil {
      loop.schedule(at: monotonicMicroseconds() + Self.killGrace) { [child] in child.signal(SIGKILL) }
    } else {
      release()
    }
  }

  /// Lets go of every watch: the loop no longer holds the run.
  private func release() {
    for (fd, token) in watches { loop.unwatch(fd, token: token) }
    watches = [:]
    if let timer { loop.cancel(timer) }
    timer = nil
  }
}
