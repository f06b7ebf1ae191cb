import Glibc
import LinuxSystem

/// KDE's configuration files (KConfig's INI form, in the user's config
/// directory): the agent reads kxkbrc's layouts and kwinrc's input method,
/// and `--setup-kwin` sets kwinrc's.
enum KConfig {
  /// `$XDG_CONFIG_HOME/NAME` (else `~/.config/NAME`); nil without a home.
  static func path(_ name: String) -> String? {
    let directory =
      getenv("XDG_CONFIG_HOME").map { String(cString: $0) }.flatMap { $0.isEmpty ? nil : $0 }
      ?? getenv("HOME").map { String(cString: $0) + "/.config" }
    return directory.map { $0 + "/" + name }
  }

  /// The entries of `section`, keys without KConfig's flags (`Key[$e]`)
  /// and locales (`Key[de]`).
  static func entries(of section: String, in text: String) -> [String: String] {
    var current = ""
    var entries: [String: String] = [:]
    for line in text.split(whereSeparator: \.isNewline) {
      let line = line.trimmed[...]
      if line.hasPrefix("[") {
        current = String(line.dropFirst().prefix { $0 != "]" })
      } else if current == section, !line.hasPrefix("#"), let equals = line.firstIndex(of: "=") {
        entries[key(of: line[..<equals])] = line[line.index(after: equals)...].trimmed
      }
    }
    return entries
  }

  /// `text` with `values` set in `section`: each key's old lines (with any
  /// flags or locale) give way to one new line at the section's end; a
  /// missing section is added at the end of the file. The rest stays as it was.
  static func setting(_ values: KeyValuePairs<String, String>, in section: String, of text: String) -> String {
    var lines = text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    if lines.last == "" { lines.removeLast() }
    var current = ""
    var sectionEnd: Int?
    var kept: [String] = []
    for line in lines {
      let trimmed = line[...].trimmed
      if trimmed.hasPrefix("[") {
        if current == section { sectionEnd = kept.count }
        current = String(trimmed.dropFirst().prefix { $0 != "]" })
      } else if current == section, let equals = trimmed.firstIndex(of: "="),
        values.contains(where: { $0.key == key(of: trimmed[..<equals]) })
      {
        continue
      }
      kept.append(line)
    }
    if current == section { sectionEnd = kept.count }
    let added = values.map { "\($0.key)=\($0.value)" }
    if let end = sectionEnd {
      // Before the blank lines that end the section.
      var at = end
      while at > 0, kept[at - 1][...].trimmed.isEmpty { at -= 1 }
      kept.insert(contentsOf: added, at: at)
    } else {
      if let last = kept.last, !last[...].trimmed.isEmpty { kept.append("") }
      kept.append("[\(section)]")
      kept.append(contentsOf: added)
    }
    return kept.joined(separator: "\n") + "\n"
  }

  private static func key(of text: Substring) -> String { text.prefix { $0 != "[" }.trimmed }
}
