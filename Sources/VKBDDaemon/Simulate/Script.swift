import AgentProtocol
import FoundationEssentials
import KeyboardEngine
import XKBFiles

/// One line of a typing script for `vkbd simulate`.
enum ScriptStep: Equatable {
  /// Type each character as a person would on the active layout.
  case type(String)
  /// Press the keys in order, release them in reverse.
  case tap([UInt16])
  case press(UInt16)
  case release(UInt16)
  /// Let time pass, in milliseconds.
  case wait(Int64)
  /// Press, let the kernel auto-repeat for the milliseconds given, release.
  case hold(UInt16, Int64)
  /// A mouse button press and release.
  case click
  /// The focus moves to a window of `app`, as a session agent reports it.
  case focus(app: String, role: FieldRole?, title: String?)
  /// The text field's content before the cursor is set, and reported to
  /// the engine as a session agent would.
  case field(String)
  /// The desktop switched to these layouts, with this group in effect.
  case desktopLayout(LayoutNames, group: Int)
}

/// A script line that could not be read.
struct ScriptError: Error, Equatable, CustomStringConvertible {
  var line: Int
  var message: String
  var description: String { "script line \(line): \(message)" }
}

/// The typing script language of `vkbd simulate`.
enum Script {
  /// `focus APP [ROLE [TITLE]]`: ROLE a field role or `-`, TITLE the rest
  /// of the line or a JSON string literal.
  private static func focus(
    _ argument: Substring, fail: (String) -> ScriptError
  ) throws(ScriptError) -> ScriptStep {
    func word(_ text: Substring) -> (Substring, rest: Substring) {
      let word = text.prefix { $0 != " " && $0 != "\t" }
      return (word, text.dropFirst(word.count).drop { $0 == " " || $0 == "\t" })
    }
    let (app, afterApp) = word(argument)
    guard !app.isEmpty else { throw fail("focus takes an app id, like focus foot") }
    let (roleName, title) = word(afterApp)
    var role: FieldRole?
    if !roleName.isEmpty && roleName != "-" {
      guard let known = FieldRole(rawValue: String(roleName)) else {
        let names = FieldRole.allCases.map(\.rawValue).joined(separator: ", ")
        throw fail("unknown role '\(roleName)' (\(names), or - for none)")
      }
      role = known
    }
    guard !title.isEmpty else { return .focus(app: String(app), role: role, title: nil) }
    return .focus(app: String(app), role: role, title: try text(title, fail: fail))
  }

  /// A text argument: the rest of the line, or a JSON string literal when
  /// it starts with a double quote.
  private static func text(_ argument: Substring, fail: (String) -> ScriptError) throws(ScriptError) -> String {
    guard argument.first == "\"" else { return String(argument) }
    let literal = String(argument.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    guard literal.count >= 2, literal.last == "\"" else { throw fail("bad string literal: missing closing quote") }
    guard let text = try? JSONDecoder().decode(String.self, from: Data(literal.utf8)) else {
      throw fail("bad string literal: one JSON string (its escapes as in JSON) to the end of the line")
    }
    return text
  }

  /// The longest `wait` or `hold` a script may ask for: one hour.
  static let longestWait: Int64 = 3_600_000

  /// Reads a whole script; blank lines and `#` comments are skipped.
  static func parse(_ source: String) throws(ScriptError) -> [(line: Int, step: ScriptStep)] {
    var steps: [(line: Int, step: ScriptStep)] = []
    for (index, rawLine) in source.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
      var line = Substring(rawLine)
      if line.last == "\r" { line = line.dropLast() }
      if let step = try parseLine(line, number: index + 1) { steps.append((index + 1, step)) }
    }
    return steps
  }

  /// Reads one line; nil for a blank line or a comment.
  static func parseLine(_ line: Substring, number: Int) throws(ScriptError) -> ScriptStep? {
    let trimmed = line.drop(while: { $0 == " " || $0 == "\t" })
    if trimmed.isEmpty || trimmed.first == "#" { return nil }
    let command = trimmed.prefix(while: { $0 != " " && $0 != "\t" })
    var argument = trimmed.dropFirst(command.count)
    if argument.first == " " || argument.first == "\t" { argument = argument.dropFirst() }
    func fail(_ message: String) -> ScriptError { ScriptError(line: number, message: message) }
    func words() -> [Substring] { argument.split(whereSeparator: { $0 == " " || $0 == "\t" }) }
    func key(_ name: Substring) throws(ScriptError) -> UInt16 {
      guard let code = KeyNames.code(of: name) else { throw fail("unknown key name '\(name)' (\(KeyNames.grammar))") }
      return code
    }
    func milliseconds(_ text: Substring) throws(ScriptError) -> Int64 {
      guard let value = Int64(text), value >= 0, value <= longestWait else {
        throw fail("'\(text)' is not a time in milliseconds (0 to \(longestWait))")
      }
      return value
    }
    func oneKey() throws(ScriptError) -> UInt16 {
      let names = words()
      guard names.count == 1 else { throw fail("\(command) takes one key name") }
      return try key(names[0])
    }

    switch command.lowercased() {
    case "type": return .type(try text(argument, fail: fail))
    case "tap":
      let names = words()
      guard names.count == 1 else { throw fail("tap takes one chord, like leftctrl+v") }
      do {
        return .tap(try KeyNames.chord(names[0]))
      } catch {
        throw fail(error.message)
      }
    case "press": return .press(try oneKey())
    case "release": return .release(try oneKey())
    case "wait":
      let values = words()
      guard values.count == 1 else { throw fail("wait takes a time in milliseconds") }
      return .wait(try milliseconds(values[0]))
    case "hold":
      let values = words()
      guard values.count == 2 else { throw fail("hold takes a key name and a time in milliseconds") }
      return .hold(try key(values[0]), try milliseconds(values[1]))
    case "click":
      guard argument.allSatisfy({ $0 == " " || $0 == "\t" }) else { throw fail("click takes nothing") }
      return .click
    case "focus":
      return try focus(argument, fail: fail)
    case "field": return .field(try text(argument, fail: fail))
    case "desktop-layout":
      let values = words()
      guard (1...2).contains(values.count), let names = LayoutNames(parsing: String(values[0])) else {
        throw fail("desktop-layout takes layouts like us,de or de(nodeadkeys), and a group from 0")
      }
      let groups = names.layout.split(separator: ",").count
      guard groups <= AgentProtocol.maximumGroups else {
        throw fail("a desktop layout has at most \(AgentProtocol.maximumGroups) groups")
      }
      guard values.count == 2 else { return .desktopLayout(names, group: 0) }
      guard let group = Int(values[1]), group >= 0, group < groups else {
        throw fail("'\(values[1])' is not a group of \(values[0]) (0 to \(groups - 1))")
      }
      return .desktopLayout(names, group: group)
    default:
      throw fail(
        "unknown command '\(command)' (type, tap, press, release, wait, hold, click, focus, field, desktop-layout)")
    }
  }
}
