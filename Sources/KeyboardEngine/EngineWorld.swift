/// What the engine reads beyond its keys, from its host: the wall clock
/// (date variables) and a seed for each expansion's random choices. The
/// engine reads no clock and no random source of its own; key events bring
/// their own time.
public struct EngineWorld: Sendable {
  /// Seconds since the epoch.
  public let wallClock: @Sendable () -> Int64
  /// A new seed each time it is called.
  public let randomSeed: @Sendable () -> UInt64

  public init(wallClock: @escaping @Sendable () -> Int64, randomSeed: @escaping @Sendable () -> UInt64) {
    self.wallClock = wallClock
    self.randomSeed = randomSeed
  }
}
