import CEvdev
import CKeyboard
import KeyboardEngine

/// A text field in an application on a desktop: it receives the virtual
/// keyboard's events, decodes them with the same keymap, and edits its text.
/// Like a desktop, it repeats a held key itself.
struct TextField {
  /// The desktop's key repeat: first repeat, then the interval.
  static let repeatDelay: Int64 = 250
  static let repeatInterval: Int64 = 33

  private let decoder: KeystrokeDecoder
  private(set) var characters: [Unicode.Scalar] = []
  private(set) var cursor = 0
  /// The key the desktop is repeating and when it repeats next.
  private var repeating: (code: UInt16, next: Instant)?
  /// The hex digits typed since Ctrl+Shift+U, while code point input is on
  /// (GTK's and IBus's: the digits, then Space or Enter commits).
  private var codePoint: [Unicode.Scalar]?

  init(layout: Layout) { decoder = KeystrokeDecoder(layout: layout) }

  /// The field's content is `text`, with the cursor at its end.
  mutating func set(_ text: String) {
    characters = Array(text.unicodeScalars)
    cursor = characters.count
  }

  /// The text before the cursor.
  var textBeforeCursor: String { String(scalars: characters[..<cursor]) }

  /// The desktop switched to `layout` with `group` locked: the field
  /// decodes what follows with it.
  mutating func follow(_ layout: Layout, group: Int) {
    decoder.follow(layout, group: group, down: [])
  }

  /// The field's text.
  var text: String {
    var view = String.UnicodeScalarView()
    view.append(contentsOf: characters)
    return String(view)
  }

  /// Receives one event from the virtual keyboard at `time`.
  mutating func receive(_ key: OutputKey, at time: Instant) {
    repeatHeldKey(until: time)
    switch key.value {
    case .down:
      let edit = decoder.feed(code: key.code, value: .down)
      apply(edit)
      if edit != .none { repeating = (key.code, time.adding(milliseconds: Self.repeatDelay)) }
    case .up:
      _ = decoder.feed(code: key.code, value: .up)
      if repeating?.code == key.code { repeating = nil }
    case .repeat:
      break  // the desktop ignores the kernel's repeats and makes its own
    }
  }

  /// Lets the desktop's repeat run until `time`.
  mutating func repeatHeldKey(until time: Instant) {
    while let (code, next) = repeating, next < time {
      apply(decoder.edit(forPress: code))
      repeating = (code, next.adding(milliseconds: Self.repeatInterval))
    }
  }

  private mutating func apply(_ edit: TextEdit) {
    if case .shortcut(let keysym) = edit, keysym == UInt32(XKB_KEY_U) {  // Ctrl+Shift+U
      codePoint = []
      return
    }
    if let digits = codePoint {
      inputCodePoint(digits, edit)
      return
    }
    switch edit {
    case .insert(let character):
      characters.insert(character, at: cursor)
      cursor += 1
    case .backspace:
      guard cursor > 0 else { return }
      var start = cursor - 1
      while start > 0, TextModel.isCombining(characters[start]) { start -= 1 }
      characters.removeSubrange(start..<cursor)
      cursor = start
    case .delete:
      guard cursor < characters.count else { return }
      var end = cursor + 1
      while end < characters.count, TextModel.isCombining(characters[end]) { end += 1 }
      characters.removeSubrange(cursor..<end)
    case .move(.left):
      if cursor > 0 { cursor -= 1 }
    case .move(.right):
      if cursor < characters.count { cursor += 1 }
    case .move(.home):
      while cursor > 0, characters[cursor - 1] != "\n" { cursor -= 1 }
    case .move(.end):
      while cursor < characters.count, characters[cursor] != "\n" { cursor += 1 }
    case .move, .shortcut, .unknown, .none:
      break
    }
  }

  /// One edit while code point input is on.
  private mutating func inputCodePoint(_ digits: [Unicode.Scalar], _ edit: TextEdit) {
    switch edit {
    case .none:
      return
    case .insert(let digit) where digit.properties.isASCIIHexDigit && digits.count < 8:
      codePoint = digits + [digit]
    case .insert(" "), .insert("\n"):
      codePoint = nil
      if let value = UInt32(String(scalars: digits), radix: 16), let character = Unicode.Scalar(value) {
        apply(.insert(character))
      }
    case .backspace:
      codePoint = digits.isEmpty ? nil : Array(digits.dropLast())
    default:
      codePoint = nil  // anything else cancels
    }
  }
}
