import FoundationEssentials

/// One kind of message of the agent protocol: a type of its own, which
/// says its `type` on the wire, its fields (its `CodingKeys`: a message
/// with another field is refused) and its bounds. Adding a message is one
/// such type, and one handler where it is read (``MessageReader``).
public protocol AgentProtocolMessage: Codable, Equatable, Sendable {
  /// The message's `type` on the wire.
  static var type: String { get }
  /// Its fields on the wire.
  associatedtype CodingKeys: CodingKey & CaseIterable
  /// Refuses what is out of bounds, naming the field, never its value.
  func validate() throws(AgentProtocolError)
}

extension AgentProtocolMessage {
  public func validate() throws(AgentProtocolError) {}

  static var fieldNames: Set<String> { Set(CodingKeys.allCases.map { $0.stringValue }) }

  /// The message as one line of JSON, newline included:
  /// `{"version":2,"type":"…",<its fields>}`.
  public func encoded() -> [UInt8] {
    // Every message here encodes; a failure would be a programming error.
    var bytes = [UInt8]((try? MessageCodec.encoder.encode(Outgoing(message: self))) ?? Data("{}".utf8))
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }
}

/// The messages one side reads, each with what it does with it. The table
/// decodes and dispatches: a message of a type no handler takes is
/// refused. `Context` is what the caller passes along (the daemon: which
/// agent sent it).
public struct MessageReader<Context> {
  /// One decoder for every line, which knows the types read.
  private let decoder = MessageCodec.decoder(for: MessageKinds())
  private var handlers: [String: (any AgentProtocolMessage, Context) throws -> Void] = [:]

  public init() {}

  /// Reads messages of `type` and hands them to `handle`, which may refuse
  /// one (an ``AgentProtocolError``).
  public mutating func on<Message: AgentProtocolMessage>(
    _ type: Message.Type, _ handle: @escaping (Message, Context) throws -> Void
  ) {
    var kinds = decoder.userInfo[MessageCodec.kindsKey] as! MessageKinds
    kinds.add(type)
    decoder.userInfo[MessageCodec.kindsKey] = kinds
    handlers[Message.type] = { message, context in try handle(message as! Message, context) }
  }

  /// Reads one line (without its newline) and hands its message to its
  /// handler; throws why the line is refused, or what the handler threw.
  public func read(_ line: some Collection<UInt8>, _ context: Context) throws(AgentProtocolError) {
    let message = try decode(line)
    do {
      try handlers[type(of: message).type]?(message, context)
    } catch let error as AgentProtocolError {
      throw error
    } catch {
      throw AgentProtocolError("\(error)")
    }
  }

  /// The message on one line (without its newline).
  public func decode(_ line: some Collection<UInt8>) throws(AgentProtocolError) -> any AgentProtocolMessage {
    try MessageCodec.decode(line, with: decoder)
  }
}

/// The message on `line` (without its newline), which must be a `Message`.
public func decodeMessage<Message: AgentProtocolMessage>(
  _ type: Message.Type, from line: some Collection<UInt8>
) throws(AgentProtocolError) -> Message {
  var kinds = MessageKinds()
  kinds.add(type)
  return try MessageCodec.decode(line, with: MessageCodec.decoder(for: kinds)) as! Message
}

/// The message types a reader takes, by their `type`, with their fields,
/// for the decoder.
struct MessageKinds: @unchecked Sendable {
  var types: [String: (type: any AgentProtocolMessage.Type, fields: Set<String>)] = [:]

  mutating func add<Message: AgentProtocolMessage>(_ type: Message.Type) {
    types[Message.type] = (type, Message.fieldNames)
  }
}

/// JSON through FoundationEssentials' encoder and decoder, and the checks
/// they do not make: the version, the type, unknown and repeated fields.
enum MessageCodec {
  static let encoder: JSONEncoder = {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    return encoder
  }()

  static let kindsKey = CodingUserInfoKey(rawValue: "vkbd.messageKinds")!

  /// A decoder that reads the messages of `kinds`.
  static func decoder(for kinds: MessageKinds) -> JSONDecoder {
    let decoder = JSONDecoder()
    decoder.userInfo[kindsKey] = kinds
    return decoder
  }

  static func decode(_ line: some Collection<UInt8>, with decoder: JSONDecoder) throws(AgentProtocolError)
    -> any AgentProtocolMessage
  {
    guard line.count < AgentProtocol.maximumValueMessage else {
      throw AgentProtocolError("message longer than \(AgentProtocol.maximumValueMessage) bytes")
    }
    let bytes = Array(line)
    if let problem = StrictJSON.problem(in: bytes) { throw AgentProtocolError(problem) }
    do {
      return try decoder.decode(Incoming.self, from: Data(bytes)).message
    } catch let error as AgentProtocolError {
      throw error
    } catch let error as DecodingError {
      throw AgentProtocolError(error)
    } catch {
      throw AgentProtocolError("not a JSON object")
    }
  }
}

/// A field's name: any string (the envelope's keys, unknown fields).
struct FieldName: CodingKey, ExpressibleByStringLiteral {
  var stringValue: String
  var intValue: Int? { nil }
  init(stringValue: String) { self.stringValue = stringValue }
  init?(intValue: Int) { nil }
  init(stringLiteral value: String) { stringValue = value }
}

/// A message going out: the version and type, then its own fields, in one
/// object.
private struct Outgoing<Message: AgentProtocolMessage>: Encodable {
  let message: Message

  func encode(to encoder: Encoder) throws {
    var container = encoder.container(keyedBy: FieldName.self)
    try container.encode(AgentProtocol.version, forKey: "version")
    try container.encode(Message.type, forKey: "type")
    try message.encode(to: encoder)
  }
}

/// A message coming in: the version and type checked, then the message of
/// that type, with no field it does not know.
private struct Incoming: Decodable {
  let message: any AgentProtocolMessage

  init(from decoder: Decoder) throws {
    let fields: KeyedDecodingContainer<FieldName>
    do {
      fields = try decoder.container(keyedBy: FieldName.self)
    } catch {
      throw AgentProtocolError("not a JSON object")
    }
    guard let version = try? fields.decode(Int.self, forKey: "version") else {
      throw AgentProtocolError("field 'version' is missing or not a number")
    }
    guard version == AgentProtocol.version else {
      throw AgentProtocolError("protocol version \(version) is not spoken here (\(AgentProtocol.version) is)")
    }
    guard let type = try? fields.decode(String.self, forKey: "type") else {
      throw AgentProtocolError("field 'type' is missing or not a string")
    }
    let kinds = (decoder.userInfo[MessageCodec.kindsKey] as? MessageKinds)?.types ?? [:]
    guard let kind = kinds[type] else {
      throw AgentProtocolError("unknown message type (\(kinds.keys.sorted().joined(separator: ", ")))")
    }
    for field in fields.allKeys where field.stringValue != "version" && field.stringValue != "type" {
      guard kind.fields.contains(field.stringValue) else {
        throw AgentProtocolError("unknown field '\(field.stringValue.prefix(40))'")
      }
    }
    message = try kind.type.init(from: decoder)
    try message.validate()
  }
}

extension AgentProtocolError {
  /// What the decoder found wrong, by field, without the value.
  init(_ error: DecodingError) {
    func field(_ path: [CodingKey]) -> String { path.map(\.stringValue).joined(separator: ".") }
    switch error {
    case .keyNotFound(let key, let context):
      self.init("field '\(field(context.codingPath + [key]))' is missing")
    case .valueNotFound(_, let context):
      self.init("field '\(field(context.codingPath))' is missing")
    case .typeMismatch(let type, let context):
      let kind =
        switch type {
        case is String.Type: "a string"
        case is Bool.Type: "true or false"
        case is any BinaryInteger.Type: "a whole number"
        default: "\(type)".hasPrefix("Array") ? "a list" : "an object"
        }
      self.init("field '\(field(context.codingPath))' must be \(kind)")
    case .dataCorrupted(let context):
      self.init(
        context.codingPath.isEmpty
          ? "not a JSON object" : "field '\(field(context.codingPath))' has a value not allowed")
    @unknown default:
      self.init("not a JSON object")
    }
  }
}

/// What the decoder lets through and the protocol refuses, as FlatJSON,
/// its hand-written reader before, did: a name given twice in one object
/// (the decoder would take the first), a comma before a closing bracket,
/// and numbers that are not whole (no field is a fraction; the decoder
/// would take 1.0 for 1).
enum StrictJSON {
  /// What is wrong with `bytes`, in words that quote no value; nil when
  /// nothing is, or when the text is no JSON (the decoder then says so).
  static func problem(in bytes: [UInt8]) -> String? {
    // Per open bracket: an object's names (a list: an object has a few), or
    // nil for a list.
    var objects: [[ArraySlice<UInt8>]?] = []
    var stringStart: Int?
    var escaped = false
    var lastString: Range<Int>?
    var lastSignificant: UInt8 = 0
    var inNumber = false
    for (index, byte) in bytes.enumerated() {
      if let start = stringStart {
        if escaped {
          escaped = false
        } else if byte == UInt8(ascii: "\\") {
          escaped = true
        } else if byte == UInt8(ascii: "\"") {
          lastString = start..<index
          stringStart = nil
          lastSignificant = byte
        }
        continue
      }
      let numberByte = (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-")
      if inNumber && (byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E")) {
        return "only whole numbers are read here"
      }
      inNumber = numberByte || (inNumber && byte == UInt8(ascii: "+"))
      switch byte {
      case 0x20, 0x09, 0x0A, 0x0D: continue
      case UInt8(ascii: "\""): stringStart = index + 1
      case UInt8(ascii: "{"): objects.append([])
      case UInt8(ascii: "["): objects.append(nil)
      case UInt8(ascii: "}"), UInt8(ascii: "]"):
        if lastSignificant == UInt8(ascii: ",") { return "a comma before a closing bracket" }
        _ = objects.popLast()
      case UInt8(ascii: ":"):
        if let name = lastString, let last = objects.indices.last, objects[last] != nil {
          if objects[last]!.contains(bytes[name]) {
            return "field '\(String(decoding: bytes[name], as: UTF8.self).prefix(40))' appears twice"
          }
          objects[last]!.append(bytes[name])
        }
      default: break
      }
      if byte != UInt8(ascii: "\"") { lastString = nil }
      lastSignificant = byte
    }
    return nil
  }
}
