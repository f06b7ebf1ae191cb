/// What each of an agent's field sources covers, as `vkbd doctor` says it
/// (README's desktop table has the same, per toolkit).
enum FieldCoverage {
  /// What the field sources named in a hello (`gnome-shell+at-spi`) learn,
  /// best first; on KDE (focus from `kwin`) also when KWin's input method
  /// is not the agent's.
  static func describe(_ sources: String?, focusSource: String? = nil) -> String {
    let missing =
      focusSource == "kwin" && !(sources ?? "").split(separator: "+").contains("kwin")
      ? "; KWin's input method is not vkbd's, so vkbd falls back to AT-SPI "
        + "(vkbd-agent --setup-kwin, where no other input method is set)" : ""
    guard let sources, !sources.isEmpty else {
      return "no field source: the field's role and text come from nothing (the app rules follow the window)"
        + missing
    }
    let parts = sources.split(separator: "+").map { name in
      switch name {
      case "input-method":
        "the compositor's input method (role and text of every app that speaks text-input-v3, GTK 3 and foot among them)"
      case "gnome-shell":
        "GNOME Shell's input method (role and text of every app that speaks text-input-v3, GTK 3 and 4 among them), "
          + "and IBus's panel (the role of IBus's own clients)"
      case "kwin":
        "KWin's input method (role and text of every app that speaks text-input-v2 or v3, GTK 3 and Qt 5 among them)"
      case "ibus":
        "IBus's bus (the role of every IBus client's field, GTK's and Qt's IBus modules among them, not its text)"
      case "at-spi": "AT-SPI (role and text where the app has an accessibility bridge: GTK 3 in practice)"
      default: String(name)
      }
    }
    return "fields from " + parts.joined(separator: ", then ") + missing
  }
}
