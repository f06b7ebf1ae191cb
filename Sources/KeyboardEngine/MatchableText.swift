/// Text that triggers are matched against: the text model, or the model seen
/// through the last expansion (``TextBeforeExpansion``).
public protocol MatchableText {
  /// How many characters are known before the cursor.
  var count: Int { get }
  /// Whether characters fell off the front (its start is not a field's).
  var isTruncated: Bool { get }
  /// The character `offset` places before the cursor, as the application has it.
  subscript(fromEnd offset: Int) -> Unicode.Scalar { get }
  /// The character the user's key typed there (lowercase where the engine
  /// typed the capital).
  subscript(typedFromEnd offset: Int) -> Unicode.Scalar { get }
  /// Whether the engine capitalized the character there.
  func isAutoCapitalized(fromEnd offset: Int) -> Bool
}

extension TextModel: MatchableText {}
