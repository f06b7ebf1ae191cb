/// What the engine reads beyond its keys, from its host: the wall clock
/// and how a date is written (date variables), and a seed for each
/// expansion's random choices. The engine reads no clock, time zone,
/// locale or random source of its own; key events bring their own time.
public struct EngineWorld: Sendable {
  /// Seconds since the epoch.
  public let wallClock: @Sendable () -> Int64
  /// A new seed each time it is called.
  public let randomSeed: @Sendable () -> UInt64
  /// A date variable's text: the time `seconds` since the epoch in the
  /// host's time zone, written by `format` (strftime's), with the names of
  /// `locale` (a BCP 47 tag: `de-DE`; nil: the C locale's).
  public let writeDate: DateWriter

  public init(
    wallClock: @escaping @Sendable () -> Int64, randomSeed: @escaping @Sendable () -> UInt64,
    writeDate: @escaping DateWriter
  ) {
    self.wallClock = wallClock
    self.randomSeed = randomSeed
    self.writeDate = writeDate
  }
}

/// See ``EngineWorld/writeDate``.
public typealias DateWriter = @Sendable (_ seconds: Int64, _ format: String, _ locale: String?) -> String

extension EngineWorld {
  /// The inputs of a snippet's variables now.
  func variableInputs() -> VariableInputs {
    VariableInputs(now: wallClock(), seed: randomSeed(), writeDate: writeDate)
  }
}
