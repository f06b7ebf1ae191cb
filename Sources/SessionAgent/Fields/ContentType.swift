import AgentProtocol

/// What a field's content type (its purpose and hints) says of its role,
/// in the numbering of each protocol that carries one. A secret field is
/// a purpose as often as a hint: Qt sends a password field as a normal one
/// with the hidden-text and sensitive-data hints. A purpose the table does
/// not know (a newer desktop's) gives nil, unless the hints say secret:
/// the source keeps the last field it knew and says so.
enum ContentType {
  /// Hint bits of zwp_text_input_v1 and v3 and of Clutter, which agree.
  static let spellcheck: UInt32 = 0x2
  static let autoCapitalization: UInt32 = 0x4
  static let lowercase: UInt32 = 0x8
  static let hiddenText: UInt32 = 0x40
  static let sensitiveData: UInt32 = 0x80
  static let multiline: UInt32 = 0x200

  /// IBus's hint bits (GTK's input hints).
  enum IBusHint {
    static let spellcheck: UInt32 = 1 << 0
    static let noSpellcheck: UInt32 = 1 << 1
    static let lowercase: UInt32 = 1 << 3
    static let uppercaseSentences: UInt32 = 1 << 6
  }

  /// zwp_text_input_v3's, which input-method-unstable-v2 passes on: normal,
  /// alpha, digits, number, phone, url, email, name, password, pin, date,
  /// time, datetime, terminal (0 to 13).
  static func textInputV3(purpose: UInt32, hints: UInt32) -> FieldRole? {
    let roles: [FieldRole?] = [
      nil, nil, .number, .number, .number, .url, .email, nil, .password, .pin, .number, .number, .number, .terminal,
    ]
    return role(purpose, in: roles, hints: hints)
  }

  /// Clutter's (GNOME Shell's input method) and zwp_text_input_v1's (what
  /// KWin's input method hears): as text-input-v3's without pin, so
  /// terminal is 12. Mutter passes a text-input-v3 pin on as normal, with
  /// the hints GTK gives it.
  static func clutter(purpose: UInt32, hints: UInt32) -> FieldRole? {
    let roles: [FieldRole?] = [
      nil, nil, .number, .number, .number, .url, .email, nil, .password, .number, .number, .number, .terminal,
    ]
    return role(purpose, in: roles, hints: hints)
  }

  /// IBus's (GTK's input purpose): free form, alpha, digits, number, phone,
  /// url, email, name, password, pin, terminal (0 to 10). Its hints say
  /// nothing of secrets or lines: a free-form field is taken as text.
  static func ibus(purpose: UInt32, hints: UInt32) -> FieldRole? {
    let roles: [FieldRole?] = [nil, nil, .number, .number, .number, .url, .email, nil, .password, .pin, .terminal]
    guard Int(purpose) < roles.count else { return nil }
    return roles[Int(purpose)] ?? .text
  }

  /// The role a table gives `purpose`; a free-form purpose (nil in the
  /// table) is text or an entry by its hints; any with a secret hint is a
  /// password.
  private static func role(_ purpose: UInt32, in roles: [FieldRole?], hints: UInt32) -> FieldRole? {
    let secret = hints & (hiddenText | sensitiveData) != 0
    guard Int(purpose) < roles.count else { return secret ? .password : nil }
    let role = roles[Int(purpose)]
    if role == .password || role == .pin { return role }
    if secret { return .password }
    return role ?? (hints & multiline != 0 ? .text : .entry)
  }
}

extension FieldReport {
  /// Takes what text-input's or Clutter's hints ask of the typing aids:
  /// the auto-capitalization hint asks for capitals, the lowercase one
  /// for none; the spellcheck hint asks for correction. No hint refuses
  /// correction: a missing one says nothing (``FieldSources`` reads it
  /// against the application's other fields).
  mutating func takeTextInputHints(_ hints: UInt32) {
    capitals =
      hints & ContentType.lowercase != 0 ? false : hints & ContentType.autoCapitalization != 0 ? true : nil
    correction = hints & ContentType.spellcheck != 0 ? true : nil
  }

  /// Takes what IBus's (GTK's) hints ask: spellcheck, no spellcheck,
  /// lowercase, capitals at each sentence's start.
  mutating func takeIBusHints(_ hints: UInt32) {
    capitals =
      hints & ContentType.IBusHint.lowercase != 0
      ? false : hints & ContentType.IBusHint.uppercaseSentences != 0 ? true : nil
    correction =
      hints & ContentType.IBusHint.noSpellcheck != 0
      ? false : hints & ContentType.IBusHint.spellcheck != 0 ? true : nil
  }
}
