import Glibc
import KeyboardEngine
import LinuxSystem

extension EngineWorld {
  /// The system's clock (time(2)), random source, time zone and locales,
  /// which the daemon and `vkbd simulate` give their engines.
  static let system = EngineWorld(
    wallClock: { Int64(time(nil)) }, randomSeed: { UInt64.random(in: 0...UInt64.max) }, writeDate: LocalDates.write)
}
