import CEvdev
import KeyboardEngine

/// Evdev key names, as libevdev knows them (`KEY_A`, `KEY_LEFTCTRL`).
enum KeyNames {
  /// The code of `name`, with or without `KEY_`, any case (`libevdev_event_code_from_name`).
  static func code(of name: some StringProtocol) -> UInt16? {
    var upper = name.uppercased()
    if !upper.hasPrefix("KEY_") && !upper.hasPrefix("BTN_") { upper = "KEY_" + upper }
    let code = libevdev_event_code_from_name(UInt32(EV_KEY), upper)
    return code < 0 ? nil : UInt16(code)
  }

  /// A key name libevdev does not know.
  struct UnknownName: Error {
    var name: String
  }

  /// The codes of a chord written `leftctrl+v`.
  static func chord(_ text: some StringProtocol) throws(UnknownName) -> [UInt16] {
    var codes: [UInt16] = []
    for name in text.split(separator: "+", omittingEmptySubsequences: false) {
      guard let code = code(of: name) else { throw UnknownName(name: String(name)) }
      codes.append(code)
    }
    return codes
  }

  /// The name of `code` (`libevdev_event_code_get_name`), or its number.
  static func name(of code: UInt16) -> String {
    guard let name = libevdev_event_code_get_name(UInt32(EV_KEY), UInt32(code)) else {
      return "KEY_\(code)"
    }
    return String(cString: name)
  }

  /// A shortcut that cannot be read, and why.
  struct BadShortcut: Error {
    var message: String
  }

  /// A shortcut written `alt-space`, `ctrl+shift+p` or espanso's
  /// `ALT+SPACE`: modifiers (ctrl, alt, shift, meta or super), then one
  /// key; `off` or empty for none.
  static func shortcut(_ text: String) throws(BadShortcut) -> Shortcut? {
    let lowered = text.lowercased()
    guard !lowered.isEmpty, lowered != "off" else { return nil }
    let parts = lowered.split(whereSeparator: { $0 == "-" || $0 == "+" })
    guard let last = parts.last else { throw BadShortcut(message: "'\(text)' names no key") }
    var modifiers: Shortcut.Modifiers = []
    for name in parts.dropLast() {
      guard let modifier = Shortcut.Modifiers.names.first(where: { $0.name == name })?.modifier else {
        throw BadShortcut(message: "'\(name)' is not a modifier (ctrl, alt, shift, meta) in '\(text)'")
      }
      modifiers.insert(modifier)
    }
    guard let key = code(of: last) else {
      throw BadShortcut(message: "unknown key name '\(last)' in '\(text)' (a shortcut like alt-space)")
    }
    return Shortcut(key: key, modifiers: modifiers)
  }
}
