#if canImport(Glibc)
  import Glibc
#endif

/// The programs session work runs, and how espanso names and treats them.
public enum Programs {
  /// The program and arguments that run `command` in `shell` (espanso's
  /// names; bash when none is named); nil for a shell that does not run on
  /// Linux.
  public static func shellArguments(_ shell: String?, command: String) -> [String]? {
    switch shell ?? "bash" {
    case "bash", "sh", "zsh": return [shell ?? "bash", "-c", command]
    case "nu": return ["nu", "--commands", command]
    case "pwsh": return ["pwsh", "-Command", command]
    default: return nil
    }
  }

  /// espanso's placeholders in a script's arguments: `%HOME%`, `%CONFIG%`
  /// (espanso's directory) and `%PACKAGES%`.
  public static func expandingPlaceholders(_ argument: String, home: String, config: String) -> String {
    argument.replacing("%HOME%", with: home).replacing("%CONFIG%", with: config).replacing(
      "%PACKAGES%", with: config + "/match/packages")
  }

  /// `text` without the white space at both ends (espanso's `trim`).
  public static func trimmed(_ text: String) -> String {
    let scalars = text.unicodeScalars
    guard let first = scalars.firstIndex(where: { !$0.properties.isWhitespace }) else { return "" }
    let last = scalars.lastIndex(where: { !$0.properties.isWhitespace })!
    return String(scalars[first...last])
  }

  /// espanso's directory: `$XDG_CONFIG_HOME/espanso`, else `~/.config/espanso`.
  public static var espansoDirectory: String {
    let config = environmentVariable("XDG_CONFIG_HOME", or: "")
    return (config.isEmpty ? environmentVariable("HOME", or: "/") + "/.config" : config) + "/espanso"
  }

  /// The environment variable `name`, or `fallback` when it is not set.
  static func environmentVariable(_ name: String, or fallback: String) -> String {
    getenv(name).map { String(cString: $0) } ?? fallback
  }

  /// Whether the session is Wayland's (else X11's): which clipboard tools.
  static var isWayland: Bool { getenv("WAYLAND_DISPLAY") != nil }

  /// Sets the clipboard's text for good (until something else does).
  static var clipboardWriter: [String] {
    isWayland ? ["wl-copy", "--type", "text/plain;charset=utf-8"] : ["xclip", "-selection", "clipboard", "-i"]
  }

  static var clipboardClearer: [String] {
    isWayland ? ["wl-copy", "--clear"] : ["xclip", "-selection", "clipboard", "-i", "/dev/null"]
  }

  /// How the clipboard's text is read: wl-clipboard on Wayland, xclip on X11.
  static var clipboardReader: [String] {
    isWayland ? ["wl-paste", "--no-newline", "--type", "text"] : ["xclip", "-selection", "clipboard", "-o"]
  }

  /// zenity, when it is on PATH.
  public static var dialogProgram: String? {
    let path = environmentVariable("PATH", or: "/usr/bin:/bin")
    for directory in path.split(separator: ":") where access("\(directory)/zenity", X_OK) == 0 {
      return "\(directory)/zenity"
    }
    return nil
  }
}
