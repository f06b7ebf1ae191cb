import Glibc

/// A POSIX extended regular expression (regex(7), as `grep -E` reads it),
/// compiled once (`regcomp`) and freed with its owner (`regfree`). A
/// leading `(?i)`, as in PCRE, makes it ignore case (REG_ICASE). Matching
/// is on UTF-8 bytes. Immutable once compiled, and `regexec` is safe on
/// one compiled expression from several threads (POSIX).
final class Pattern: CustomStringConvertible, @unchecked Sendable {
  /// The expression as written.
  let source: String
  private var compiled = regex_t()

  /// Compiles `source`; throws regerror's message.
  init(_ source: String) throws(PatternError) {
    self.source = source
    var flags = REG_EXTENDED | REG_NOSUB
    var expression = Substring(source)
    if expression.hasPrefix("(?i)") {
      flags |= REG_ICASE
      expression = expression.dropFirst(4)
    }
    let status = regcomp(&compiled, String(expression), flags)
    guard status == 0 else {
      var message = [CChar](repeating: 0, count: 256)
      regerror(status, &compiled, &message, message.count)
      throw PatternError(
        message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
  }

  deinit { regfree(&compiled) }

  /// Whether the expression matches somewhere in `text` (`regexec`).
  func matches(_ text: String) -> Bool {
    regexec(&compiled, text, 0, nil, 0) == 0
  }

  var description: String { source }
}

/// Why an expression does not compile.
struct PatternError: Error {
  var message: String
}
