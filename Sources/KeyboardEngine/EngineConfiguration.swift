import CKeyboard

/// What the engine does, as the config file sets it. The defaults are the
/// product's defaults (DESIGN 3).
public struct EngineConfiguration: Equatable, Sendable {
  /// False: a pure pass-through, as when paused (an app rule's `enabled`).
  public var enabled = true
  /// Whether snippets expand; false keeps the typing aids (an app rule's
  /// `snippets`).
  public var expandsSnippets = true
  /// Match files whose snippets do not fire here (an espanso app config's
  /// match set leaves them out).
  public var snippetFilesOff: Set<String> = []
  /// Auto-capitalization (DESIGN 3.2).
  public var autocapitalize = true
  /// Rule 6's option: treat the start of the text model after a reset as the
  /// start of a field, where caps is due.
  public var capitalizeAfterReset = false
  /// An empty field, as a session agent reports it, capitalizes its first
  /// letter (`autocapitalize_field_start`).
  public var capitalizeFieldStart = true
  /// The double-space period (DESIGN 3.3).
  public var doubleSpacePeriod = true
  /// The double-space window, key-down to key-down.
  public var doubleSpaceTimeoutMilliseconds: Int64 = 1100
  /// Autocorrect at the end of a word, with the engine's ``Spelling``
  /// (DESIGN 9); only where a session agent says what has the focus.
  public var autocorrect = true
  /// Typographic quotes, dashes and ellipses (DESIGN 9).
  public var smartPunctuation = true
  /// The quotation marks smart punctuation types.
  public var quotes = QuoteStyle.english
  /// The daemon's own Backspace repeat (DESIGN 3.4).
  public var backspace = BackspaceConfiguration()
  /// How expansions are typed (DESIGN 3.5).
  public var expansion = ExpansionConfiguration()
  /// The keys that pause and resume the engine when held together; empty: none.
  public var toggleChord: [UInt16] = []
  /// The chord that opens and closes the snippet picker (DESIGN 8); nil: none.
  public var pickerShortcut: Shortcut? = Shortcut(key: UInt16(KEY_SPACE), modifiers: .alt)

  /// The defaults.
  public init() {}

  /// Every typing aid off: pure pass-through.
  /// Whether anything needs the text and the keymap state: an aid, or
  /// snippets when there are some. Without, keys pass through undecoded.
  func needsDecoding(hasSnippets: Bool) -> Bool {
    enabled
      && (autocapitalize || doubleSpacePeriod || backspace.accelerate || autocorrect || smartPunctuation
        || (expandsSnippets && hasSnippets))
  }

  public static var allOff: EngineConfiguration {
    var configuration = EngineConfiguration()
    configuration.autocapitalize = false
    configuration.doubleSpacePeriod = false
    configuration.backspace.accelerate = false
    configuration.autocorrect = false
    configuration.smartPunctuation = false
    return configuration
  }
}

/// The daemon's Backspace repeat, which accelerates from characters to words.
public struct BackspaceConfiguration: Equatable, Sendable {
  /// False: Backspace passes through untouched and the desktop repeats it.
  public var accelerate = true
  public var repeatDelayMilliseconds: Int64 = 400
  public var repeatIntervalMilliseconds: Int64 = 50
  /// Repeated characters before the repeat deletes whole words.
  public var wordsAfter = 20
  public var wordIntervalMilliseconds: Int64 = 250

  /// The defaults.
  public init() {}
}

/// How the engine types expansions.
public struct ExpansionConfiguration: Equatable, Sendable {
  /// What to do with a character the layout has no key for.
  public enum UnicodeInput: String, Equatable, Sendable, CaseIterable {
    /// Ctrl+Shift+U, the code point in hex, Space: GTK's and IBus's input.
    case ctrlShiftU = "ctrl-shift-u"
    /// Do not start the expansion: the trigger stays as typed.
    case none
  }

  /// The keys a newline in a replacement types.
  public enum Newline: String, Equatable, Sendable, CaseIterable {
    case enter
    /// Shift+Enter: a line break where Enter sends (chat applications).
    case shiftEnter = "shift-enter"
  }

  public var unicodeInput = UnicodeInput.ctrlShiftU
  public var newline = Newline.enter
  /// Backspace as the very next key after an expansion types the trigger back.
  public var undoBackspace = true
  /// Key events per burst. Each goes out as an event and a SYN_REPORT, and
  /// the kernel keeps 64 events for each reader of a keyboard
  /// (EVDEV_MIN_BUFFER_SIZE; one more and the reader gets SYN_DROPPED and
  /// loses keys). Two bursts of 15 are 60 events: a reader that misses a
  /// whole gap, as a compositor busy drawing a frame does, loses nothing.
  public var burstKeys = 15
  /// The wait between bursts, for readers to drain their buffer. With 15
  /// keys, a reader away for up to two gaps (16 ms, a frame at 60 Hz) keeps
  /// up; about 900 characters a second.
  public var burstGapMilliseconds: Int64 = 8
  /// How long a snippet waits for the session agent's value of a variable
  /// (shell, script, clipboard) before it gives up and leaves its trigger.
  public var sessionTimeoutMilliseconds: Int64 = 2000
  /// A replacement longer than this many characters is pasted through the
  /// clipboard by the session agent, when one is connected (0: never).
  public var clipboardThreshold = 100
  /// The chord that pastes in the application.
  public var pasteShortcut = PasteShortcut.ctrlV

  /// The paste chords applications know.
  public enum PasteShortcut: String, Equatable, Sendable, CaseIterable {
    case ctrlV = "ctrl-v"
    /// Terminals.
    case ctrlShiftV = "ctrl-shift-v"
    case shiftInsert = "shift-insert"
  }

  /// The defaults.
  public init() {}
}

/// A key with modifiers held, either side (Alt: the left one, or the right
/// one where it is not AltGr): `alt-space`.
public struct Shortcut: Equatable, Sendable {
  public var key: UInt16
  public var modifiers: Modifiers

  public init(key: UInt16, modifiers: Modifiers) {
    self.key = key
    self.modifiers = modifiers
  }

  public struct Modifiers: OptionSet, Equatable, Sendable {
    public var rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let control = Modifiers(rawValue: 1)
    public static let alt = Modifiers(rawValue: 2)
    public static let shift = Modifiers(rawValue: 4)
    public static let meta = Modifiers(rawValue: 8)
  }
}

/// The quotation marks of a language: double and single, opening and closing.
public struct QuoteStyle: Equatable, Sendable {
  public var open: Unicode.Scalar
  public var close: Unicode.Scalar
  public var openSingle: Unicode.Scalar
  public var closeSingle: Unicode.Scalar

  public static let english = QuoteStyle(open: "“", close: "”", openSingle: "‘", closeSingle: "’")
  public static let german = QuoteStyle(open: "„", close: "“", openSingle: "‚", closeSingle: "‘")
  public static let french = QuoteStyle(open: "«", close: "»", openSingle: "‹", closeSingle: "›")

  /// The style of a language (`de_DE`, `fr`, `en_US`): German's for German,
  /// the guillemets for French and Russian, the English marks otherwise.
  public init(language: String) {
    switch language.prefix(2) {
    case "de": self = .german
    case "fr", "ru": self = .french
    default: self = .english
    }
  }

  public init(open: Unicode.Scalar, close: Unicode.Scalar, openSingle: Unicode.Scalar, closeSingle: Unicode.Scalar) {
    self.open = open
    self.close = close
    self.openSingle = openSingle
    self.closeSingle = closeSingle
  }
}
