/// What the engine does, as the config file sets it. The defaults are the
/// product's defaults (DESIGN 3).
public struct EngineConfiguration: Equatable, Sendable {
  /// Auto-capitalization (DESIGN 3.2).
  public var autocapitalize = true
  /// Rule 6's option: treat the start of the text model after a reset as the
  /// start of a field, where caps is due.
  public var capitalizeAfterReset = false
  /// The double-space period (DESIGN 3.3).
  public var doubleSpacePeriod = true
  /// The double-space window, key-down to key-down.
  public var doubleSpaceTimeoutMilliseconds: Int64 = 1100
  /// The daemon's own Backspace repeat (DESIGN 3.4).
  public var backspace = BackspaceConfiguration()

  /// The defaults.
  public init() {}

  /// Every typing aid off: pure pass-through.
  public static var allOff: EngineConfiguration {
    var configuration = EngineConfiguration()
    configuration.autocapitalize = false
    configuration.doubleSpacePeriod = false
    configuration.backspace.accelerate = false
    return configuration
  }
}

/// The daemon's Backspace repeat, which accelerates from characters to words.
public struct BackspaceConfiguration: Equatable, Sendable {
  /// False: Backspace passes through untouched and the desktop repeats it.
  public var accelerate = true
  public var repeatDelayMilliseconds: Int64 = 400
  public var repeatIntervalMilliseconds: Int64 = 50
  /// Repeated characters before the repeat deletes whole words.
  public var wordsAfter = 20
  public var wordIntervalMilliseconds: Int64 = 250

  /// The defaults.
  public init() {}
}
