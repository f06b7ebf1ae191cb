/// Reads typed values out of a YAML tree, collecting every problem with its
/// file, line and column instead of stopping at the first.
struct YAMLReader {
  let file: String
  private(set) var problems: [ConfigProblem] = []
  /// What is skipped but does not stop the file from loading.
  private(set) var warnings: [ConfigProblem] = []

  init(file: String) { self.file = file }

  /// Parses YAML text into a tree; nil (with a problem) when it is not YAML,
  /// and nil when the file holds no document.
  mutating func compose(_ text: String) -> YAMLNode? {
    if let line = Self.lineNestingTooDeep(text) {
      problems.append(
        ConfigProblem(
          file: file, line: line, column: 1, message: "YAML nests deeper than \(Self.maximumNesting) levels",
          kind: .yaml))
      return nil
    }
    do {
      return try YAML.compose(text)
    } catch {
      problems.append(
        ConfigProblem(file: file, line: error.line, column: error.column, message: error.message, kind: .yaml))
      return nil
    }
  }

  /// Records a problem at `node` (or at the file's start when it has no place).
  mutating func report(_ message: String, at node: YAMLNode?, kind: ConfigProblem.Kind = .invalid) {
    problems.append(
      ConfigProblem(file: file, line: node?.line ?? 1, column: node?.column ?? 1, message: message, kind: kind))
  }

  /// Records a warning at `node`.
  mutating func warn(_ message: String, at node: YAMLNode?, kind: ConfigProblem.Kind) {
    warnings.append(
      ConfigProblem(file: file, line: node?.line ?? 1, column: node?.column ?? 1, message: message, kind: kind))
  }

  /// The entries of a mapping, checked against the keys allowed, with
  /// unknown keys reported (naming the `known` ones, by default all
  /// allowed). Nil when `node` is not a mapping. (A key cannot appear
  /// twice: the composer refuses that.)
  mutating func entries(
    of node: YAMLNode, named name: String, allowed: [String], known: [String]? = nil
  ) -> [(key: String, value: YAMLNode)]? {
    guard case .mapping(let mapping) = node.content else {
      report("\(name) must be a mapping of keys to values", at: node)
      return nil
    }
    var result: [(key: String, value: YAMLNode)] = []
    for (keyNode, value) in mapping {
      guard case .scalar(let key, _) = keyNode.content else {
        report("\(name): a key must be a plain name", at: keyNode)
        continue
      }
      guard allowed.contains(key) else {
        report("\(name): unknown key '\(key)' (known: \((known ?? allowed).joined(separator: ", ")))", at: keyNode)
        continue
      }
      result.append((key, value))
    }
    return result
  }

  /// A boolean (`true`/`false`).
  mutating func bool(_ node: YAMLNode, key: String) -> Bool? {
    if case .scalar(let text, plain: true) = node.content {
      switch text {
      case "true", "True", "TRUE": return true
      case "false", "False", "FALSE": return false
      default: break
      }
    }
    report("\(key) must be true or false", at: node)
    return nil
  }

  /// A whole number within `range`.
  mutating func integer(_ node: YAMLNode, key: String, in range: ClosedRange<Int64>) -> Int64? {
    if case .scalar(let text, plain: true) = node.content, let value = Int64(text) {
      guard range.contains(value) else {
        report("\(key) must be between \(range.lowerBound) and \(range.upperBound), not \(value)", at: node)
        return nil
      }
      return value
    }
    report("\(key) must be a whole number", at: node)
    return nil
  }

  /// A string that YAML reads as one: quoted, or plain but not a number,
  /// a boolean or null (`format: 7` is not a string).
  mutating func text(_ node: YAMLNode, key: String) -> String? {
    if case .scalar(let text, let plain) = node.content, !plain || !Self.isNonString(text) { return text }
    report("\(key) must be a string", at: node)
    return nil
  }

  /// Whether a plain scalar reads as a number, a boolean or null in YAML.
  static func isNonString(_ text: String) -> Bool {
    switch text {
    case "", "~", "null", "Null", "NULL", "true", "True", "TRUE", "false", "False", "FALSE": return true
    default:
      return Int64(text) != nil || (Double(text) != nil && text.first.map { $0.isNumber || "+-.".contains($0) } == true)
    }
  }

  /// A string: any scalar (so `layout: de` and `layout: "de"` both read).
  mutating func string(_ node: YAMLNode, key: String) -> String? {
    if case .scalar(let text, let plain) = node.content {
      return plain && (text == "~" || text == "null") ? "" : text
    }
    report("\(key) must be a string", at: node)
    return nil
  }

  /// One of an enumeration's raw values.
  mutating func choice<Choice: RawRepresentable & CaseIterable>(_ node: YAMLNode, key: String) -> Choice?
  where Choice.RawValue == String {
    guard let text = string(node, key: key) else { return nil }
    if let value = Choice(rawValue: text) { return value }
    let known = Choice.allCases.map(\.rawValue).joined(separator: ", ")
    report("\(key) must be one of \(known), not '\(text)'", at: node)
    return nil
  }

  /// A list; a single value stands for a list of one.
  mutating func list(_ node: YAMLNode, key: String) -> [YAMLNode]? {
    switch node.content {
    case .sequence(let items): return items
    case .scalar(let text, plain: true) where text.isEmpty || text == "null":
      return []  // `key:` with nothing after it
    case .scalar: return [node]
    default:
      report("\(key) must be a list", at: node)
      return nil
    }
  }

  /// The deepest nesting read. Deeper text is refused before it is parsed:
  /// the parser recurses once a level and could run out of stack.
  static let maximumNesting = 100

  /// The line where flow collections (`[`, `{`) or block indentation go
  /// deeper than ``maximumNesting``; nil when they never do. Quotes and
  /// comments are skipped.
  static func lineNestingTooDeep(_ text: String) -> Int? {
    var text = text
    return text.withUTF8(lineNestingTooDeep(bytes:))
  }

  private static func lineNestingTooDeep(bytes: UnsafeBufferPointer<UInt8>) -> Int? {
    var line = 1
    var depth = 0
    var quote: UInt8?
    var escaped = false
    var inComment = false
    var atLineStart = true
    var indentation = 0
    for byte in bytes {
      if byte == UInt8(ascii: "\n") {
        line += 1
        inComment = false
        atLineStart = true
        indentation = 0
        continue
      }
      if atLineStart {
        if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "-") {
          indentation += 1
          if indentation > 2 * maximumNesting { return line }
          continue
        }
        atLineStart = false
      }
      if inComment { continue }
      if let open = quote {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") && open == UInt8(ascii: "\"") {
          escaped = true
        } else if byte == open {
          quote = nil
        }
        continue
      }
      switch byte {
      case UInt8(ascii: "\""), UInt8(ascii: "'"): quote = byte
      case UInt8(ascii: "#"): inComment = true
      case UInt8(ascii: "["), UInt8(ascii: "{"):
        depth += 1
        if depth > maximumNesting { return line }
      case UInt8(ascii: "]"), UInt8(ascii: "}"): depth = max(depth - 1, 0)
      default: break
      }
    }
    return nil
  }
}
