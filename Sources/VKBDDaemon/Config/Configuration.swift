import AgentProtocol
import Glibc
import KeyboardEngine
import LinuxSystem
import XKBFiles

/// The daemon's whole configuration, as read from the config file.
struct Configuration {
  /// What the engine does.
  var engine = EngineConfiguration()
  /// Whether the file sets `picker.shortcut` (else espanso's
  /// `search_shortcut` of the user's may).
  var pickerShortcutWritten = false
  /// The configured layout, compiled when the config was checked (the
  /// engine is built on it, not on a second compile); nil means the
  /// system's (see ``SystemKeyboard``).
  var compiledLayout: Layout?
  /// The XKB names of the configured layout.
  var layout: LayoutNames? { compiledLayout?.names }
  /// The snippets, from the files named and the inline matches.
  var snippets = SnippetTable()
  /// The match files read.
  var snippetFiles: [String] = []
  /// The user's own espanso match files joined (``joined(with:)``): their
  /// agent reads them, not the daemon.
  var userFiles: [String] = []
  /// The spelling dictionaries autocorrect uses, by name (`en_US`); nil:
  /// (or empty) chosen from the locale and the layout (``Dictionaries``).
  var autocorrectLanguages: [String]?
  /// Which keyboards to grab.
  var devices = DeviceFilter()
  /// The control socket's path.
  var controlSocket = "/run/vkbd/control.sock"
  /// A group whose members may use the control socket (besides root).
  var controlGroup: String?
  /// The agent socket's path.
  var agentSocket = AgentProtocol.defaultSocket
  /// Whether the active user's agent shows notifications (a pause, a
  /// reload that failed, a snippet not typed).
  var notifications = true
  /// The app rules, the config's then the built-in ones.
  var apps = AppRules(user: [])
  /// Whose agents count where logind does not run.
  var sessionUsers: [SessionUser] = []
  /// What was skipped while loading (unsupported espanso kinds…).
  var warnings: [ConfigProblem] = []
  /// Errors in match files: the matches (or files) they are in were left
  /// out, the rest loaded.
  var snippetProblems: [ConfigProblem] = []
  /// Where it came from: a path, or ``Configuration/embeddedName``.
  var source = Configuration.embeddedName

  /// The name the embedded default goes by in messages.
  static let embeddedName = "(embedded default)"

  /// The configuration the daemon runs on without a config file: every
  /// default, the system's layout, and the starter snippets.
  static let embeddedDefaultText = #"""
    # vkbd configuration (/etc/vkbd/config.yaml). See vkbd.yaml(5).
    autocapitalize: true
    autocapitalize_after_reset: false
    autocapitalize_field_start: true
    double_space_period: true
    double_space_timeout_ms: 1100
    # Autocorrect and smart punctuation, where the session agent tells the
    # application (never in terminals, code editors, URL or password fields).
    autocorrect: true
    smart_punctuation: true
    # Debian's hunspell dictionaries (/usr/share/hunspell) autocorrect uses:
    # the locale's and the layout's when empty, or named: [en_US, de_DE].
    autocorrect_languages: []
    backspace:
      accelerate: true
      repeat_delay_ms: 400
      repeat_interval_ms: 50
      words_after: 20
      word_interval_ms: 250
    # layout: the system's (/etc/default/keyboard), else us. To choose one:
    # layout:
    #   layout: de
    #   variant: ""
    #   options: ""
    #   locale: ""      # whose Compose file: the system's (/etc/default/locale)
    unicode_input: ctrl-shift-u
    newline: enter
    undo_backspace: true
    expansion:
      burst_keys: 15
      gap_ms: 8
    # A chord that pauses and resumes vkbd (never typed), like rightctrl+pause.
    toggle_key: ""
    # The control socket, for root and (with mode 0660) control_group.
    control_socket: /run/vkbd/control.sock
    control_group: ""
    # Keyboards to grab, by name or vendor:product (hex); include empty: all.
    devices:
      include: []
      exclude: []
    # Settings per application, tried in order on the window the session
    # agent (vkbd-agent) reports; the first rule that matches applies, and
    # after these come the built-in rules for terminals, code editors and
    # password fields (vkbd.yaml(5)). For example:
    #   - app: "^firefox$"       # the app id or X11 class, a regular expression
    #     title: "Gmail"         # searched in the window title
    #     autocapitalize: false
    apps: []
    # The session agent's notifications: a pause, a reload that failed, a
    # snippet that could not be typed.
    notifications: true
    # Where logind does not run: the users whose agent may report.
    session_users: []
    # The socket the agents connect to.
    agent_socket: /run/vkbd/agent.sock
    # Match files in espanso's format, relative to this file; globs work.
    snippets: []
    matches:
      - trigger: ";date"
        replace: "{{today}}"
        vars:
          - name: today
            type: date
            params:
              format: "%Y-%m-%d"
      - trigger: ";time"
        replace: "{{now}}"
        vars:
          - name: now
            type: date
            params:
              format: "%H:%M"
      - trigger: ";shrug"
        replace: '¯\_(ツ)_/¯'

    """#

  /// The files of this configuration that someone other than `reader`
  /// (root, for the daemon; `check` and `doctor` ask for root whoever runs
  /// them) could edit: owned by another user, writable by group or others,
  /// or in a directory that is (but for a sticky one, like /tmp, where
  /// others cannot replace what they do not own). The daemon sees every
  /// keystroke and types what these files say, so it refuses them
  /// (DESIGN 1.5).
  func filesOthersCouldEdit(reader: uid_t = 0) -> [ConfigProblem] {
    let files = (source == Configuration.embeddedName ? [] : [source]) + snippetFiles
    return files.compactMap { file -> ConfigProblem? in
      var info = stat()
      guard stat(file, &info) == 0 else { return nil }
      var why: String?
      if info.st_uid != reader {
        why = "is owned by uid \(info.st_uid)"
      } else if info.st_mode & 0o022 != 0 {
        why = "is writable by its group or others"
      } else {
        let directory = MatchPaths.directory(of: file)
        var parent = stat()
        if stat(directory, &parent) == 0 {
          if parent.st_uid != reader && parent.st_uid != 0 {
            why = "is in \(directory), which uid \(parent.st_uid) owns"
          } else if parent.st_mode & 0o022 != 0 && parent.st_mode & S_ISVTX == 0 {
            why = "is in \(directory), which its group or others can write to"
          }
        }
      }
      return why.map {
        ConfigProblem(
          file: file, line: 1, column: 1, message: "\($0): vkbd refuses files that others could edit",
          kind: .othersCouldEdit)
      }
    }
  }

  /// What to do about the files of ``filesOthersCouldEdit(reader:)``.
  static let othersCouldEditFix =
    "the daemon's files must be root's and writable by root alone (sudo chown root: FILE; sudo chmod go-w FILE);"
    + " snippets of your own go in ~/.config/espanso/match, which vkbd-agent loads for you"

  /// The layout to use: the configured one, else the system's, with the
  /// system's locale.
  var resolvedLayout: LayoutNames {
    layout
      ?? {
        var names = SystemKeyboard.layoutNames()
        names.locale = SystemLocale.name()
        return names
      }()
  }

  /// The spelling dictionaries to load: the named ones, else the
  /// locale's and the layout's that are installed. Found when the config
  /// loads (it reads the system's files: never in the daemon's loop).
  var dictionaryNames: [String] = []

  /// Finds ``dictionaryNames`` and the quotes of the first language.
  mutating func chooseDictionaries() {
    dictionaryNames = Dictionaries.chosen(
      named: autocorrectLanguages, layout: resolvedLayout, locale: SystemLocale.name())
    engine.quotes = QuoteStyle(language: dictionaryNames.first ?? "")
  }

  /// The layout to run on: the configured one as checked, else the
  /// system's, compiled now.
  func makeLayout() throws(LayoutError) -> Layout {
    if let compiledLayout { return compiledLayout }
    return try Layout.shared(resolvedLayout)
  }
}

/// Which keyboards vkbd grabs: by name or `vendor:product` (hex).
struct DeviceFilter: Equatable {
  /// Only these; empty means every keyboard.
  var include: [String] = []
  /// Never these.
  var exclude: [String] = []
  /// Read, never grabbed (`grab: false`): the desktop has their keys, and
  /// one that types forgets the remembered text.
  var readOnly: [String] = []

  /// Whether a keyboard with `name` and `vendorProduct` is to be grabbed.
  func admits(name: String, vendorProduct: String) -> Bool {
    let matches = Self.matching(name, vendorProduct)
    return (include.isEmpty || include.contains(where: matches)) && !exclude.contains(where: matches)
      && !readOnly.contains(where: matches)
  }

  /// Whether a keyboard is to be read and not grabbed; one excluded is not read at all.
  func readsOnly(name: String, vendorProduct: String) -> Bool {
    let matches = Self.matching(name, vendorProduct)
    return readOnly.contains(where: matches) && !exclude.contains(where: matches)
  }

  private static func matching(_ name: String, _ vendorProduct: String) -> (String) -> Bool {
    { entry in entry == name || entry.lowercased() == vendorProduct }
  }
}

/// One problem in a config file, at a place in it.
struct ConfigProblem: Error, Equatable, CustomStringConvertible {
  var file: String
  var line: Int
  var column: Int
  var message: String
  /// What sort of problem it is, for `vkbd check`'s summary.
  var kind = Kind.invalid

  enum Kind: String, CaseIterable {
    /// Not YAML: the file is left out.
    case yaml = "YAML syntax"
    /// A value of the wrong type or out of range.
    case invalid = "invalid value"
    /// A match vkbd cannot make sense of: it is skipped.
    case invalidMatch = "invalid match"
    /// A file that is not there, or an import cycle.
    case missingFile = "missing file"
    /// A feature vkbd does not have: the match or variable is skipped.
    case unsupported = "unsupported feature"
    /// A match that uses a variable or nested match that was skipped.
    case dependsOnSkipped = "depends on a skipped variable"
    /// A match whose replacement names a variable that is not defined
    /// (espanso fails it when it fires).
    case undefinedVariable = "undefined variable"
    /// A key vkbd does not read, ignored (as espanso does).
    case unknownKey = "unknown key"
    /// More than vkbd keeps in memory: what comes after is left out.
    case tooLarge = "too large"
    /// A file someone other than the daemon's user could edit: refused.
    case othersCouldEdit = "file others could edit"
  }

  var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Every problem found in a config file; nothing of it is used.
struct ConfigErrors: Error, CustomStringConvertible {
  var problems: [ConfigProblem]
  var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// The keyboard the system is set up with: Debian's /etc/default/keyboard
/// (keyboard-configuration, read by console-setup and localed), else the
/// XKB settings systemd-localed keeps in /etc/vconsole.conf.
enum SystemKeyboard {
  static let paths = ["/etc/default/keyboard", "/etc/vconsole.conf"]

  /// The names in the first of ``paths`` that sets XKBLAYOUT, or `us`.
  static func layoutNames(paths: [String] = SystemKeyboard.paths) -> LayoutNames {
    for path in paths {
      guard let contents = try? Files.readText(path), contents.contains("XKBLAYOUT=") else { continue }
      return layoutNames(fromShellAssignments: contents)
    }
    return LayoutNames()
  }

  /// Reads `XKBLAYOUT="de"`-style lines; unknown lines are ignored.
  static func layoutNames(fromShellAssignments contents: String) -> LayoutNames {
    var names = LayoutNames()
    for (key, value) in shellAssignments(contents) {
      switch key {
      case "XKBMODEL": names.model = value.isEmpty ? names.model : String(value)
      case "XKBLAYOUT": names.layout = value.isEmpty ? names.layout : String(value)
      case "XKBVARIANT": names.variant = String(value)
      case "XKBOPTIONS": names.options = String(value)
      default: break
      }
    }
    return names
  }
}

/// The system's locale for characters, whose Compose file applications
/// read: `LC_ALL`, else `LC_CTYPE`, else `LANG` of Debian's
/// /etc/default/locale, else of systemd's /etc/locale.conf.
enum SystemLocale {
  static let paths = ["/etc/default/locale", "/etc/locale.conf"]

  /// The locale the first file of ``paths`` that sets one names; empty
  /// when none does (or names what no locale is called).
  static func name(paths: [String] = SystemLocale.paths) -> String {
    for path in paths {
      guard let contents = try? Files.readText(path) else { continue }
      let values = Dictionary(shellAssignments(contents), uniquingKeysWith: { _, last in last })
      for key: Substring in ["LC_ALL", "LC_CTYPE", "LANG"] {
        if let value = values[key], !value.isEmpty {
          return LayoutReport.isLocaleName(String(value)) ? String(value) : ""
        }
      }
    }
    return ""
  }
}

/// The `NAME=value` lines of a shell-style settings file, quotes taken off
/// the values; other lines are left out.
func shellAssignments(_ contents: String) -> [(key: Substring, value: Substring)] {
  contents.split(separator: "\n").compactMap { line in
    guard let equals = line.firstIndex(of: "=") else { return nil }
    let key = line[..<equals].trimmingSpaces
    var value = line[line.index(after: equals)...].trimmingSpaces
    if value.count >= 2, value.first == value.last, value.first == "\"" || value.first == "'" {
      value = value.dropFirst().dropLast()
    }
    return (key, value)
  }
}

extension Substring {
  /// The text without leading and trailing spaces and tabs.
  var trimmingSpaces: Substring {
    var text = self
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return text
  }
}
