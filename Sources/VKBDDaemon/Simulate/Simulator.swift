import AgentProtocol
import KeyboardEngine
import SessionWork

/// Runs the engine exactly as the daemon does, on a virtual clock, fed by a
/// typing script instead of devices.
struct Simulator {
  /// Time from one key-down to the next when a script types.
  static let keyInterval: Int64 = 60
  /// Time a typed key stays down.
  static let keyDownTime: Int64 = 30
  /// The kernel's auto-repeat of a held key: first repeat, then the interval.
  static let kernelRepeatDelay: Int64 = 250
  static let kernelRepeatInterval: Int64 = 33
  /// How long `finish` lets timers run after the script before it gives up.
  static let settleLimit: Int64 = 600_000
  /// When a session variable's value reaches the engine, after it asked:
  /// keys typed meanwhile wait for it, as with a real agent.
  static let sessionLatency: Int64 = 100

  let engine: Engine
  var layout: Layout { engine.layout }
  /// The app rules `focus` applies, over the global settings.
  let rules: AppRules
  let global: EngineConfiguration
  private var context = FocusContext()
  /// The id of the window the last `focus` moved to.
  private var window: Int64 = 0
  /// Every event the engine emitted, with the virtual time it went out.
  private(set) var transcript: [(time: Instant, key: OutputKey)] = []
  /// The script's clock.
  private(set) var clock = Instant.milliseconds(0)
  /// The group the simulated typist has switched the keyboard to.
  private var group = 0
  private var output = KeyOutput()
  /// The application's text field, receiving the virtual keyboard's events
  /// as they go out.
  private(set) var field: TextField
  /// The desktop's layouts, as `desktop-layout` switches them.
  private var desktop = DesktopLayout()
  /// The options of the config's layout, which a desktop layout keeps.
  private let options: String
  /// What the engine asked the session for, not yet worked out.
  private let asked = SessionQuestions()
  /// Works it out, as the user who runs simulate (it keeps what a paste
  /// took from the clipboard until the clipboard gets it back).
  private let worker = try? SessionWorker()
  /// Values worked out, and when they reach the engine.
  private var answers: [(time: Instant, id: UInt32, value: Result<VariableValue, SessionFailure>)] = []

  /// The engine's questions, gathered while it handles an event.
  private final class SessionQuestions {
    var requests: [SessionRequest] = []
  }

  /// What the picker shows, as an agent would draw it (nil: closed).
  private final class PickerScreen {
    var view: PickerView?
  }
  private let screen = PickerScreen()
  /// The picker's view while it is open.
  var picker: PickerView? { screen.view }

  /// `showsPicker` false: as a desktop whose agent cannot draw the picker
  /// (the chord passes through, a shared trigger fires its first match).
  init(engine: Engine, rules: AppRules = AppRules(user: []), showsPicker: Bool = true) {
    self.engine = engine
    self.rules = rules
    global = engine.configuration
    // As in the daemon: no agent has reported yet (DESIGN 9, rule 1).
    context.apply(rules: rules, global: global, to: engine)
    field = TextField(layout: engine.layout)
    options = engine.layout.names.options
    desktop.defaultLocale = engine.layout.names.locale
    engine.onPicker = { [screen] view in
      guard showsPicker else { return false }
      screen.view = view
      return true
    }
    engine.onSessionCall = { [asked] request in
      switch request.call {
      case .paste, .restoreClipboard: return false  // no clipboard here: long texts are typed
      default:
        asked.requests.append(request)
        return true
      }
    }
  }

  /// Runs every step of a script.
  mutating func run(_ steps: [(line: Int, step: ScriptStep)]) throws(ScriptError) {
    for (line, step) in steps { try run(step, line: line) }
  }

  /// Runs one step of a script.
  mutating func run(_ step: ScriptStep, line: Int) throws(ScriptError) {
    switch step {
    case .type(let text):
      for character in text.unicodeScalars {
        for stroke in try strokes(for: character, line: line) { tap(stroke) }
      }
    case .tap(let keys):
      for key in keys { send(key, .down, at: clock) }
      for key in keys.reversed() { send(key, .up, at: clock.adding(milliseconds: Self.keyDownTime)) }
      clock = clock.adding(milliseconds: Self.keyInterval)
    case .press(let key):
      send(key, .down, at: clock)
    case .release(let key):
      send(key, .up, at: clock)
    case .wait(let milliseconds):
      clock = clock.adding(milliseconds: milliseconds)
    case .hold(let key, let milliseconds):
      let start = clock
      send(key, .down, at: start)
      var repeatAt = Self.kernelRepeatDelay
      while repeatAt < milliseconds {
        send(key, .repeat, at: start.adding(milliseconds: repeatAt))
        repeatAt += Self.kernelRepeatInterval
      }
      send(key, .up, at: start.adding(milliseconds: milliseconds))
      clock = start.adding(milliseconds: milliseconds + Self.keyInterval)
    case .click:
      runTimers(before: clock)
      engine.resetText()
      clock = clock.adding(milliseconds: Self.keyInterval)
    case .focus(let app, let role, let title):
      runTimers(before: clock)
      engine.closePicker(at: clock, into: &output)  // another window
      record(at: clock)
      window += 1
      let report = FocusReport(window: window, app: app, title: title, role: role)
      context.update(report, rules: rules, global: global, engine: engine)
    case .field(let text):
      runTimers(before: clock)
      field.repeatHeldKey(until: clock)
      field.set(text)
      // What an agent reports: the last characters before the cursor.
      let (before, isWhole) = AgentProtocol.lastCharacters(Substring(field.textBeforeCursor))
      var report = context.field ?? FieldReport(source: "simulate")
      report.before = before
      report.isFieldStart = isWhole
      context.update(report, rules: rules, global: global, engine: engine)
    case .desktopLayout(let names, let group):
      runTimers(before: clock)
      let report = LayoutReport(
        source: "simulate", rules: names.rules, model: names.model, layout: names.layout, variant: names.variant,
        options: options, group: group)
      do {
        let (layout, group) = try desktop.take(report)
        engine.follow(layout, group: group)
        field.repeatHeldKey(until: clock)
        field.follow(layout, group: group)
        self.group = group
      } catch {
        throw ScriptError(line: line, message: error.description)
      }
    }
  }

  /// Lets the engine's timers run out after the script (a held repeat stops
  /// at release, so this ends), at most ``settleLimit`` past the clock.
  mutating func finish() {
    runTimers(before: clock.adding(milliseconds: Self.settleLimit))
    if let last = transcript.last?.time, last > clock { clock = last }
    field.repeatHeldKey(until: clock)
  }

  /// What the application's text field shows.
  var fieldText: String { field.text }

  /// The strokes a person types for `character`, with the group switches
  /// that reach the stroke's group.
  private mutating func strokes(for character: Unicode.Scalar, line: Int) throws(ScriptError) -> [Stroke] {
    switch character {
    case "\n": return [Stroke(key: KeyCode.enter, group: group)]
    case "\t": return [Stroke(key: KeyCode.tab, group: group)]
    default: break
    }
    guard let typing = layout.typing(of: character, from: group) else {
      let hex = String(character.value, radix: 16, uppercase: true)
      throw ScriptError(
        line: line,
        message:
          "layout \(layout.names) has no key for U+\(hex.count < 4 ? String(repeating: "0", count: 4 - hex.count) + hex : hex)"
      )
    }
    return typing.strokes
  }

  /// Types one stroke, switching group first when it needs another.
  private mutating func tap(_ stroke: Stroke) {
    if stroke.group != group, let chord = layout.nextGroupChord {
      while group != stroke.group {
        run(chordOf: chord)
        group = (group + 1) % layout.groupCount
      }
    }
    run(chordOf: Array(stroke.modifiers) + [stroke.key])
  }

  private mutating func run(chordOf keys: [UInt16]) {
    for key in keys { send(key, .down, at: clock) }
    for key in keys.reversed() { send(key, .up, at: clock.adding(milliseconds: Self.keyDownTime)) }
    clock = clock.adding(milliseconds: Self.keyInterval)
  }

  /// Hands one event to the engine at `time`, after the timers due before it
  /// (an event and a deadline at the same instant: the event comes first).
  private mutating func send(_ code: UInt16, _ value: KeyValue, at time: Instant) {
    runTimers(before: time)
    engine.handle(KeyEvent(code: code, value: value, time: time), into: &output)
    record(at: time)
  }

  private mutating func runTimers(before time: Instant) {
    while true {
      let deadline = engine.nextDeadline
      if let answer = answers.first, answer.time < time, deadline == nil || answer.time <= deadline! {
        answers.removeFirst()
        engine.sessionAnswered(answer.id, value: answer.value, at: answer.time, into: &output)
        record(at: answer.time)
        continue
      }
      guard let deadline, deadline < time else { return }
      engine.advance(to: deadline, into: &output)
      record(at: deadline)
    }
  }

  private mutating func record(at time: Instant) {
    for key in output.events {
      transcript.append((time, key))
      field.receive(key, at: time)
    }
    output.removeAll()
    // What the engine asked of the session: worked out here, as the user
    // who runs simulate, and answered a moment later.
    for request in asked.requests {
      let value =
        worker?.performNow(VariableRequest(request))
        ?? .failure(AgentProtocolError("no event loop for the session's work"))
      answers.append(
        (
          time.adding(milliseconds: Self.sessionLatency), request.id,
          VariableAnswer(id: request.id, result: value).engineResult
        ))
    }
    asked.requests.removeAll()
  }
}
