import CYAML

/// A node of a YAML document, and where it starts in its file.
struct YAMLNode {
  enum Content {
    /// A scalar's text, and whether it was written plain (not quoted, not a
    /// block): only a plain `true` is a boolean, only a plain `null` nothing.
    case scalar(String, plain: Bool)
    case sequence([YAMLNode])
    /// The entries in the file's order; no two have the same scalar key.
    case mapping([(key: YAMLNode, value: YAMLNode)])
  }

  var content: Content
  /// Where its first character is, counted from 1. An alias's node is the
  /// anchored one, with the anchor's place.
  var line: Int
  var column: Int
}

/// Why text is not a YAML document vkbd reads, and where.
struct YAMLError: Error, Equatable {
  var line: Int
  var column: Int
  var message: String
}

/// YAML text composed into a tree of ``YAMLNode``s from libyaml's events
/// (`yaml_parser_parse`). Every node is kept as text: the config readers
/// type each value themselves, so there is no tag resolution.
enum YAML {
  /// The one document in `text`, nil when it has none (empty, or only
  /// comments). A second document, an alias to no anchor and a key that
  /// appears twice in a mapping are errors, as is what libyaml refuses.
  static func compose(_ text: String) throws(YAMLError) -> YAMLNode? {
    // libyaml keeps a pointer to its parser in the parser: it must not move.
    let parser = UnsafeMutablePointer<yaml_parser_t>.allocate(capacity: 1)
    defer { parser.deallocate() }
    guard yaml_parser_initialize(parser) == 1 else {
      throw YAMLError(line: 1, column: 1, message: "YAML: out of memory")
    }
    defer { yaml_parser_delete(parser) }
    var text = text
    let result = text.withUTF8 { bytes in
      yaml_parser_set_encoding(parser, YAML_UTF8_ENCODING)
      yaml_parser_set_input_string(parser, bytes.baseAddress, bytes.count)
      var composer = Composer()
      return composer.run(parser, bytes)
    }
    return try result.get()
  }

  /// Builds the tree bottom-up: the finished children of every open
  /// collection wait in one array, each collection remembering where its
  /// children begin, until its end event gathers them. Nesting costs no
  /// recursion and each node is moved once.
  private struct Composer {
    private struct Open {
      var isMapping: Bool
      /// Where its children begin in `children`.
      var start: Int
      var anchor: String?
      var line: Int
      var column: Int
      /// A long mapping's scalar keys so far (a short one's are compared
      /// where they stand).
      var keys: Set<String>?
    }
    private var open: [Open] = []
    private var children: [YAMLNode] = []
    private var anchors: [String: YAMLNode] = [:]
    private var root: YAMLNode?
    private var documents = 0

    mutating func run(_ parser: UnsafeMutablePointer<yaml_parser_t>, _ text: UnsafeBufferPointer<UInt8>)
      -> Result<YAMLNode?, YAMLError>
    {
      var event = yaml_event_t()
      while true {
        guard yaml_parser_parse(parser, &event) == 1 else { return .failure(Self.problem(parser.pointee, text)) }
        defer { yaml_event_delete(&event) }
        let line = Int(event.start_mark.line) + 1
        let column = Int(event.start_mark.column) + 1
        do throws(YAMLError) {
          switch event.type {
          case YAML_STREAM_END_EVENT:
            return .success(root)
          case YAML_DOCUMENT_START_EVENT:
            documents += 1
            guard documents == 1 else {
              throw YAMLError(line: line, column: column, message: "YAML: a second document begins here (one per file)")
            }
          case YAML_ALIAS_EVENT:
            let name = String(cString: event.data.alias.anchor)
            guard let node = anchors[name] else {
              throw YAMLError(line: line, column: column, message: "YAML: alias *\(name) names no anchor before it")
            }
            try add(node)
          case YAML_SCALAR_EVENT:
            let scalar = event.data.scalar
            let value = String(decoding: UnsafeBufferPointer(start: scalar.value, count: scalar.length), as: UTF8.self)
            let node = YAMLNode(
              content: .scalar(value, plain: scalar.style == YAML_PLAIN_SCALAR_STYLE), line: line, column: column)
            try add(node, anchor: Self.string(scalar.anchor))
          case YAML_SEQUENCE_START_EVENT, YAML_MAPPING_START_EVENT:
            let isMapping = event.type == YAML_MAPPING_START_EVENT
            let anchor = isMapping ? event.data.mapping_start.anchor : event.data.sequence_start.anchor
            open.append(
              Open(isMapping: isMapping, start: children.count, anchor: Self.string(anchor), line: line, column: column)
            )
          case YAML_SEQUENCE_END_EVENT, YAML_MAPPING_END_EVENT:
            let collection = open.removeLast()
            let content = Self.content(children[collection.start...], isMapping: collection.isMapping)
            children.removeSubrange(collection.start...)  // unique again: no copy
            try add(
              YAMLNode(content: content, line: collection.line, column: collection.column), anchor: collection.anchor)
          default:
            break  // stream start, document end
          }
        } catch {
          return .failure(error)
        }
      }
    }

    /// A finished collection's content from its children (libyaml pairs
    /// every key of a mapping with a value).
    private static func content(_ items: ArraySlice<YAMLNode>, isMapping: Bool) -> YAMLNode.Content {
      guard isMapping else { return .sequence(Array(items)) }
      return .mapping(stride(from: items.startIndex, to: items.endIndex, by: 2).map { (items[$0], items[$0 + 1]) })
    }

    /// Puts a finished node in the collection that is open, or at the root.
    private mutating func add(_ node: YAMLNode, anchor: String? = nil) throws(YAMLError) {
      if let anchor { anchors[anchor] = node }
      guard let top = open.indices.last else {
        root = node
        return
      }
      if open[top].isMapping && (children.count - open[top].start) % 2 == 0,
        case .scalar(let key, _) = node.content, isRepeated(key, in: top)
      {
        throw YAMLError(line: node.line, column: node.column, message: "key '\(key)' appears twice")
      }
      children.append(node)
    }

    /// Whether the mapping `open[top]` has the scalar key `key` already:
    /// a short one (a match's handful of keys) is searched, a long one
    /// keeps a set.
    private mutating func isRepeated(_ key: String, in top: Int) -> Bool {
      let start = open[top].start
      if (children.count - start) / 2 < 16 {
        for index in stride(from: start, to: children.count, by: 2) {
          if case .scalar(let other, _) = children[index].content, other == key { return true }
        }
        return false
      }
      if open[top].keys == nil {
        var keys = Set<String>()
        for index in stride(from: start, to: children.count, by: 2) {
          if case .scalar(let other, _) = children[index].content { keys.insert(other) }
        }
        open[top].keys = keys
      }
      return !open[top].keys!.insert(key).inserted
    }

    private static func string(_ bytes: UnsafeMutablePointer<yaml_char_t>?) -> String? {
      bytes.map { String(cString: $0) }
    }

    /// libyaml's own words for what it refused, at its place; a reader
    /// error (bad encoding) has only a byte offset, turned into a line.
    private static func problem(_ parser: yaml_parser_t, _ text: UnsafeBufferPointer<UInt8>) -> YAMLError {
      let problem = parser.problem.map { String(cString: $0) } ?? "cannot be parsed"
      switch parser.error {
      case YAML_MEMORY_ERROR:
        return YAMLError(line: 1, column: 1, message: "YAML: out of memory")
      case YAML_READER_ERROR:
        let before = text.prefix(Int(parser.problem_offset))
        let line = before.reduce(1) { $1 == UInt8(ascii: "\n") ? $0 + 1 : $0 }
        let column = before.count - (before.lastIndex(of: UInt8(ascii: "\n")).map { $0 + 1 } ?? 0) + 1
        return YAMLError(line: line, column: column, message: "YAML: \(problem)")
      default:
        var message = "YAML: \(problem)"
        if let context = parser.context.map({ String(cString: $0) }) {
          message += " (\(context) at line \(parser.context_mark.line + 1))"
        }
        return YAMLError(
          line: Int(parser.problem_mark.line) + 1, column: Int(parser.problem_mark.column) + 1, message: message)
      }
    }
  }
}
