import CSystemd
import Glibc
import Logging

/// The sd-bus method calls and message readers the agent's D-Bus sources
/// share: the GNOME and KDE bridge on the session bus, AT-SPI on the
/// accessibility bus.
enum DBus {
  /// An argument of a call.
  enum Argument {
    case string(String)
    case int32(Int32)
  }

  /// Why a call gave nothing.
  struct CallError: Error, CustomStringConvertible {
    var description: String
  }

  /// Calls a method and waits for the reply, `timeout` microseconds (0:
  /// the bus's own), then reads it (`sd_bus_call`).
  static func call<Value>(
    _ bus: OpaquePointer?, _ destination: String, _ path: String, _ interface: String, _ member: String,
    _ arguments: [Argument] = [], timeout: UInt64 = 0, reading read: (OpaquePointer) -> Value?
  ) -> Result<Value, CallError> {
    var message: OpaquePointer?
    var status = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
    guard status >= 0, let message else { return .failure(CallError(description: Self.message(status))) }
    defer { sd_bus_message_unref(message) }
    for argument in arguments {
      switch argument {
      case .string(let text): status = text.withCString { sd_bus_message_append_basic(message, Self.type("s"), $0) }
      case .int32(var number): status = sd_bus_message_append_basic(message, Self.type("i"), &number)
      }
      guard status >= 0 else { return .failure(CallError(description: Self.message(status))) }
    }
    var error = sd_bus_error()
    defer { sd_bus_error_free(&error) }
    var reply: OpaquePointer?
    status = sd_bus_call(bus, message, timeout, &error, &reply)
    guard status >= 0, let reply else {
      return .failure(CallError(description: error.message.map { String(cString: $0) } ?? Self.message(status)))
    }
    defer { sd_bus_message_unref(reply) }
    guard let value = read(reply) else { return .failure(CallError(description: "an unexpected reply")) }
    return .success(value)
  }

  /// ``call(_:_:_:_:_:_:timeout:reading:)``, nil on an error, which is
  /// logged at debug.
  static func call<Value>(
    _ bus: OpaquePointer?, _ destination: String, _ path: String, _ interface: String, _ member: String,
    _ arguments: [Argument] = [], timeout: UInt64 = 0, logger: Logger, reading read: (OpaquePointer) -> Value?
  ) -> Value? {
    switch call(bus, destination, path, interface, member, arguments, timeout: timeout, reading: read) {
    case .success(let value): return value
    case .failure(let error):
      logger.debug(
        "D-Bus call failed", metadata: ["call": "\(destination) \(path) \(member)", "error": "\(error)"])
      return nil
    }
  }

  /// A D-Bus type code, as sd-bus takes it.
  static func type(_ code: Unicode.Scalar) -> CChar { CChar(UInt8(ascii: code)) }

  static func readString(_ message: OpaquePointer) -> String? {
    var text: UnsafePointer<CChar>?
    guard sd_bus_message_read_basic(message, type("s"), &text) > 0, let text else { return nil }
    return String(cString: text)
  }

  /// The next `count` arguments, strings all.
  static func readStrings(_ message: OpaquePointer, count: Int) -> [String]? {
    var strings: [String] = []
    for _ in 0..<count {
      guard let text = readString(message) else { return nil }
      strings.append(text)
    }
    return strings
  }

  static func readUInt32(_ message: OpaquePointer) -> UInt32? {
    var value: UInt32 = 0
    return sd_bus_message_read_basic(message, type("u"), &value) > 0 ? value : nil
  }

  static func readInt32(_ message: OpaquePointer) -> Int32? {
    var value: Int32 = 0
    return sd_bus_message_read_basic(message, type("i"), &value) > 0 ? value : nil
  }

  static func readBool(_ message: OpaquePointer) -> Bool? {
    var value: Int32 = 0  // D-Bus booleans are read as a C int
    return sd_bus_message_read_basic(message, type("b"), &value) > 0 ? value != 0 : nil
  }

  static func readUInt32Array(_ message: OpaquePointer) -> [UInt32]? {
    var data: UnsafeRawPointer?
    var size = 0
    guard sd_bus_message_read_array(message, type("u"), &data, &size) >= 0 else { return nil }
    guard let data else { return [] }
    return Array(UnsafeBufferPointer(start: data.assumingMemoryBound(to: UInt32.self), count: size / 4))
  }

  /// A property's value: a variant of `contents` (`b`, `i`), read by `read`.
  static func readVariant<Value>(
    _ contents: String, _ read: @escaping (OpaquePointer) -> Value?
  ) -> (OpaquePointer) -> Value? {
    { message in sd_bus_message_enter_container(message, type("v"), contents) > 0 ? read(message) : nil }
  }

  /// An sd-bus status (a negative errno) in words.
  static func message(_ status: Int32) -> String { String(cString: strerror(-status)) }
}
