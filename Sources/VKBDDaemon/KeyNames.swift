import CEvdev
import KeyboardEngine

/// Key names and chords, one grammar for every place vkbd reads them
/// (`toggle_key`, `picker.shortcut`, simulate's `tap`): evdev's names as
/// libevdev knows them, with or without `KEY_`, in any case (`leftctrl`,
/// `KEY_SPACE`, `f5`), or a modifier's short name (`ctrl`, `alt`, `shift`,
/// `meta`, `super`, `cmd`: the left key; `altgr`: the right Alt), joined
/// with `+` or `-`.
enum KeyNames {
  /// The short names and the key each stands for.
  static let shortNames: [(name: String, code: UInt16)] = [
    ("ctrl", UInt16(KEY_LEFTCTRL)), ("control", UInt16(KEY_LEFTCTRL)), ("alt", UInt16(KEY_LEFTALT)),
    ("shift", UInt16(KEY_LEFTSHIFT)), ("meta", UInt16(KEY_LEFTMETA)), ("super", UInt16(KEY_LEFTMETA)),
    ("cmd", UInt16(KEY_LEFTMETA)), ("altgr", UInt16(KEY_RIGHTALT)),
  ]

  /// The code of `name` (`libevdev_event_code_from_name`, or a short name).
  static func code(of name: some StringProtocol) -> UInt16? {
    let lowered = name.lowercased()
    if let short = shortNames.first(where: { $0.name == lowered }) { return short.code }
    var upper = lowered.uppercased()
    if !upper.hasPrefix("KEY_") && !upper.hasPrefix("BTN_") { upper = "KEY_" + upper }
    let code = libevdev_event_code_from_name(UInt32(EV_KEY), upper)
    return code < 0 ? nil : UInt16(code)
  }

  /// A chord or shortcut that cannot be read, and why.
  struct BadChord: Error {
    var message: String
  }

  /// What every message about a name ends with.
  static let grammar = "evdev's key names, like leftctrl, space or f5, or ctrl, alt, shift, meta, altgr; joined with + or -"

  /// The names of a chord as written.
  static func names<Text: StringProtocol>(_ text: Text) -> [Text.SubSequence] {
    text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "+" || $0 == "-" })
  }

  /// The codes of a chord written `leftctrl+v` or `ctrl-alt-p`, in order.
  static func chord(_ text: some StringProtocol) throws(BadChord) -> [UInt16] {
    let names = names(text)
    var codes: [UInt16] = []
    for name in names {
      guard let code = code(of: name) else {
        throw BadChord(
          message: name.isEmpty
            ? "'\(text)' has an empty key name (\(grammar))" : "unknown key name '\(name)' in '\(text)' (\(grammar))")
      }
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

  /// The modifier a modifier key sets, either side (`leftalt`, `rightalt`
  /// and `alt` are Alt); nil for any other key.
  static func modifier(of code: UInt16) -> Shortcut.Modifiers? {
    switch Int32(code) {
    case KEY_LEFTCTRL, KEY_RIGHTCTRL: .control
    case KEY_LEFTALT, KEY_RIGHTALT: .alt
    case KEY_LEFTSHIFT, KEY_RIGHTSHIFT: .shift
    case KEY_LEFTMETA, KEY_RIGHTMETA: .meta
    default: nil
    }
  }

  /// A shortcut: a chord whose keys before the last are modifier keys
  /// (either side counts), as `alt-space`, `leftctrl+shift+p` or
  /// espanso's `ALT+SPACE`; `off` or empty for none.
  static func shortcut(_ text: String) throws(BadChord) -> Shortcut? {
    guard !text.isEmpty, text.lowercased() != "off" else { return nil }
    let codes = try chord(text)
    var modifiers: Shortcut.Modifiers = []
    for (name, code) in zip(names(text), codes).dropLast() {
      guard let modifier = modifier(of: code) else {
        throw BadChord(message: "'\(name)' is not a modifier key (ctrl, alt, shift, meta, either side) in '\(text)'")
      }
      modifiers.insert(modifier)
    }
    return Shortcut(key: codes[codes.count - 1], modifiers: modifiers)
  }
}
