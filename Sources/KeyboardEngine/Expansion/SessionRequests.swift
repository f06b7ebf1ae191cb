/// Something the host should log (without typed text).
public enum EngineNotice: Equatable, Sendable, CustomStringConvertible {
  /// A snippet fired but a character of its replacement has no key on the
  /// layout and `unicode_input` is `none`: the trigger stays as typed.
  case expansionRefused(origin: String, layout: String)
  /// A snippet's session variable got no value: the trigger stays as typed.
  case sessionVariableFailed(origin: String, reason: SessionFailure)

  /// The notice as a log line.
  public var description: String {
    switch self {
    case .expansionRefused(let origin, let layout):
      return "snippet at \(origin) not typed: layout \(layout) has no key for a character "
        + "of its replacement and unicode_input is none"
    case .sessionVariableFailed(let origin, let reason):
      return "snippet at \(origin) not typed: \(reason)"
    }
  }
}

/// Why a session variable got no value.
public enum SessionFailure: Error, Equatable, Sendable, CustomStringConvertible {
  /// No session agent of the active user is connected.
  case noAgent
  /// No answer within the timeout.
  case timedOut
  /// The agent could not work it out (a program failed, a dialog was
  /// cancelled): its reason, which carries no typed text.
  case failed(String)

  public var description: String {
    switch self {
    case .noAgent: "its variables need the user's session agent, and none is connected"
    case .timedOut: "the session agent did not answer in time"
    case .failed(let reason): "the session agent could not work out a variable: \(reason)"
    }
  }
}

/// What the engine asks the user's session for: one variable's value.
public struct SessionRequest: Equatable, Sendable {
  /// Matches the answer to the question.
  public var id: UInt32
  public var call: SessionCall
  /// The values worked out before it, by name (espanso gives them to
  /// programs as `ESPANSO_NAME`, a form's fields as `ESPANSO_NAME_FIELD`).
  public var environment: [String: String]
}
