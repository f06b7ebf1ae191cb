import KeyboardEngine

/// The texts of espanso's match files: references to variables (`{{name}}`,
/// `{{name.field}}`), split out of a replacement or a parameter into a
/// ``Template``, and a form's `[[field]]` holes.
enum Templates {
  /// A reference to a variable no `vars` entry defines.
  struct UndefinedVariable: Error {
    var name: String
  }

  /// A reference in a text: `{{name}}` or `{{name.field}}`, with word
  /// characters and optional spaces inside the braces (espanso's rule; any
  /// other `{{…}}` is text).
  struct Reference: Equatable {
    var range: Range<String.Index>
    var name: String
    var field: String?
  }

  /// Whether `text` has `{{` in it, where a reference starts: a text
  /// without has none to split (a byte scan, for every match loaded).
  static func mayHaveReferences(_ text: String) -> Bool {
    var previous: UInt8 = 0
    for byte in text.utf8 {
      if byte == UInt8(ascii: "{") && previous == byte { return true }
      previous = byte
    }
    return false
  }

  /// The references in `text`, in order.
  static func references(in text: String) -> [Reference] {
    var result: [Reference] = []
    var rest = Substring(text)
    while let open = firstRange(of: "{{", in: rest) {
      guard let close = firstRange(of: "}}", in: rest[open.upperBound...]) else { break }
      let inside = rest[open.upperBound..<close.lowerBound].trimmingSpaces
      let parts = inside.split(separator: ".", omittingEmptySubsequences: false)
      if (1...2).contains(parts.count),
        parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(isWordCharacter) })
      {
        result.append(
          Reference(
            range: open.lowerBound..<close.upperBound, name: String(parts[0]),
            field: parts.count == 2 ? String(parts[1]) : nil))
        rest = rest[close.upperBound...]
      } else {
        rest = rest[rest.index(after: open.lowerBound)...]  // `{{{x}}`: the reference may start one brace later
      }
    }
    return result
  }

  static func isWordCharacter(_ character: Unicode.Scalar) -> Bool {
    character == "_" || character.properties.isAlphabetic || character.properties.numericType == .decimal
  }

  /// Splits a text at its references to the variables in `scope`. In the
  /// replacement (`strict`), a reference to no variable is an error (the
  /// name it refers to); in a parameter it stays as text. espanso's escapes `\{\{` and `\}\}` are
  /// braces. A text with no reference is not unescaped (as in espanso).
  static func split(_ text: String, scope: [String: Int], strict: Bool) -> Result<Template, UndefinedVariable> {
    let references = Self.references(in: text)
    guard !references.isEmpty else { return .success(Template(text)) }
    var parts: [Template.Part] = []
    var position = text.startIndex
    func literal(_ text: Substring) {
      guard !text.isEmpty else { return }
      let unescaped = String(text).replacing("\\{\\{", with: "{{").replacing("\\}\\}", with: "}}")
      if case .text(let before)? = parts.last {
        parts[parts.count - 1] = .text(before + unescaped)
      } else {
        parts.append(.text(unescaped))
      }
    }
    for reference in references {
      literal(text[position..<reference.range.lowerBound])
      position = reference.range.upperBound
      guard let index = scope[reference.name] else {
        if strict { return .failure(UndefinedVariable(name: reference.name)) }
        literal(text[reference.range])
        continue
      }
      parts.append(.value(index, field: reference.field))
    }
    literal(text[position...])
    return .success(Template(parts: parts))
  }

  /// Where the two ASCII characters `marker` first stand in `text`: a plain
  /// walk over its UTF-8, where the generic `firstRange(of:)` costs some
  /// thousands of instructions a call (a third of loading 1,000 snippets).
  static func firstRange(of marker: StaticString, in text: Substring) -> Range<String.Index>? {
    precondition(marker.utf8CodeUnitCount == 2 && marker.isASCII)
    let (first, second) = (marker.utf8Start[0], marker.utf8Start[1])
    let utf8 = text.utf8
    var index = utf8.startIndex
    while index < utf8.endIndex {
      let next = utf8.index(after: index)
      if utf8[index] == first && next < utf8.endIndex && utf8[next] == second {
        return index..<utf8.index(after: next)
      }
      index = next
    }
    return nil
  }

  /// The `[[field]]` names of a form's layout, in order, once each.
  static func formFieldNames(_ layout: String) -> [String] {
    var names: [String] = []
    for hole in formHoles(layout) where !names.contains(hole.name) { names.append(hole.name) }
    return names
  }

  private static func formHoles(_ layout: String) -> [(range: Range<String.Index>, name: String)] {
    var result: [(Range<String.Index>, String)] = []
    var rest = Substring(layout)
    while let open = firstRange(of: "[[", in: rest), let close = firstRange(of: "]]", in: rest[open.upperBound...]) {
      let name = rest[open.upperBound..<close.lowerBound].trimmingSpaces
      if !name.isEmpty && name.unicodeScalars.allSatisfy(isWordCharacter) {
        result.append((open.lowerBound..<close.upperBound, String(name)))
        rest = rest[close.upperBound...]
      } else {
        rest = rest[rest.index(after: open.lowerBound)...]
      }
    }
    return result
  }

  /// The replacement of a `form:` match: its layout with each `[[field]]`
  /// the form variable's field.
  static func formReplacement(_ layout: String, variable: String) -> String {
    var result = ""
    var position = layout.startIndex
    for hole in formHoles(layout) {
      result += layout[position..<hole.range.lowerBound]
      result += "{{\(variable).\(hole.name)}}"
      position = hole.range.upperBound
    }
    return result + layout[position...]
  }
}
