/// espanso's application configs (`config/*.yml` beside `match/`), read
/// from what a user's session agent sent: each that filters by window class
/// or title and sets `enable: false` becomes an app rule under which no
/// snippet expands, as espanso is off there.
enum EspansoConfig {
  /// The keys read; espanso's many others (backend, toggle_key…) are not
  /// vkbd's concern and are passed over.
  static let filterKeys = ["filter_class", "filter_title", "filter_exec", "filter_os"]
  static let matchSetKeys = ["includes", "excludes", "extra_includes", "extra_excludes", "use_standard_includes"]

  /// The app rules of the configs under `root/config`, with what was not
  /// taken over as warnings.
  static func rules(in files: some MatchFileSource, root: String) -> (rules: [AppRule], warnings: [ConfigProblem]) {
    var rules: [AppRule] = []
    var warnings: [ConfigProblem] = []
    let directory = root + "/config"
    for name in files.names(in: directory) where name.hasSuffix(".yml") || name.hasSuffix(".yaml") {
      let path = directory + "/" + name
      guard name != "default.yml", name != "default.yaml", let text = try? files.read(path) else { continue }
      var reader = YAMLReader(file: path)
      if let rule = rule(text, reader: &reader) { rules.append(rule) }
      warnings += reader.problems + reader.warnings
    }
    return (rules, warnings)
  }

  private static func rule(_ text: String, reader: inout YAMLReader) -> AppRule? {
    guard let root = reader.compose(text), case .mapping(let mapping) = root.content else { return nil }
    var values: [String: YAMLNode] = [:]
    for (key, value) in mapping {
      if case .scalar(let name, _) = key.content { values[name] = value }
    }
    let origin = "\(reader.file):1"
    if let os = values["filter_os"], reader.string(os, key: "filter_os") != "linux" { return nil }
    if let exec = values["filter_exec"] {
      reader.warn(
        "filter_exec is not supported (the session agent does not report executables): this config is left out",
        at: exec, kind: .unsupported)
      return nil
    }
    var rule = AppRule(settings: AppSettings(), origin: origin)
    for (key, node) in [("filter_class", values["filter_class"]), ("filter_title", values["filter_title"])] {
      guard let node, let text = reader.string(node, key: key) else { continue }
      do {
        let pattern = try Pattern(text)
        if key == "filter_class" { rule.app = .pattern(pattern) } else { rule.title = pattern }
      } catch {
        reader.warn("\(key): not a regular expression vkbd reads: \(error.message)", at: node, kind: .unsupported)
        return nil
      }
    }
    guard rule.app != nil || rule.title != nil else { return nil }  // espanso never selects it either
    if let node = matchSetKeys.lazy.compactMap({ values[$0] }).first {
      reader.warn(
        "per-application match sets (includes, excludes) are not supported: the user's whole set applies here",
        at: node, kind: .unsupported)
    }
    guard let enable = values["enable"], reader.bool(enable, key: "enable") == false else { return nil }
    rule.settings.snippets = false
    return rule
  }
}

extension AppRules {
  /// These rules with `more` after the config's own and before the
  /// built-in ones.
  func adding(_ more: [AppRule]) -> AppRules {
    var result = self
    result.rules.insert(contentsOf: more, at: rules.count - BuiltInRules.rules.count)
    return result
  }
}
