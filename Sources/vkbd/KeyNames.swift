import CEvdev

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
}
