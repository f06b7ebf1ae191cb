import CEvdev
import KeyboardEngine

extension Daemon {
  /// Runs a throwaway engine made like `engine` through what typing does
  /// most (words, a capital, a double space, Backspace, Enter, a held
  /// Backspace's repeat) and records a latency on a throwaway histogram.
  /// What the key path builds on first use (the runtime's type metadata
  /// and protocol conformance lookups, the engine's code pages) is then
  /// built at start, and the user's first key costs what the thousandth
  /// does. Nothing is written anywhere.
  static func warmUp(like engine: Engine) {
    let scratch = Engine(
      layout: engine.layout, configuration: engine.configuration, snippets: engine.snippets, world: engine.world)
    var output = KeyOutput(capacity: 256)
    var time: Int64 = 0
    func key(_ code: Int32, _ value: KeyValue) {
      time += 50_000
      let now = Instant(microseconds: time)
      scratch.advance(to: now, into: &output)
      scratch.handleBeforeSettling(KeyEvent(code: UInt16(code), value: value, time: now), into: &output)
      scratch.settle()
      output.removeAll()
    }
    func tap(_ code: Int32) {
      key(code, .down)
      key(code, .up)
    }
    for code in [KEY_H, KEY_I, KEY_SPACE, KEY_SPACE, KEY_DOT, KEY_SPACE] { tap(code) }
    key(KEY_LEFTSHIFT, .down)
    tap(KEY_T)
    key(KEY_LEFTSHIFT, .up)
    for code in [KEY_O, KEY_1, KEY_COMMA, KEY_BACKSPACE, KEY_ENTER] { tap(code) }
    key(KEY_BACKSPACE, .down)
    for _ in 0..<3 { key(KEY_BACKSPACE, .repeat) }
    key(KEY_BACKSPACE, .up)
    scratch.releaseAll(into: &output)
    var statistics = Statistics()
    statistics.record(latency: 15, events: 1)
    _ = statistics.report
  }
}
