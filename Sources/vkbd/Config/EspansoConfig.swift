import KeyboardEngine

/// espanso's application configs (`config/*.yml` beside `match/`), read
/// from what a user's session agent sent: each that filters by window class
/// or title becomes an app rule. With `enable: false` no snippet expands
/// there, as espanso is off; with its own match set (`includes`,
/// `excludes`…) the user's match files outside it do not fire there.
enum EspansoConfig {
  /// The keys of a match set of its own. espanso's many other keys
  /// (backend, toggle_key…) are not vkbd's concern and are passed over.
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
      if let rule = rule(text, files: files, directory: directory, reader: &reader) { rules.append(rule) }
      warnings += reader.problems + reader.warnings
    }
    return (rules, warnings)
  }

  /// espanso's standard match set, relative to `config/`.
  static let standardIncludes = ["../match/**/[!_]*.yml"]

  /// The match files a config's patterns name (relative to `directory`).
  private static func glob(_ patterns: [String], files: some MatchFileSource, directory: String) -> Set<String> {
    var found = Set<String>()
    for pattern in patterns {
      for path in MatchPaths.glob(MatchPaths.join(directory, pattern), in: files) {
        found.insert(MatchPaths.normalized(path))
      }
    }
    return found
  }

  /// A config's list of patterns; nil when it has none.
  private static func patterns(_ node: YAMLNode?, key: String, reader: inout YAMLReader) -> [String]? {
    guard let node else { return nil }
    return (reader.list(node, key: key) ?? []).compactMap { reader.string($0, key: key) }
  }

  private static func rule(
    _ text: String, files: some MatchFileSource, directory: String, reader: inout YAMLReader
  ) -> AppRule? {
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
        let pattern = try FilterRegex(text)
        if key == "filter_class" { rule.app = .pattern(pattern) } else { rule.title = pattern }
      } catch {
        reader.warn("\(key): not a regular expression vkbd reads: \(error)", at: node, kind: .unsupported)
        return nil
      }
    }
    guard rule.app != nil || rule.title != nil else { return nil }  // espanso never selects it either
    if let enable = values["enable"], reader.bool(enable, key: "enable") == false {
      rule.settings.snippets = false
      return rule
    }
    guard matchSetKeys.contains(where: { values[$0] != nil }) else { return nil }
    // Its match set: the standard one (unless use_standard_includes is
    // false) and its includes, less its excludes; the user's other match
    // files are off here.
    let standard = values["use_standard_includes"].flatMap { reader.bool($0, key: "use_standard_includes") } ?? true
    let includes =
      (standard ? standardIncludes : []) + (patterns(values["includes"], key: "includes", reader: &reader) ?? [])
      + (patterns(values["extra_includes"], key: "extra_includes", reader: &reader) ?? [])
    let excludes =
      (patterns(values["excludes"], key: "excludes", reader: &reader) ?? [])
      + (patterns(values["extra_excludes"], key: "extra_excludes", reader: &reader) ?? [])
    let set = glob(includes, files: files, directory: directory).subtracting(
      glob(excludes, files: files, directory: directory))
    let all = Set(MatchPaths.matchFiles(under: MatchPaths.normalized(directory + "/../match"), in: files))
    let off = all.subtracting(set)
    guard !off.isEmpty else { return nil }
    rule.settings.snippetFilesOff = off
    return rule
  }
}

extension EspansoConfig {
  /// espanso's search bar settings, in `config/default.yml`.
  struct Search: Equatable {
    /// `search_shortcut`: nil when the file does not set it; `.some(nil)`: `off`.
    var shortcut: Shortcut??
    /// `search_trigger`, as a snippet that opens the picker.
    var trigger: Snippet?

    static func == (left: Search, right: Search) -> Bool {
      left.shortcut == right.shortcut && left.trigger?.triggers == right.trigger?.triggers
    }
  }

  /// The search settings of the user's espanso config: its search bar's
  /// shortcut and trigger open vkbd's picker, which stands in for it.
  static func search(in files: some MatchFileSource, root: String) -> (Search, [ConfigProblem]) {
    var search = Search()
    var reader = YAMLReader(file: root + "/config/default.yml")
    guard let text = try? files.read(reader.file), let node = reader.compose(text),
      case .mapping(let mapping) = node.content
    else { return (search, reader.problems) }
    for (key, value) in mapping {
      guard case .scalar(let name, _) = key.content, name == "search_shortcut" || name == "search_trigger",
        let setting = reader.string(value, key: name)
      else { continue }
      if name == "search_shortcut" {
        do {
          search.shortcut = .some(try KeyNames.shortcut(setting))
        } catch {
          reader.warn("search_shortcut: \(error.message)", at: value, kind: .unsupported)
        }
      } else if !setting.isEmpty && setting.lowercased() != "off" {
        var snippet = Snippet(trigger: setting, replace: "", origin: "\(reader.file):\(value.line)")
        snippet.opensSearch = true
        search.trigger = snippet
      }
    }
    return (search, reader.problems + reader.warnings)
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
