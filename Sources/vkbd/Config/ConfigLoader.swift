import KeyboardEngine
import Yams

/// Reads the config file (YAML) into a ``Configuration``.
enum ConfigLoader {
  /// The daemon's config file.
  static let defaultPath = "/etc/vkbd/config.yaml"

  /// The keys a config file may have at its top level.
  static let topLevelKeys = [
    "autocapitalize", "autocapitalize_after_reset", "double_space_period", "double_space_timeout_ms",
    "backspace", "layout",
  ]
  static let backspaceKeys = [
    "accelerate", "repeat_delay_ms", "repeat_interval_ms", "words_after", "word_interval_ms",
  ]
  static let layoutKeys = ["rules", "model", "layout", "variant", "options"]

  /// Reads and checks the file at `path`.
  static func load(path: String) throws(ConfigErrors) -> Configuration {
    let text: String
    do {
      text = try readFile(path)
    } catch {
      throw ConfigErrors(problems: [ConfigProblem(file: path, line: 1, column: 1, message: error.description)])
    }
    return try parse(text, file: path)
  }

  /// Reads and checks config text; `file` names it in problems.
  static func parse(_ text: String, file: String) throws(ConfigErrors) -> Configuration {
    var reader = YAMLReader(file: file)
    var configuration = Configuration()
    configuration.source = file
    if let root = reader.compose(text) {
      read(root, into: &configuration, reader: &reader)
    }
    guard reader.problems.isEmpty else {
      throw ConfigErrors(problems: reader.problems.sorted { ($0.line, $0.column) < ($1.line, $1.column) })
    }
    return configuration
  }

  private static let milliseconds: ClosedRange<Int64> = 1...60_000

  private static func read(_ root: Node, into configuration: inout Configuration, reader: inout YAMLReader) {
    guard let entries = reader.entries(of: root, named: "config", allowed: topLevelKeys) else { return }
    var engine = configuration.engine
    for (key, value) in entries {
      switch key {
      case "autocapitalize":
        engine.autocapitalize = reader.bool(value, key: key) ?? engine.autocapitalize
      case "autocapitalize_after_reset":
        engine.capitalizeAfterReset = reader.bool(value, key: key) ?? engine.capitalizeAfterReset
      case "double_space_period":
        engine.doubleSpacePeriod = reader.bool(value, key: key) ?? engine.doubleSpacePeriod
      case "double_space_timeout_ms":
        engine.doubleSpaceTimeoutMilliseconds =
          reader.integer(value, key: key, in: milliseconds) ?? engine.doubleSpaceTimeoutMilliseconds
      case "backspace":
        readBackspace(value, into: &engine.backspace, reader: &reader)
      case "layout":
        configuration.layout = readLayout(value, reader: &reader)
      default:
        preconditionFailure("key \(key) is allowed but not read")
      }
    }
    configuration.engine = engine
  }

  private static func readBackspace(
    _ node: Node, into backspace: inout BackspaceConfiguration, reader: inout YAMLReader
  ) {
    guard let entries = reader.entries(of: node, named: "backspace", allowed: backspaceKeys) else { return }
    for (key, value) in entries {
      let name = "backspace.\(key)"
      switch key {
      case "accelerate":
        backspace.accelerate = reader.bool(value, key: name) ?? backspace.accelerate
      case "repeat_delay_ms":
        backspace.repeatDelayMilliseconds =
          reader.integer(value, key: name, in: milliseconds) ?? backspace.repeatDelayMilliseconds
      case "repeat_interval_ms":
        backspace.repeatIntervalMilliseconds =
          reader.integer(value, key: name, in: milliseconds) ?? backspace.repeatIntervalMilliseconds
      case "words_after":
        backspace.wordsAfter = reader.integer(value, key: name, in: 0...10_000).map(Int.init) ?? backspace.wordsAfter
      case "word_interval_ms":
        backspace.wordIntervalMilliseconds =
          reader.integer(value, key: name, in: milliseconds) ?? backspace.wordIntervalMilliseconds
      default:
        preconditionFailure("key \(key) is allowed but not read")
      }
    }
  }

  private static func readLayout(_ node: Node, reader: inout YAMLReader) -> LayoutNames? {
    guard let entries = reader.entries(of: node, named: "layout", allowed: layoutKeys) else { return nil }
    var names = LayoutNames()
    for (key, value) in entries {
      guard let text = reader.string(value, key: "layout.\(key)") else { continue }
      switch key {
      case "rules": names.rules = text
      case "model": names.model = text
      case "layout": names.layout = text
      case "variant": names.variant = text
      case "options": names.options = text
      default: preconditionFailure("key \(key) is allowed but not read")
      }
    }
    do {
      _ = try Layout(names: names)
    } catch {
      reader.report("layout: \(error)", at: node)
      return nil
    }
    return names
  }
}
