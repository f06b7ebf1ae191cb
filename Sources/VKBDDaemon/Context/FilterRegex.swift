import KeyboardEngine

/// A regex that picks windows: an app rule's `app` and `title`, an espanso
/// app config's `filter_class`, `filter_title` and `filter_exec`. The same
/// dialect as triggers (espanso's, ``RegexParser``), compiled by PCRE2,
/// searched anywhere in a name or a title (anchor it with `^…$` to match
/// a whole one). Unlike a trigger, it may match the empty string.
final class FilterRegex: CustomStringConvertible, @unchecked Sendable {
  /// The pattern as written.
  let pattern: String
  private let code: PCRE2Code

  /// Compiles `pattern`; throws what is wrong with it, and where.
  init(_ pattern: String) throws(RegexError) {
    code = try ParsedPattern(pattern, endAnchored: false, refusingEmpty: false).code
    self.pattern = pattern
  }

  /// Whether it matches somewhere in `text`. (Focus reports are few: the
  /// match data is made for each.)
  func matches(_ text: String) -> Bool {
    let scalars = text.unicodeScalars.map(\.value)
    return scalars.withUnsafeBufferPointer { code.search($0, data: PCRE2MatchData(groups: 0)) } != nil
  }

  var description: String { pattern }
}
