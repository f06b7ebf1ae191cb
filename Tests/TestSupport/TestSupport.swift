import Glibc
import KeyboardEngine
import LinuxSystem

/// `count` snippets with random `;`-led triggers of 3 to 8 lowercase letters,
/// which prose walks into but never completes.
public func randomSnippets(_ count: Int, seed: UInt64 = 1) -> SnippetMatcher {
  var generator = SplitMix64(seed: seed)
  let letters = Array("abcdefghijklmnopqrstuvwxyz")
  return SnippetMatcher(
    (0..<count).map { index in
      let length = Int.random(in: 3...8, using: &generator)
      let trigger = String((0..<length).map { _ in letters.randomElement(using: &generator)! })
      return Snippet(trigger: ";" + trigger, replace: "snippet \(index)")
    })
}

/// The edits `typing`'s strokes make on `decoder`, started afresh in `group`
/// with Num Lock on or off, switching group as a typist would.
public func replayedEdits(
  _ typing: Typing, on layout: Layout, decoder: KeystrokeDecoder, group: Int = 0, numLock: Bool = false
) -> [TextEdit] {
  decoder.reset(group: group, numLock: numLock)
  var edits: [TextEdit] = []
  for stroke in typing.strokes {
    while decoder.group != stroke.group, let chord = layout.nextGroupChord {
      for key in chord { _ = decoder.feed(code: key, value: .down) }
      for key in chord.reversed() { _ = decoder.feed(code: key, value: .up) }
    }
    for modifier in stroke.modifiers { _ = decoder.feed(code: modifier, value: .down) }
    edits.append(decoder.feed(code: stroke.key, value: .down))
    _ = decoder.feed(code: stroke.key, value: .up)
    for modifier in stroke.modifiers.reversed() { _ = decoder.feed(code: modifier, value: .up) }
  }
  return edits.filter { $0 != .none }
}

extension EngineWorld {
  /// The tests' engines: the system's clock and dates, and one seed always.
  public static let testing = EngineWorld(
    wallClock: { Int64(time(nil)) }, randomSeed: { 0x5EED }, writeDate: LocalDates.write)
}
