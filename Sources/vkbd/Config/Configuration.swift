import KeyboardEngine

/// The daemon's whole configuration, as read from the config file.
struct Configuration {
  /// What the engine does.
  var engine = EngineConfiguration()
  /// The XKB names of the layout; nil means the system's (see ``SystemKeyboard``).
  var layout: LayoutNames?
  /// Where it came from: a path, or ``Configuration/embeddedName``.
  var source = Configuration.embeddedName

  /// The name the embedded default goes by in messages.
  static let embeddedName = "(embedded default)"

  /// The layout to use: the configured one, else the system's.
  var resolvedLayout: LayoutNames { layout ?? SystemKeyboard.layoutNames() }
}

/// One problem in a config file, at a place in it.
struct ConfigProblem: Error, Equatable, CustomStringConvertible {
  var file: String
  var line: Int
  var column: Int
  var message: String

  var description: String { "\(file):\(line):\(column): \(message)" }
}

/// Every problem found in a config file; nothing of it is used.
struct ConfigErrors: Error, CustomStringConvertible {
  var problems: [ConfigProblem]
  var description: String { problems.map(\.description).joined(separator: "\n") }
}

/// The keyboard the system is set up with, from /etc/default/keyboard
/// (Debian's keyboard-configuration, read by console-setup and localed).
enum SystemKeyboard {
  static let path = "/etc/default/keyboard"

  /// The names in /etc/default/keyboard, or `us` without it.
  static func layoutNames(path: String = SystemKeyboard.path) -> LayoutNames {
    guard let contents = try? readFile(path) else { return LayoutNames() }
    return layoutNames(fromShellAssignments: contents)
  }

  /// Reads `XKBLAYOUT="de"`-style lines; unknown lines are ignored.
  static func layoutNames(fromShellAssignments contents: String) -> LayoutNames {
    var names = LayoutNames()
    for line in contents.split(separator: "\n") {
      guard let equals = line.firstIndex(of: "=") else { continue }
      let key = line[..<equals].trimmingSpaces
      var value = line[line.index(after: equals)...].trimmingSpaces
      if value.count >= 2, value.first == value.last, value.first == "\"" || value.first == "'" {
        value = value.dropFirst().dropLast()
      }
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

extension Substring {
  /// The text without leading and trailing spaces and tabs.
  var trimmingSpaces: Substring {
    var text = self
    while let first = text.first, first == " " || first == "\t" { text.removeFirst() }
    while let last = text.last, last == " " || last == "\t" { text.removeLast() }
    return text
  }
}
