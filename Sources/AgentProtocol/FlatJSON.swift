/// A value of a flat JSON object: the kinds the agent protocol's messages
/// hold. Objects and arrays inside an object are not read.
public enum JSONValue: Equatable, Sendable {
  case string(String)
  case integer(Int64)
  case bool(Bool)
  case null
}

/// Why a text is not the JSON expected. The message never quotes the text:
/// it may be a window title.
public struct JSONError: Error, Equatable, CustomStringConvertible, Sendable {
  public var message: String
  public init(_ message: String) { self.message = message }
  public var description: String { message }
}

/// JSON (RFC 8259) restricted to what vkbd exchanges: one object of strings,
/// whole numbers, booleans and null, read and written without Foundation.
public enum FlatJSON {
  /// Reads one object that fills `bytes` (whitespace around it allowed),
  /// its fields in order. A key that appears twice, a nested object or
  /// array, a fraction and invalid UTF-8 are errors.
  public static func parseObject(_ bytes: some Collection<UInt8>) throws(JSONError) -> [(key: String, value: JSONValue)]
  {
    var reader = Reader(Array(bytes))
    reader.skipSpace()
    try reader.expect(UInt8(ascii: "{"))
    var fields: [(key: String, value: JSONValue)] = []
    reader.skipSpace()
    if reader.peek == UInt8(ascii: "}") {
      reader.index += 1
    } else {
      while true {
        reader.skipSpace()
        let key = try reader.string()
        guard !fields.contains(where: { $0.key == key }) else {
          throw JSONError("field '\(key.prefix(40))' appears twice")
        }
        reader.skipSpace()
        try reader.expect(UInt8(ascii: ":"))
        reader.skipSpace()
        fields.append((key, try reader.value()))
        reader.skipSpace()
        if reader.peek == UInt8(ascii: ",") {
          reader.index += 1
          continue
        }
        try reader.expect(UInt8(ascii: "}"))
        break
      }
    }
    reader.skipSpace()
    guard reader.index == reader.bytes.count else { throw JSONError("text after the object") }
    return fields
  }

  /// Reads a string literal that fills `text` exactly, quotes included
  /// (spaces and tabs may follow it).
  public static func parseString(_ text: Substring) throws(JSONError) -> String {
    var reader = Reader(Array(text.utf8))
    let value = try reader.string()
    while reader.peek == UInt8(ascii: " ") || reader.peek == UInt8(ascii: "\t") { reader.index += 1 }
    guard reader.index == reader.bytes.count else { throw JSONError("text after the closing quote") }
    return value
  }

  /// One object with `fields` in order, compact, as UTF-8.
  public static func encode(_ fields: [(key: String, value: JSONValue)]) -> [UInt8] {
    var out: [UInt8] = [UInt8(ascii: "{")]
    for (index, field) in fields.enumerated() {
      if index > 0 { out.append(UInt8(ascii: ",")) }
      appendString(field.key, to: &out)
      out.append(UInt8(ascii: ":"))
      switch field.value {
      case .string(let text): appendString(text, to: &out)
      case .integer(let number): out.append(contentsOf: String(number).utf8)
      case .bool(let flag): out.append(contentsOf: (flag ? "true" : "false").utf8)
      case .null: out.append(contentsOf: "null".utf8)
      }
    }
    out.append(UInt8(ascii: "}"))
    return out
  }

  private static func appendString(_ text: String, to out: inout [UInt8]) {
    out.append(UInt8(ascii: "\""))
    for byte in text.utf8 {
      switch byte {
      case UInt8(ascii: "\""): out.append(contentsOf: "\\\"".utf8)
      case UInt8(ascii: "\\"): out.append(contentsOf: "\\\\".utf8)
      case UInt8(ascii: "\n"): out.append(contentsOf: "\\n".utf8)
      case UInt8(ascii: "\t"): out.append(contentsOf: "\\t".utf8)
      case UInt8(ascii: "\r"): out.append(contentsOf: "\\r".utf8)
      case 0..<0x20:
        let digits = Array("0123456789abcdef".utf8)
        out.append(contentsOf: "\\u00".utf8)
        out.append(digits[Int(byte >> 4)])
        out.append(digits[Int(byte & 0xF)])
      default: out.append(byte)
      }
    }
    out.append(UInt8(ascii: "\""))
  }

  private struct Reader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipSpace() {
      while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func expect(_ byte: UInt8) throws(JSONError) {
      guard peek == byte else {
        throw JSONError(peek == nil ? "the text ends early" : "expected '\(Character(Unicode.Scalar(byte)))'")
      }
      index += 1
    }

    mutating func value() throws(JSONError) -> JSONValue {
      guard let byte = peek else { throw JSONError("the text ends early") }
      switch byte {
      case UInt8(ascii: "\""): return .string(try string())
      case UInt8(ascii: "t"):
        try word("true")
        return .bool(true)
      case UInt8(ascii: "f"):
        try word("false")
        return .bool(false)
      case UInt8(ascii: "n"):
        try word("null")
        return .null
      case UInt8(ascii: "{"), UInt8(ascii: "["): throw JSONError("nested objects and arrays are not read here")
      case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .integer(try integer())
      default: throw JSONError("not a JSON value")
      }
    }

    mutating func word(_ text: String) throws(JSONError) {
      let expected = text.utf8
      guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
      else { throw JSONError("not a JSON value") }
      index += expected.count
    }

    mutating func integer() throws(JSONError) -> Int64 {
      let start = index
      if peek == UInt8(ascii: "-") { index += 1 }
      let digitsStart = index
      while let byte = peek, byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") { index += 1 }
      guard index > digitsStart else { throw JSONError("not a number") }
      guard bytes[digitsStart] != UInt8(ascii: "0") || index == digitsStart + 1 else {
        throw JSONError("a number with a leading zero")
      }
      if let byte = peek, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
        throw JSONError("only whole numbers are read here")
      }
      guard let value = Int64(String(decoding: bytes[start..<index], as: UTF8.self)) else {
        throw JSONError("a number out of range")
      }
      return value
    }

    mutating func string() throws(JSONError) -> String {
      try expect(UInt8(ascii: "\""))
      var out: [UInt8] = []
      while let byte = peek {
        index += 1
        switch byte {
        case UInt8(ascii: "\""):
          guard let text = String(validating: out, as: UTF8.self) else { throw JSONError("a string that is not UTF-8") }
          return text
        case UInt8(ascii: "\\"):
          guard let escape = peek else { throw JSONError("missing closing quote") }
          index += 1
          switch escape {
          case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): out.append(escape)
          case UInt8(ascii: "b"): out.append(0x08)
          case UInt8(ascii: "f"): out.append(0x0C)
          case UInt8(ascii: "n"): out.append(0x0A)
          case UInt8(ascii: "r"): out.append(0x0D)
          case UInt8(ascii: "t"): out.append(0x09)
          case UInt8(ascii: "u"):
            var value = try hex4()
            if (0xD800..<0xDC00).contains(value) {
              guard peek == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u") else {
                throw JSONError("unpaired surrogate")
              }
              index += 2
              let low = try hex4()
              guard (0xDC00..<0xE000).contains(low) else { throw JSONError("unpaired surrogate") }
              value = 0x10000 + ((value - 0xD800) << 10) + (low - 0xDC00)
            }
            guard let scalar = Unicode.Scalar(value) else { throw JSONError("unpaired surrogate") }
            out.append(contentsOf: String(scalar).utf8)
          default:
            throw JSONError("unknown escape '\\\(Character(Unicode.Scalar(escape)))'")
          }
        case 0..<0x20:
          throw JSONError("control character in string")
        default:
          out.append(byte)
        }
      }
      throw JSONError("missing closing quote")
    }

    mutating func hex4() throws(JSONError) -> UInt32 {
      var value: UInt32 = 0
      for _ in 0..<4 {
        guard let byte = peek, let nibble = Self.hexValue(byte) else { throw JSONError("\\u needs four hex digits") }
        index += 1
        value = value << 4 | nibble
      }
      return value
    }

    static func hexValue(_ byte: UInt8) -> UInt32? {
      switch byte {
      case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
      case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
      case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
      default: return nil
      }
    }
  }
}
