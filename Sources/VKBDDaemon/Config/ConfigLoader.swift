import AgentProtocol
import Glibc
import KeyboardEngine
import LinuxSystem
import XKBFiles

/// Reads the config file (YAML) into a ``Configuration``.
enum ConfigLoader {
  /// The daemon's config file.
  static let defaultPath = "/etc/vkbd/config.yaml"

  /// The keys a config file may have at its top level.
  static let topLevelKeys = [
    "autocapitalize", "autocapitalize_after_reset", "autocapitalize_field_start", "double_space_period",
    "double_space_timeout_ms",
    "backspace", "layout", "unicode_input", "newline", "undo_backspace", "expansion", "snippets", "matches",
    "devices", "toggle_key", "control_socket", "control_group", "apps", "session_users", "agent_socket",
    "clipboard_threshold", "picker", "autocorrect", "smart_punctuation", "autocorrect_languages",
    "notifications",
  ]
  static let backspaceKeys = [
    "accelerate", "repeat_delay_ms", "repeat_interval_ms", "words_after", "word_interval_ms",
  ]
  static let layoutKeys = ["rules", "model", "layout", "variant", "options", "locale"]
  static let expansionKeys = ["burst_keys", "gap_ms", "variable_timeout_ms"]
  static let deviceKeys = ["include", "exclude"]
  static let pickerKeys = ["shortcut"]
  static let deviceEntryKeys = ["device", "grab"]

  /// The embedded default (see ``Configuration/embeddedDefaultText``).
  static func embeddedDefault() -> Configuration {
    do {
      var configuration = try parse(Configuration.embeddedDefaultText, file: Configuration.embeddedName)
      configuration.source = Configuration.embeddedName
      return configuration
    } catch {
      preconditionFailure("the embedded default config is invalid: \(error)")
    }
  }

  /// Reads and checks the file at `path`.
  static func load(path: String) throws(ConfigErrors) -> Configuration {
    let text: String
    do {
      text = try Files.readText(path)
    } catch {
      throw ConfigErrors(problems: [ConfigProblem(file: path, line: 1, column: 1, message: error.description)])
    }
    return try parse(text, file: path)
  }

  /// What a command reads without `--config`.
  enum Fallback {
    /// The embedded default (`simulate`).
    case embeddedDefault
    /// The daemon's config file, or the embedded default when it does not
    /// exist (`run`, `check`).
    case daemonFile
  }

  /// The config from `path`, else the fallback.
  static func load(path: String?, fallback: Fallback) throws(ConfigErrors) -> Configuration {
    if let path { return try load(path: path) }
    if fallback == .daemonFile && access(defaultPath, F_OK) == 0 { return try load(path: defaultPath) }
    return embeddedDefault()
  }

  /// The config for a command: from `path`, else the fallback, joined
  /// with the espanso files of the user who runs `command` as `user`
  /// chooses. Prints the match files' problems and the warnings; prints
  /// every problem of the config file itself and exits 78 (EX_CONFIG) when
  /// there are any.
  static func loadReporting(
    path: String?, fallback: Fallback, joining user: UserFilesOptions? = nil, command: String = ""
  ) throws -> Configuration {
    var configuration: Configuration
    do {
      configuration = try load(path: path, fallback: fallback)
    } catch {
      for problem in error.problems { printError(problem.description) }
      throw SysExit.config
    }
    if let user { configuration = user.join(configuration, command: command) }
    for problem in configuration.snippetProblems { printError(problem.description) }
    for warning in configuration.warnings { printError("warning: \(warning)") }
    return configuration
  }

  /// Reads and checks config text; `file` names it in problems.
  static func parse(_ text: String, file: String) throws(ConfigErrors) -> Configuration {
    var reader = YAMLReader(file: file)
    var configuration = Configuration()
    configuration.source = file
    var snippets = SnippetLoader()
    if let root = reader.compose(text), !Self.isEmptyDocument(root) {
      read(root, into: &configuration, reader: &reader, snippets: &snippets)
    }
    snippets.finish()
    configuration.snippets = snippets.snippets
    configuration.snippetFiles = snippets.files
    configuration.chooseDictionaries()
    configuration.warnings = Self.sorted(reader.warnings) + Self.sorted(snippets.warnings)
    // The config file is strict; a match file's errors leave out that match
    // (or that file) and the rest loads, as in espanso.
    let inline = snippets.problems.filter { $0.file == file }
    configuration.snippetProblems = Self.sorted(snippets.problems.filter { $0.file != file })
    let problems = Self.sorted(reader.problems) + Self.sorted(inline)
    guard problems.isEmpty else { throw ConfigErrors(problems: problems) }
    return configuration
  }

  /// Problems by file (in order of first appearance), then line and column.
  static func sorted(_ problems: [ConfigProblem]) -> [ConfigProblem] {
    var order: [String: Int] = [:]
    for problem in problems where order[problem.file] == nil { order[problem.file] = order.count }
    return problems.sorted { (order[$0.file]!, $0.line, $0.column) < (order[$1.file]!, $1.line, $1.column) }
  }

  private static func isEmptyDocument(_ root: YAMLNode) -> Bool {
    if case .scalar(let text, plain: true) = root.content { return text.isEmpty || text == "null" }
    return false
  }

  private static let milliseconds: ClosedRange<Int64> = 1...60_000

  private static func read(
    _ root: YAMLNode, into configuration: inout Configuration, reader: inout YAMLReader, snippets: inout SnippetLoader
  ) {
    guard let entries = reader.entries(of: root, named: "config", allowed: topLevelKeys) else { return }
    var engine = configuration.engine
    for (key, value) in entries {
      switch key {
      case "autocapitalize":
        engine.autocapitalize = reader.bool(value, key: key) ?? engine.autocapitalize
      case "autocapitalize_after_reset":
        engine.capitalizeAfterReset = reader.bool(value, key: key) ?? engine.capitalizeAfterReset
      case "autocapitalize_field_start":
        engine.capitalizeFieldStart = reader.bool(value, key: key) ?? engine.capitalizeFieldStart
      case "double_space_period":
        engine.doubleSpacePeriod = reader.bool(value, key: key) ?? engine.doubleSpacePeriod
      case "autocorrect":
        engine.autocorrect = reader.bool(value, key: key) ?? engine.autocorrect
      case "smart_punctuation":
        engine.smartPunctuation = reader.bool(value, key: key) ?? engine.smartPunctuation
      case "autocorrect_languages":
        configuration.autocorrectLanguages = readLanguages(value, reader: &reader)
      case "double_space_timeout_ms":
        engine.doubleSpaceTimeoutMilliseconds =
          reader.integer(value, key: key, in: milliseconds) ?? engine.doubleSpaceTimeoutMilliseconds
      case "backspace":
        readBackspace(value, into: &engine.backspace, reader: &reader)
      case "layout":
        configuration.compiledLayout = readLayout(value, reader: &reader)
      case "unicode_input":
        engine.expansion.unicodeInput = reader.choice(value, key: key) ?? engine.expansion.unicodeInput
      case "newline":
        engine.expansion.newline = reader.choice(value, key: key) ?? engine.expansion.newline
      case "clipboard_threshold":
        engine.expansion.clipboardThreshold =
          reader.integer(value, key: key, in: 0...65_536).map(Int.init) ?? engine.expansion.clipboardThreshold
      case "undo_backspace":
        engine.expansion.undoBackspace = reader.bool(value, key: key) ?? engine.expansion.undoBackspace
      case "expansion":
        readExpansion(value, into: &engine.expansion, reader: &reader)
      case "snippets":
        let directory = reader.file == Configuration.embeddedName ? "." : MatchPaths.directory(of: reader.file)
        var entries: [(pattern: String, node: YAMLNode)] = []
        for item in reader.list(value, key: key) ?? [] {
          if let pattern = reader.string(item, key: key) { entries.append((pattern, item)) }
        }
        snippets.load(entries: entries, relativeTo: directory, reader: &reader)
      case "matches":
        snippets.readMatches(value, reader: &reader)
      case "devices":
        configuration.devices = readDevices(value, reader: &reader)
      case "apps":
        configuration.apps = AppRules(user: readApps(value, reader: &reader))
      case "session_users":
        configuration.sessionUsers = readSessionUsers(value, reader: &reader)
      case "picker":
        guard let entries = reader.entries(of: value, named: "picker", allowed: pickerKeys) else { break }
        for (_, shortcut) in entries {
          guard let text = reader.string(shortcut, key: "picker.shortcut") else { continue }
          do {
            engine.pickerShortcut = try KeyNames.shortcut(text)
            configuration.pickerShortcutWritten = true
          } catch {
            reader.report("picker.shortcut: \(error.message)", at: shortcut)
          }
        }
      case "toggle_key":
        guard let text = reader.string(value, key: key) else { break }
        do {
          engine.toggleChord = text.isEmpty ? [] : try KeyNames.chord(text)
        } catch {
          reader.report("toggle_key: \(error.message)", at: value)
        }
      case "control_socket", "agent_socket":
        guard let path = reader.string(value, key: key) else { break }
        if path.hasPrefix("/") && path.utf8.count < 108 {  // sun_path holds 108 bytes
          if key == "control_socket" { configuration.controlSocket = path } else { configuration.agentSocket = path }
        } else {
          reader.report("\(key) must be an absolute path shorter than 108 bytes", at: value)
        }
      case "notifications":
        if let on = reader.bool(value, key: key) { configuration.notifications = on }
      case "control_group":
        guard let name = reader.string(value, key: key) else { break }
        if name.isEmpty {
          configuration.controlGroup = nil
        } else if getgrnam(name) != nil {
          configuration.controlGroup = name
        } else {
          reader.report("control_group: no group named '\(name)'", at: value)
        }
      default:
        preconditionFailure("key \(key) is allowed but not read")
      }
    }
    configuration.engine = engine
  }

  private static func readBackspace(
    _ node: YAMLNode, into backspace: inout BackspaceConfiguration, reader: inout YAMLReader
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

  private static func readExpansion(
    _ node: YAMLNode, into expansion: inout ExpansionConfiguration, reader: inout YAMLReader
  ) {
    guard let entries = reader.entries(of: node, named: "expansion", allowed: expansionKeys) else { return }
    for (key, value) in entries {
      let name = "expansion.\(key)"
      switch key {
      case "burst_keys":
        expansion.burstKeys = reader.integer(value, key: name, in: 1...30).map(Int.init) ?? expansion.burstKeys
      case "gap_ms":
        expansion.burstGapMilliseconds =
          reader.integer(value, key: name, in: 0...1000) ?? expansion.burstGapMilliseconds
      case "variable_timeout_ms":
        expansion.sessionTimeoutMilliseconds =
          reader.integer(value, key: name, in: 100...60_000) ?? expansion.sessionTimeoutMilliseconds
      default:
        preconditionFailure("key \(key) is allowed but not read")
      }
    }
  }

  /// `autocorrect_languages:`, dictionary names; one that is not
  /// installed is a warning (no autocorrect in it), not an error.
  private static func readLanguages(_ node: YAMLNode, reader: inout YAMLReader) -> [String] {
    var names: [String] = []
    for item in reader.list(node, key: "autocorrect_languages") ?? [] {
      guard let name = reader.string(item, key: "autocorrect_languages") else { continue }
      guard Dictionaries.isName(name) else {
        reader.report("autocorrect_languages: '\(name)' is not a dictionary name (like en_US or de_DE)", at: item)
        continue
      }
      if !Dictionaries.isInstalled(name) {
        reader.warn(
          "autocorrect_languages: no dictionary \(name) in \(Dictionaries.directory) (apt install hunspell-…): "
            + "no autocorrect in it", at: item, kind: .missingFile)
      }
      names.append(name)
    }
    return names
  }

  private static func readDevices(_ node: YAMLNode, reader: inout YAMLReader) -> DeviceFilter {
    var filter = DeviceFilter()
    guard let entries = reader.entries(of: node, named: "devices", allowed: deviceKeys) else { return filter }
    for (key, value) in entries {
      for item in reader.list(value, key: "devices.\(key)") ?? [] {
        // An entry of include may be a mapping that sets grab.
        if key == "include", case .mapping = item.content {
          guard let settings = reader.entries(of: item, named: "devices.include", allowed: deviceEntryKeys) else {
            continue
          }
          var device: String?
          var grab = true
          for (setting, value) in settings {
            if setting == "device" { device = reader.string(value, key: "devices.include.device") }
            if setting == "grab" { grab = reader.bool(value, key: "devices.include.grab") ?? grab }
          }
          guard let device else {
            reader.report("devices.include: an entry that is a mapping needs 'device'", at: item)
            continue
          }
          if grab { filter.include.append(device) } else { filter.readOnly.append(device) }
        } else if let name = reader.string(item, key: "devices.\(key)") {
          if key == "include" { filter.include.append(name) } else { filter.exclude.append(name) }
        }
      }
    }
    return filter
  }

  private static func readLayout(_ node: YAMLNode, reader: inout YAMLReader) -> Layout? {
    guard let entries = reader.entries(of: node, named: "layout", allowed: layoutKeys) else { return nil }
    var names = LayoutNames(locale: SystemLocale.name())
    for (key, value) in entries {
      guard let text = reader.string(value, key: "layout.\(key)") else { continue }
      switch key {
      case "rules": names.rules = text
      case "model": names.model = text
      case "layout": names.layout = text
      case "variant": names.variant = text
      case "options": names.options = text
      case "locale":
        guard LayoutReport.isLocaleName(text) else {
          reader.report("layout.locale must name a locale, as pt_BR.UTF-8", at: value)
          continue
        }
        names.locale = text
      default: preconditionFailure("key \(key) is allowed but not read")
      }
    }
    do {
      return try Layout.shared(names)
    } catch {
      reader.report("layout: \(error)", at: node)
      return nil
    }
  }
}
