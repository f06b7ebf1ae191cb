import Yams

/// Reads typed values out of a YAML tree, collecting every problem with its
/// file, line and column instead of stopping at the first.
struct YAMLReader {
  let file: String
  private(set) var problems: [ConfigProblem] = []
  /// What is skipped but does not stop the file from loading.
  private(set) var warnings: [ConfigProblem] = []

  init(file: String) { self.file = file }

  /// Parses YAML text into a tree; nil (with a problem) when it is not YAML.
  mutating func compose(_ text: String) -> Node? {
    if let line = Self.lineNestingTooDeep(text) {
      problems.append(
        ConfigProblem(
          file: file, line: line, column: 1, message: "YAML nests deeper than \(Self.maximumNesting) levels"))
      return nil
    }
    do {
      // Values are typed by the loader, never by tag: the basic resolver and
      // an empty constructor spare the default ones' start-up, which compiles
      // a dozen regular expressions (a seventh of `vkbd check`).
      return try Yams.compose(yaml: text, .basic, Constructor([:], [:], [:]), .utf8)
    } catch let error as YamlError {
      problems.append(Self.problem(from: error, file: file, text: text))
    } catch {
      problems.append(ConfigProblem(file: file, line: 1, column: 1, message: "not YAML: \(error)"))
    }
    return nil
  }

  /// Records a problem at `node` (or at the file's start when it has no place).
  mutating func report(_ message: String, at node: Node?) {
    let mark = node?.mark
    problems.append(ConfigProblem(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, message: message))
  }

  /// Records a warning at `node`.
  mutating func warn(_ message: String, at node: Node?) {
    let mark = node?.mark
    warnings.append(ConfigProblem(file: file, line: mark?.line ?? 1, column: mark?.column ?? 1, message: message))
  }

  /// The entries of a mapping, checked against the keys allowed, with
  /// duplicate and unknown keys reported (naming the `known` ones, by default
  /// all allowed). Nil when `node` is not a mapping.
  mutating func entries(
    of node: Node, named name: String, allowed: [String], known: [String]? = nil
  ) -> [(key: String, value: Node)]? {
    guard case .mapping(let mapping) = node else {
      report("\(name) must be a mapping of keys to values", at: node)
      return nil
    }
    var seen: Set<String> = []
    var result: [(key: String, value: Node)] = []
    for (keyNode, value) in mapping {
      guard case .scalar(let scalar) = keyNode else {
        report("\(name): a key must be a plain name", at: keyNode)
        continue
      }
      let key = scalar.string
      guard allowed.contains(key) else {
        report("\(name): unknown key '\(key)' (known: \((known ?? allowed).joined(separator: ", ")))", at: keyNode)
        continue
      }
      guard seen.insert(key).inserted else {
        report("\(name): key '\(key)' appears twice", at: keyNode)
        continue
      }
      result.append((key, value))
    }
    return result
  }

  /// A boolean (`true`/`false`).
  mutating func bool(_ node: Node, key: String) -> Bool? {
    if case .scalar(let scalar) = node, scalar.style == .plain {
      switch scalar.string {
      case "true", "True", "TRUE": return true
      case "false", "False", "FALSE": return false
      default: break
      }
    }
    report("\(key) must be true or false", at: node)
    return nil
  }

  /// A whole number within `range`.
  mutating func integer(_ node: Node, key: String, in range: ClosedRange<Int64>) -> Int64? {
    if case .scalar(let scalar) = node, scalar.style == .plain, let value = Int64(scalar.string) {
      guard range.contains(value) else {
        report("\(key) must be between \(range.lowerBound) and \(range.upperBound), not \(value)", at: node)
        return nil
      }
      return value
    }
    report("\(key) must be a whole number", at: node)
    return nil
  }

  /// A string: any scalar (so `layout: de` and `layout: "de"` both read).
  mutating func string(_ node: Node, key: String) -> String? {
    if case .scalar(let scalar) = node {
      let isNull = scalar.style == .plain && (scalar.string == "~" || scalar.string == "null")
      return isNull ? "" : scalar.string
    }
    report("\(key) must be a string", at: node)
    return nil
  }

  /// One of an enumeration's raw values.
  mutating func choice<Choice: RawRepresentable & CaseIterable>(_ node: Node, key: String) -> Choice?
  where Choice.RawValue == String {
    guard let text = string(node, key: key) else { return nil }
    if let value = Choice(rawValue: text) { return value }
    let known = Choice.allCases.map(\.rawValue).joined(separator: ", ")
    report("\(key) must be one of \(known), not '\(text)'", at: node)
    return nil
  }

  /// A list; a single value stands for a list of one.
  mutating func list(_ node: Node, key: String) -> [Node]? {
    switch node {
    case .sequence(let sequence): return Array(sequence)
    case .scalar(let scalar) where scalar.style == .plain && (scalar.string.isEmpty || scalar.string == "null"):
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
    var line = 1
    var depth = 0
    var quote: UInt8?
    var escaped = false
    var inComment = false
    var atLineStart = true
    var indentation = 0
    for byte in text.utf8 {
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

  static func problem(from error: YamlError, file: String, text: String) -> ConfigProblem {
    switch error {
    case .duplicatedKeysInMapping(let duplicates, let context):
      let key = duplicates.sorted().first ?? ""
      let line = secondLine(of: key, inMappingAt: context.mark, text: text) ?? context.mark.line
      return ConfigProblem(
        file: file, line: line, column: context.mark.column, message: "key '\(key)' appears twice")
    case .scanner(_, let problem, let mark, _), .parser(_, let problem, let mark, _),
      .composer(_, let problem, let mark, _):
      return ConfigProblem(file: file, line: mark.line, column: mark.column, message: "YAML: \(problem)")
    default:
      return ConfigProblem(file: file, line: 1, column: 1, message: "YAML: \(error)")
    }
  }

  /// The line of the second `key:` at the mapping's indentation, from its start.
  private static func secondLine(of key: String, inMappingAt mark: Mark, text: String) -> Int? {
    let indent = String(repeating: " ", count: mark.column - 1)
    var seen = 0
    for (index, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
    where index + 1 >= mark.line && line.hasPrefix(indent + key + ":") {
      seen += 1
      if seen == 2 { return index + 1 }
    }
    return nil
  }
}
