import KeyboardEngine

/// espanso's application configs (`config/*.yml` beside `match/`), read
/// from what a user's session agent sent: each that filters by window class
/// or title becomes an app rule. With `enable: false` no snippet expands
/// there, as espanso is off; with its own match set (`includes`,
/// `excludes`…) the user's match files outside it do not fire there.
enum EspansoConfig {
  /// The keys of a match set of its own. An app config's other keys
  /// (backend, toggle_key…) are not vkbd's concern and are passed over.
  static let matchSetKeys = ["includes", "excludes", "extra_includes", "extra_excludes", "use_standard_includes"]

  /// The app rules of the configs under `root/config`, with what was not
  /// taken over as warnings.
  static func rules(in files: some MatchFileStore, root: String) -> (rules: [AppRule], warnings: [ConfigProblem]) {
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
  private static func glob(_ patterns: [String], files: some MatchFileStore, directory: String) -> Set<String> {
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
    _ text: String, files: some MatchFileStore, directory: String, reader: inout YAMLReader
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
  /// The settings of a user's espanso config (`config/default.yml`) that
  /// vkbd honours for that user.
  struct Settings: Equatable {
    /// `search_shortcut`: nil when the file does not set it; `.some(nil)`: `off`.
    /// It opens vkbd's picker, which stands in for espanso's search bar.
    var shortcut: Shortcut??
    /// `search_trigger`, as a snippet that opens the picker.
    var trigger: Snippet?
    /// `undo_backspace: false`: Backspace right after an expansion is only
    /// a Backspace for this user (`true` changes nothing: vkbd.yaml's
    /// `undo_backspace: false` is the system's choice).
    var undoBackspace = true

    static func == (left: Settings, right: Settings) -> Bool {
      left.shortcut == right.shortcut && left.trigger?.triggers == right.trigger?.triggers
        && left.undoBackspace == right.undoBackspace
    }
  }

  /// espanso's keys of `config/default.yml` that vkbd does not take over,
  /// each with why or where vkbd's own setting is. A file's other keys are
  /// warned of as unknown.
  static let keysNotTaken: [String: String] = {
    var keys: [String: String] = [
      "toggle_key":
        "vkbd's toggle_key in /etc/vkbd/config.yaml is a chord (rightctrl+pause), not a modifier's double tap",
      "backspace_limit": "vkbd follows Backspace in a trigger to any length",
      "word_separators": "vkbd ends words at any character that is not a letter, digit or apostrophe",
      "show_notifications": "vkbd's notifications: in /etc/vkbd/config.yaml",
      "show_icon": "vkbd-agent --no-status-icon",
      "keyboard_layout": "vkbd follows the desktop's layout, or layout: in /etc/vkbd/config.yaml",
      "enable": "vkbd pause (or toggle_key) turns vkbd off",
      "label": "vkbd names a config by its file",
      "max_form_width": "vkbd's forms are drawn by the dialog program at their own size",
      "max_form_height": "vkbd's forms are drawn by the dialog program at their own size",
      "filter_class": "an app filter belongs in a config of its own in config/, not in default.yml",
      "filter_title": "an app filter belongs in a config of its own in config/, not in default.yml",
      "filter_exec": "an app filter belongs in a config of its own in config/, not in default.yml",
      "filter_os": "an app filter belongs in a config of its own in config/, not in default.yml",
    ]
    for key in matchSetKeys { keys[key] = "vkbd loads every match file under match/ (but for _ ones, imported)" }
    // How espanso itself types and pastes: vkbd types through its own
    // virtual keyboard and pastes through the session agent.
    for key in [
      "backend", "clipboard_threshold", "paste_shortcut", "paste_shortcut_event_delay", "pre_paste_delay",
      "restore_clipboard_delay", "preserve_clipboard", "inject_delay", "key_delay", "evdev_modifier_delay",
      "disable_x11_fast_inject", "x11_use_xclip_backend", "x11_use_xdotool_backend", "auto_restart",
      "apply_patch", "secure_input_notification", "max_regex_buffer_size", "emulate_alt_codes",
      "post_form_delay", "post_search_delay", "win32_exclude_orphan_events",
      "win32_keyboard_layout_cache_interval", "keyboard_layout_cache_interval",
    ] {
      keys[key] = "espanso's own typing; vkbd types through its virtual keyboard"
    }
    return keys
  }()

  /// The settings of the user's espanso config, with a warning at
  /// file:line for every key vkbd does not honour.
  static func settings(in files: some MatchFileStore, root: String) -> (Settings, [ConfigProblem]) {
    var settings = Settings()
    var reader = YAMLReader(file: root + "/config/default.yml")
    guard let text = try? files.read(reader.file), let node = reader.compose(text),
      case .mapping(let mapping) = node.content
    else { return (settings, reader.problems) }
    for (key, value) in mapping {
      guard case .scalar(let name, _) = key.content else { continue }
      switch name {
      case "search_shortcut":
        guard let setting = reader.string(value, key: name) else { continue }
        do {
          settings.shortcut = .some(try KeyNames.shortcut(setting))
        } catch {
          reader.warn("search_shortcut: \(error.message)", at: value, kind: .unsupported)
        }
      case "search_trigger":
        guard let setting = reader.string(value, key: name) else { continue }
        if !setting.isEmpty && setting.lowercased() != "off" {
          var snippet = Snippet(trigger: setting, replace: "", origin: "\(reader.file):\(value.line)")
          snippet.opensSearch = true
          settings.trigger = snippet
        }
      case "undo_backspace":
        settings.undoBackspace = reader.bool(value, key: name) ?? true
      default:
        if let why = keysNotTaken[name] {
          reader.warn("\(name) is espanso's and not vkbd's: \(why)", at: key, kind: .unsupported)
        } else {
          reader.warn("\(name): not a key of espanso's config that vkbd knows; ignored", at: key, kind: .unknownKey)
        }
      }
    }
    return (settings, reader.problems + reader.warnings)
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
