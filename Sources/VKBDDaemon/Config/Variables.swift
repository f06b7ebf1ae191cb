import KeyboardEngine
import LinuxSystem

/// A variable as defined.
enum VariableDefinition {
  case ready(RawVariable, injects: Bool)
  /// A kind vkbd does not have.
  case unsupported(type: String, origin: String)
  /// It had an error, already reported.
  case invalid(origin: String)
  /// espanso's `type: global`: the global variable of that name, here.
  case global
}

/// A variable's parameters, their text not yet split at references.
enum RawVariable {
  case date(format: String?, offset: Int64, locale: String?)
  case echo(String)
  case random([String])
  case match(trigger: String)
  case shell(command: String, shell: String?, trim: Bool, debug: Bool)
  case script(arguments: [String], trim: Bool)
  case clipboard
  case choice([SessionCall.Choice])
  case form(layout: String, fields: [SessionCall.FormField])
}

/// Reads the variables of espanso's match files (`vars:`, `global_vars:`)
/// and their parameters, as espanso does: an unknown parameter is passed
/// over, a kind vkbd does not have is kept as unsupported (a match that
/// uses it is left out), a mistake is reported with its file:line.
enum VariableReader {
  static let variableKeys = ["name", "type", "params", "inject_vars", "depends_on"]
  /// The shells a `shell` variable may name that run on Linux.
  static let shells = ["bash", "sh", "zsh", "nu", "pwsh"]

  /// The settings of a form's fields, by name.
  static func formFields(_ node: YAMLNode, reader: inout YAMLReader) -> [String: SessionCall.FormField] {
    guard case .mapping(let mapping) = node.content else {
      reader.report("form fields must be a mapping of field names to their settings", at: node)
      return [:]
    }
    var fields: [String: SessionCall.FormField] = [:]
    for (keyNode, value) in mapping {
      guard let name = reader.string(keyNode, key: "form field") else { continue }
      var field = SessionCall.FormField(name: name)
      if MatchReader.isEmpty(value) {  // `title:`: a text field with no settings
        fields[name] = field
        continue
      }
      guard case .mapping = value.content else {
        reader.warn("form field '\(name)' ignored: its settings must be a mapping", at: value, kind: .unknownKey)
        continue
      }
      guard
        let entries = reader.entries(
          of: value, named: "form field \(name)",
          allowed: ["type", "values", "default", "multiline", "trim_string_values"])
      else { continue }
      for (key, setting) in entries {
        switch key {
        case "values": field.choices = readChoices(setting, key: "values", reader: &reader).map(\.id)
        case "default": field.defaultValue = reader.string(setting, key: "default") ?? ""
        case "type": _ = reader.string(setting, key: "type")
        default: _ = reader.bool(setting, key: key)
        }
      }
      fields[name] = field
    }
    return fields
  }

  /// A `vars:` or `global_vars:` list; an entry with a problem is reported
  /// and defined as invalid (a match that uses it is left out).
  static func read(
    _ node: YAMLNode, key: String, reader: inout YAMLReader
  ) -> [(name: String, definition: VariableDefinition)] {
    guard case .sequence(let sequence) = node.content else {
      reader.report("\(key) must be a list", at: node)
      return []
    }
    var result: [(name: String, definition: VariableDefinition)] = []
    for item in sequence {
      guard let entries = reader.entries(of: item, named: key, allowed: variableKeys) else { continue }
      var name: String?
      var type: String?
      var params: YAMLNode?
      var injects = true
      for (field, value) in entries {
        switch field {
        case "name": name = reader.string(value, key: "\(key).name")
        case "type": type = reader.string(value, key: "\(key).type")
        case "params": params = value
        case "inject_vars": injects = reader.bool(value, key: "\(key).inject_vars") ?? true
        default: break  // depends_on: vkbd works variables out in order
        }
      }
      guard let name, let type else {
        reader.report("a variable needs name: and type:", at: item)
        continue
      }
      let origin = "\(reader.file):\(item.line)"
      let problemsBefore = reader.problems.count
      let definition = readVariable(type: type, params: params, reader: &reader, at: item)
      if reader.problems.count > problemsBefore || definition == nil {
        result.append((name, .invalid(origin: origin)))
      } else if let definition {
        switch definition {
        case .ready(let raw, _): result.append((name, .ready(raw, injects: injects)))
        case .unsupported(let type, _): result.append((name, .unsupported(type: type, origin: origin)))
        default: result.append((name, definition))
        }
      }
    }
    return result
  }

  private static func readVariable(
    type: String, params: YAMLNode?, reader: inout YAMLReader, at node: YAMLNode
  ) -> VariableDefinition? {
    let allowed: [String]
    switch type {
    case "date": allowed = ["format", "offset", "locale", "tz"]
    case "echo", "dummy": allowed = ["echo"]
    case "random": allowed = ["choices"]
    case "match": allowed = ["trigger"]
    case "shell": allowed = ["cmd", "shell", "trim", "debug", "macos_override_path"]
    case "script": allowed = ["args", "trim", "debug", "ignore_error"]
    case "clipboard": allowed = []
    case "choice": allowed = ["values"]
    case "form": allowed = ["layout", "fields"]
    case "global": return .global
    default: return .unsupported(type: type, origin: "")
    }
    var values: [String: YAMLNode] = [:]
    if let params, !MatchReader.isEmpty(params) {
      guard case .mapping(let mapping) = params.content else {
        reader.report("params must be a mapping of keys to values", at: params)
        return nil
      }
      for (keyNode, value) in mapping {
        guard case .scalar(let key, _) = keyNode.content else { continue }
        if allowed.contains(key) {
          values[key] = value
        } else {  // espanso ignores what a variable does not read
          reader.warn("params: unknown key '\(key)' of a \(type) variable ignored", at: keyNode, kind: .unknownKey)
        }
      }
    }
    func text(_ key: String) -> String? { values[key].flatMap { reader.text($0, key: "params.\(key)") } }
    func flag(_ key: String, _ otherwise: Bool) -> Bool {
      values[key].flatMap { reader.bool($0, key: "params.\(key)") } ?? otherwise
    }
    func required(_ key: String) -> String? {
      guard values[key] != nil else {
        reader.report("a \(type) variable needs params.\(key)", at: node)
        return nil
      }
      return text(key)
    }
    switch type {
    case "date":
      let offset = values["offset"].flatMap {
        reader.integer($0, key: "params.offset", in: -3_153_600_000...3_153_600_000)
      }
      if values["tz"] != nil {
        return .unsupported(type: "date with tz", origin: "")
      }
      let locale = text("locale")
      if let locale, !LocalDates.isInstalled(locale) {
        reader.warn(
          "date locale '\(locale)' is not installed on this system (package locales-all): English names are used",
          at: values["locale"], kind: .unsupported)
      }
      return .ready(.date(format: text("format"), offset: offset ?? 0, locale: locale), injects: true)
    case "echo", "dummy":
      return required("echo").map { .ready(.echo($0), injects: true) }
    case "random":
      let choices = (values["choices"].flatMap { reader.list($0, key: "params.choices") } ?? []).compactMap {
        reader.string($0, key: "params.choices")
      }
      guard !choices.isEmpty else {
        reader.report("a random variable needs params.choices", at: node)
        return nil
      }
      return .ready(.random(choices), injects: true)
    case "match":
      return required("trigger").map { .ready(.match(trigger: $0), injects: true) }
    case "shell":
      guard let command = required("cmd") else { return nil }
      let shell = text("shell")
      if let shell, !Self.shells.contains(shell) {
        return .unsupported(type: "shell with shell '\(shell)'", origin: "")
      }
      return .ready(
        .shell(command: command, shell: shell, trim: flag("trim", true), debug: flag("debug", false)), injects: true)
    case "script":
      let arguments = (values["args"].flatMap { reader.list($0, key: "params.args") } ?? []).compactMap {
        reader.string($0, key: "params.args")
      }
      guard !arguments.isEmpty else {
        reader.report("a script variable needs params.args (the program and its arguments)", at: node)
        return nil
      }
      _ = flag("debug", false)
      _ = flag("ignore_error", false)
      return .ready(.script(arguments: arguments, trim: flag("trim", true)), injects: true)
    case "clipboard":
      return .ready(.clipboard, injects: true)
    case "choice":
      guard let node = values["values"] else {
        reader.report("a choice variable needs params.values", at: node)
        return nil
      }
      let choices = readChoices(node, key: "params.values", reader: &reader)
      return choices.isEmpty ? nil : .ready(.choice(choices), injects: true)
    default:  // form
      guard let layout = required("layout") else { return nil }
      let fields = values["fields"].map { formFields($0, reader: &reader) } ?? [:]
      let names = Templates.formFieldNames(layout)
      return .ready(
        .form(layout: layout, fields: names.map { fields[$0] ?? SessionCall.FormField(name: $0) }), injects: true)
    }
  }

  /// A choice's values: lines of a text, a list of texts, or a list of
  /// `{label, id}`.
  private static func readChoices(_ node: YAMLNode, key: String, reader: inout YAMLReader) -> [SessionCall.Choice] {
    if case .scalar(let text, _) = node.content {
      return text.split(separator: "\n").map { $0.trimmingSpaces }.filter { !$0.isEmpty }.map {
        SessionCall.Choice(label: String($0), id: String($0))
      }
    }
    var choices: [SessionCall.Choice] = []
    for item in reader.list(node, key: key) ?? [] {
      if case .mapping = item.content {
        guard let entries = reader.entries(of: item, named: key, allowed: ["label", "id"]) else { continue }
        var label: String?
        var id: String?
        for (field, value) in entries {
          if field == "label" {
            label = reader.string(value, key: "\(key).label")
          } else {
            id = reader.string(value, key: "\(key).id")
          }
        }
        guard let label, let id else {
          reader.report("a choice needs both label: and id:", at: item)
          continue
        }
        choices.append(SessionCall.Choice(label: label, id: id))
      } else if let text = reader.string(item, key: key) {
        choices.append(SessionCall.Choice(label: text, id: text))
      }
    }
    return choices
  }

  /// The parameters that are text, where references may stand.
  static func texts(of raw: RawVariable) -> [String] {
    switch raw {
    case .date(let format, _, _): return format.map { [$0] } ?? []
    case .echo(let text): return [text]
    case .random(let choices): return choices
    case .match, .clipboard, .choice: return []
    case .shell(let command, _, _, _): return [command]
    case .script(let arguments, _): return arguments
    case .form(let layout, _): return [layout]
    }
  }
}
