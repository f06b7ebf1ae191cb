import CSystemd
import Glibc
import Logging

/// The sd-bus method calls and message readers the agent's D-Bus sources
/// share: the GNOME and KDE bridge on the session bus, AT-SPI on the
/// accessibility bus.
enum DBus {
  /// A connection of its own to the session bus (`sd_bus_open_user`),
  /// which the caller closes; throws when there is no session bus.
  static func openSessionBus() throws(AgentExit) -> OpaquePointer {
    var bus: OpaquePointer?
    let status = sd_bus_open_user(&bus)
    guard status >= 0, let bus else {
      throw AgentExit.unavailable("cannot connect to the session bus: \(message(status))")
    }
    return bus
  }

  /// Handles every message the session bus `bus` has (`sd_bus_process`
  /// until none is left); throws when it closed, which ends the agent.
  static func processSessionBus(_ bus: OpaquePointer?) throws(AgentExit) {
    while true {
      let status = sd_bus_process(bus, nil)
      if status == 0 { return }
      guard status > 0 else { throw AgentExit.ended("the session bus closed: \(message(status))") }
    }
  }

  /// An argument of a call or a reply, or a value in one: D-Bus's types
  /// that the agent sends.
  indirect enum Argument: Sendable {
    case string(String)
    case int32(Int32)
    case uint32(UInt32)
    case byte(UInt8)
    case bool(Bool)
    case objectPath(String)
    /// Elements of the signature `element` (`s`, `{sv}`, `v`…).
    case array(_ element: String, [Argument])
    /// A dictionary's entry (in an array of `{…}`): the signature of the
    /// pair, its key and its value.
    case entry(_ signature: String, Argument, Argument)
    /// A value of the signature `contents`, in a variant.
    case variant(_ contents: String, Argument)
    /// A struct of the signature `contents` (without the parentheses).
    case structure(_ contents: String, [Argument])

    /// A property or hint of type `a{sv}`: a name and a variant.
    static func property(_ name: String, _ contents: String, _ value: Argument) -> Argument {
      .entry("sv", .string(name), .variant(contents, value))
    }
  }

  /// Appends `argument` to `message`; false when sd-bus refused it.
  static func append(_ argument: Argument, to message: OpaquePointer) -> Bool {
    func basic<Value: BitwiseCopyable>(_ code: Unicode.Scalar, _ value: Value) -> Bool {
      var value = value
      return sd_bus_message_append_basic(message, type(code), &value) >= 0
    }
    func container(_ code: Unicode.Scalar, _ contents: String, _ items: [Argument]) -> Bool {
      guard sd_bus_message_open_container(message, type(code), contents) >= 0 else { return false }
      for item in items where !append(item, to: message) { return false }
      return sd_bus_message_close_container(message) >= 0
    }
    switch argument {
    case .string(let text): return text.withCString { sd_bus_message_append_basic(message, type("s"), $0) >= 0 }
    case .objectPath(let path): return path.withCString { sd_bus_message_append_basic(message, type("o"), $0) >= 0 }
    case .int32(let number): return basic("i", number)
    case .uint32(let number): return basic("u", number)
    case .byte(let number): return basic("y", number)
    case .bool(let truth): return basic("b", Int32(truth ? 1 : 0))  // D-Bus booleans are a C int
    case .array(let element, let items): return container("a", element, items)
    case .entry(let signature, let key, let value): return container("e", signature, [key, value])
    case .variant(let contents, let value): return container("v", contents, [value])
    case .structure(let contents, let items): return container("r", contents, items)
    }
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
    for argument in arguments where !append(argument, to: message) {
      return .failure(CallError(description: "cannot append an argument"))
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

  /// Calls a method without waiting (`sd_bus_call_async`): `done` gets the
  /// reply, or the error (a timeout after `timeout` microseconds among
  /// them), from the bus's processing on the loop.
  static func callAsync(
    _ bus: OpaquePointer?, _ destination: String, _ path: String, _ interface: String, _ member: String,
    _ arguments: [Argument], timeout: UInt64, done: @escaping (Result<OpaquePointer, CallError>) -> Void
  ) {
    var message: OpaquePointer?
    let status = sd_bus_message_new_method_call(bus, &message, destination, path, interface, member)
    guard status >= 0, let message else { return done(.failure(CallError(description: Self.message(status)))) }
    defer { sd_bus_message_unref(message) }
    for argument in arguments where !append(argument, to: message) {
      return done(.failure(CallError(description: "cannot append an argument")))
    }
    // The handler lives as long as the call's slot: sd-bus frees the slot
    // after the reply, or with the bus when the connection closes first.
    let box = Unmanaged.passRetained(ReplyHandler(done)).toOpaque()
    var slot: OpaquePointer?
    let sent = sd_bus_call_async(bus, &slot, message, Self.replied, box, timeout)
    guard sent >= 0, let slot else {
      Unmanaged<ReplyHandler>.fromOpaque(box).release()
      return done(.failure(CallError(description: Self.message(sent))))
    }
    _ = sd_bus_slot_set_destroy_callback(slot) { context in
      if let context { Unmanaged<ReplyHandler>.fromOpaque(context).release() }
    }
    _ = sd_bus_slot_set_floating(slot, 1)
  }

  /// ``callAsync(_:_:_:_:_:_:timeout:done:)`` whose `answer` gets the
  /// reply read, or nil on an error (logged at debug) or timeout.
  static func ask<Value>(
    _ bus: OpaquePointer?, _ destination: String, _ path: String, _ interface: String, _ member: String,
    _ arguments: [Argument] = [], timeout: UInt64, logger: Logger, reading read: @escaping (OpaquePointer) -> Value?,
    answer: @escaping (Value?) -> Void
  ) {
    callAsync(bus, destination, path, interface, member, arguments, timeout: timeout) { reply in
      switch reply {
      case .success(let message): answer(read(message))
      case .failure(let error):
        logger.debug(
          "D-Bus call failed", metadata: ["call": "\(destination) \(path) \(member)", "error": "\(error)"])
        answer(nil)
      }
    }
  }

  /// What waits for an asynchronous call's reply.
  private final class ReplyHandler {
    let done: (Result<OpaquePointer, CallError>) -> Void
    init(_ done: @escaping (Result<OpaquePointer, CallError>) -> Void) { self.done = done }
  }

  private static let replied: sd_bus_message_handler_t = { reply, context, error in
    guard let context else { return 0 }
    let handler = Unmanaged<ReplyHandler>.fromOpaque(context).takeUnretainedValue()
    if let reply, let failure = sd_bus_message_get_error(reply), sd_bus_error_is_set(failure) != 0 {
      handler.done(.failure(CallError(description: failure.pointee.message.map { String(cString: $0) } ?? "failed")))
    } else if let reply {
      handler.done(.success(reply))
    } else {
      handler.done(.failure(CallError(description: "no reply")))
    }
    return 0
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

  /// Answers the method call `message` with `arguments`; 1 (handled), or
  /// a negative errno when the reply cannot be made.
  @discardableResult
  static func reply(to message: OpaquePointer, _ arguments: [Argument] = []) -> Int32 {
    var reply: OpaquePointer?
    guard sd_bus_message_new_method_return(message, &reply) >= 0, let reply else { return -ENOMEM }
    defer { sd_bus_message_unref(reply) }
    for argument in arguments where !append(argument, to: reply) { return -EINVAL }
    _ = sd_bus_send(nil, reply, nil)
    return 1
  }

  /// Emits the signal `member` of `interface` at `path`, with `arguments`.
  static func emit(
    _ bus: OpaquePointer?, _ path: String, _ interface: String, _ member: String, _ arguments: [Argument] = []
  ) {
    var message: OpaquePointer?
    guard sd_bus_message_new_signal(bus, &message, path, interface, member) >= 0, let message else { return }
    defer { sd_bus_message_unref(message) }
    for argument in arguments where !append(argument, to: message) { return }
    _ = sd_bus_send(bus, message, nil)
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

  static func readUInt32Array(_ message: OpaquePointer) -> [UInt32]? { readArray(message, "u") }

  static func readInt32Array(_ message: OpaquePointer) -> [Int32]? { readArray(message, "i") }

  /// An array of a fixed-size basic type (`sd_bus_message_read_array`).
  private static func readArray<Element>(_ message: OpaquePointer, _ code: Unicode.Scalar) -> [Element]? {
    var data: UnsafeRawPointer?
    var size = 0
    guard sd_bus_message_read_array(message, type(code), &data, &size) >= 0 else { return nil }
    guard let data else { return [] }
    return Array(
      UnsafeBufferPointer(
        start: data.assumingMemoryBound(to: Element.self), count: size / MemoryLayout<Element>.stride))
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
