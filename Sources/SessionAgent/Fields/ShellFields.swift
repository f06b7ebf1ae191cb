import AgentProtocol
import CSystemd

/// The focused text field as the GNOME Shell extension and the agent as KWin's
/// input method report it.
extension ShellBridge {
  /// One FieldChanged call.
  struct ShellField: Equatable {
    /// `input-method` (Clutter's purpose and hints), `ibus` (IBus's), or
    /// empty: no text field has the focus.
    var kind: String
    var purpose: UInt32
    var hints: UInt32
    /// The last characters before the cursor; nil: the field sent none.
    var before: String?
    var isFieldStart: Bool
  }

  /// Why a report is refused: the log says it once per kind.
  enum RefusedField: String, Error {
    case kind = "a field report of a kind this agent does not know"
    case purpose = "a text field of a purpose this agent does not know (a newer GNOME?)"
    case text = "a field report with more text than the extension sends"
  }

  /// The report for what was sent, or why it is refused (the
  /// last report stays). A secret field's text is never passed on.
  static func report(for field: ShellField, source: String) -> Result<FieldReport, RefusedField> {
    let role: FieldRole?
    switch field.kind {
    case "": return .success(FieldReport(source: source))
    case "input-method": role = ContentType.clutter(purpose: field.purpose, hints: field.hints)
    case "ibus": role = ContentType.ibus(purpose: field.purpose, hints: field.hints)
    default: return .failure(.kind)
    }
    guard let role else { return .failure(.purpose) }
    var report = FieldReport(source: source, role: role)
    guard !report.isSecret else { return .success(report) }
    if field.kind == "ibus" { report.takeIBusHints(field.hints) } else { report.takeTextInputHints(field.hints) }
    guard let before = field.before else { return .success(report) }
    guard before.unicodeScalars.count <= AgentProtocol.maximumFieldText else { return .failure(.text) }
    report.before = before
    report.isFieldStart = field.isFieldStart
    return .success(report)
  }

  /// Reads a FieldChanged call and reports the field when it changed;
  /// false when the call is not one (the caller answers EINVAL).
  func takeField(_ message: OpaquePointer) -> Bool {
    guard let kind = DBus.readString(message), let purpose = DBus.readUInt32(message),
      let hints = DBus.readUInt32(message), let hasText = DBus.readBool(message),
      let before = DBus.readString(message), let start = DBus.readBool(message)
    else { return false }
    let field = ShellField(
      kind: kind, purpose: purpose, hints: hints, before: hasText ? before : nil, isFieldStart: start)
    switch Self.report(for: field, source: name) {
    case .failure(let refused):
      if loggedBadFields.insert(refused.rawValue).inserted {
        logger.notice("\(refused.rawValue): ignored, the last field stays")
      }
    case .success(let report):
      guard report != lastField else { break }
      if report.role != lastField?.role || report.capitals != lastField?.capitals
        || report.correction != lastField?.correction
      {
        logger.debug(
          "text field",
          metadata: [
            "role": "\(report.role?.rawValue ?? "none")", "kind": "\(kind)", "purpose": "\(purpose)",
            "hints": "\(hints)",
          ])
      }
      lastField = report
      onField(report)
    }
    return true
  }
}
