import Glibc
import KeyboardEngine

extension EngineWorld {
  /// The system's clock (time(2)) and random source, which the daemon and
  /// `vkbd simulate` give their engines.
  static let system = EngineWorld(wallClock: { Int64(time(nil)) }, randomSeed: { UInt64.random(in: 0...UInt64.max) })
}
