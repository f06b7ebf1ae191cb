import ArgumentParser
import Logging

/// `--log-level`, which the daemon and the session agent both take; they
/// log to standard error, where the journal collects it.
public struct LogOptions: ParsableArguments {
  @Option(
    name: .long,
    help: ArgumentHelp(
      "Log at LEVEL and above: trace, debug, info, notice, warning, error, critical.", valueName: "level"))
  public var logLevel = "info"

  public init() {}

  public func validate() throws {
    guard Logger.Level(rawValue: logLevel) != nil else {
      throw ValidationError("'\(logLevel)' is not a log level (trace, debug, info, notice, warning, error, critical)")
    }
  }

  /// Sends every logger's messages of the level asked for and above to
  /// standard error, a line each (``LineLogHandler``;
  /// `LoggingSystem.bootstrap`, once a process), and returns the program's
  /// logger.
  public func bootstrap(label: String) -> Logger {
    let level = Logger.Level(rawValue: logLevel) ?? .info
    let toJournal = LineLogHandler.standardErrorIsJournal()
    LoggingSystem.bootstrap { label in
      var handler = LineLogHandler(label: label, toJournal: toJournal)
      handler.logLevel = level
      return handler
    }
    return Logger(label: label)
  }
}
