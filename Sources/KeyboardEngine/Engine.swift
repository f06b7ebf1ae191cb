/// The keyboard engine: physical key events in, virtual keyboard events out.
///
/// The engine is the one place that decides what is emitted. It does no I/O
/// and reads no clock: events carry their time, and the caller calls
/// ``advance(to:into:)`` when ``nextDeadline`` is due. Every event it does not
/// change is emitted on the same call, in order (touch-down emission).
public final class Engine {
  public let layout: Layout
  public var configuration: EngineConfiguration
  /// The text typed since the last reset, as the application has it.
  public private(set) var text = TextModel()

  /// What the application makes of our output: its keymap state.
  let decoder: KeystrokeDecoder
  /// How many devices hold each key down.
  private var physicalHolds: [UInt8]
  /// Which keys are down on the virtual keyboard.
  private var outputDown: [Bool]

  /// Makes an engine with nothing held.
  public init(layout: Layout, configuration: EngineConfiguration = EngineConfiguration()) {
    self.layout = layout
    self.configuration = configuration
    decoder = KeystrokeDecoder(layout: layout)
    physicalHolds = [UInt8](repeating: 0, count: KeyCode.count)
    outputDown = [Bool](repeating: false, count: KeyCode.count)
  }

  /// The earliest time at which ``advance(to:into:)`` has work to do.
  public var nextDeadline: Instant? { nil }

  /// Handles one physical key event, appending what to emit to `output`.
  public func handle(_ event: KeyEvent, into output: inout KeyOutput) {
    let code = event.code
    guard Int(code) < KeyCode.count else { return }
    switch event.value {
    case .down:
      physicalHolds[Int(code)] &+= 1
      emit(code, .down, into: &output)
    case .up:
      guard physicalHolds[Int(code)] > 0 else { return }
      physicalHolds[Int(code)] -= 1
      if physicalHolds[Int(code)] == 0 { emit(code, .up, into: &output) }
    case .repeat:
      // The desktop repeats held keys itself, at its own rate: how many
      // characters it typed is unknown, so the model forgets (DESIGN 1.4).
      if !decoder.isModifier(code) { text.reset() }
    }
  }

  /// Runs the timers due at `now`.
  public func advance(to now: Instant, into output: inout KeyOutput) {}

  /// Forgets the text before the cursor: a click, a device change.
  public func resetText() {
    text.reset()
  }

  /// Releases every key held on the virtual keyboard and forgets the
  /// physical holds (stuck-key recovery, shutdown, panic).
  public func releaseAll(into output: inout KeyOutput) {
    for code in 0..<KeyCode.count {
      physicalHolds[code] = 0
      if outputDown[code] { emit(UInt16(code), .up, into: &output) }
    }
  }

  /// Whether `code` is down on the virtual keyboard.
  public func isHeldOnOutput(_ code: UInt16) -> Bool { outputDown[Int(code)] }

  /// The keys down on the virtual keyboard.
  public var heldOutputKeys: [UInt16] {
    (0..<KeyCode.count).filter { outputDown[$0] }.map(UInt16.init)
  }

  // MARK: - Emitting

  /// The single place events leave the engine: skips presses of keys already
  /// down and releases of keys already up, and keeps the text model in step
  /// with what the application receives.
  func emit(_ code: UInt16, _ value: KeyValue, into output: inout KeyOutput) {
    let down = value != .up
    guard outputDown[Int(code)] != down else { return }
    outputDown[Int(code)] = down
    output.append(OutputKey(code: code, value: value))
    apply(decoder.feed(code: code, value: value))
  }

  /// Updates the text model with one edit the application made (DESIGN 3.1).
  private func apply(_ edit: TextEdit) {
    switch edit {
    case .none, .delete:
      break
    case .insert("\t"), .move, .shortcut, .unknown:
      text.reset()
    case .insert(let character):
      text.append(character)
    case .backspace:
      text.deleteBackward()
    }
  }
}
