import AgentProtocol

/// A JSON document, read whole: what sway's IPC answers (nested objects
/// and arrays, which the daemon's flat protocol never needs).
indirect enum JSON: Equatable {
  case object([(String, JSON)])
  case array([JSON])
  case string(String)
  case number(Double)
  case bool(Bool)
  case null

  static func == (lhs: JSON, rhs: JSON) -> Bool {
    switch (lhs, rhs) {
    case (.object(let a), .object(let b)): a.map(\.0) == b.map(\.0) && a.map(\.1) == b.map(\.1)
    case (.array(let a), .array(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.number(let a), .number(let b)): a == b
    case (.bool(let a), .bool(let b)): a == b
    case (.null, .null): true
    default: false
    }
  }

  /// The member `key` of an object; nil for anything else.
  subscript(key: String) -> JSON? {
    guard case .object(let members) = self else { return nil }
    return members.first { $0.0 == key }?.1
  }

  var string: String? {
    if case .string(let text) = self { return text }
    return nil
  }

  var integer: Int? {
    if case .number(let value) = self, let whole = Int(exactly: value) { return whole }
    return nil
  }

  var array: [JSON]? {
    if case .array(let items) = self { return items }
    return nil
  }

  /// Reads a document; nil when it is not JSON (or nests deeper than 64).
  init?(parsing bytes: [UInt8]) {
    var reader = Reader(bytes: bytes)
    guard let value = reader.value(depth: 0) else { return nil }
    reader.skipSpace()
    guard reader.index == bytes.count else { return nil }
    self = value
  }

  private struct Reader {
    let bytes: [UInt8]
    var index = 0

    mutating func skipSpace() {
      while index < bytes.count, [0x20, 0x0A, 0x0D, 0x09].contains(bytes[index]) { index += 1 }
    }

    mutating func literal(_ word: String, _ value: JSON) -> JSON? {
      let utf8 = Array(word.utf8)
      guard bytes.count - index >= utf8.count, Array(bytes[index..<index + utf8.count]) == utf8 else { return nil }
      index += utf8.count
      return value
    }

    mutating func value(depth: Int) -> JSON? {
      skipSpace()
      guard index < bytes.count, depth < 64 else { return nil }
      switch bytes[index] {
      case UInt8(ascii: "{"):
        index += 1
        var members: [(String, JSON)] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") {
          index += 1
          return .object(members)
        }
        while true {
          skipSpace()
          guard case .string(let key)? = string() else { return nil }
          skipSpace()
          guard index < bytes.count, bytes[index] == UInt8(ascii: ":") else { return nil }
          index += 1
          guard let item = value(depth: depth + 1) else { return nil }
          members.append((key, item))
          skipSpace()
          guard index < bytes.count else { return nil }
          index += 1
          if bytes[index - 1] == UInt8(ascii: "}") { return .object(members) }
          guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
        }
      case UInt8(ascii: "["):
        index += 1
        var items: [JSON] = []
        skipSpace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") {
          index += 1
          return .array(items)
        }
        while true {
          guard let item = value(depth: depth + 1) else { return nil }
          items.append(item)
          skipSpace()
          guard index < bytes.count else { return nil }
          index += 1
          if bytes[index - 1] == UInt8(ascii: "]") { return .array(items) }
          guard bytes[index - 1] == UInt8(ascii: ",") else { return nil }
        }
      case UInt8(ascii: "\""): return string()
      case UInt8(ascii: "t"): return literal("true", .bool(true))
      case UInt8(ascii: "f"): return literal("false", .bool(false))
      case UInt8(ascii: "n"): return literal("null", .null)
      default:
        let start = index
        while index < bytes.count, "+-.eE0123456789".utf8.contains(bytes[index]) { index += 1 }
        return Double(String(decoding: bytes[start..<index], as: UTF8.self)).map(JSON.number)
      }
    }

    /// A string, escapes and all (FlatJSON reads those).
    mutating func string() -> JSON? {
      guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
      let start = index
      index += 1
      while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
        index += bytes[index] == UInt8(ascii: "\\") ? 2 : 1
      }
      guard index < bytes.count else { return nil }
      index += 1
      let literal = String(decoding: bytes[start..<index], as: UTF8.self)
      return (try? FlatJSON.parseString(Substring(literal))).map(JSON.string)
    }
  }
}
