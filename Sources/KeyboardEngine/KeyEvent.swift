import CKeyboard

/// A point in time on the kernel's monotonic clock, in microseconds.
///
/// The engine never reads a clock: every event carries its time and the
/// caller passes `now` when a deadline is due.
public struct Instant: Comparable, Hashable, Sendable {
  /// Microseconds since an arbitrary, fixed origin.
  public var microseconds: Int64

  /// Makes an instant from microseconds since the clock's origin.
  public init(microseconds: Int64) { self.microseconds = microseconds }

  /// Makes an instant from milliseconds since the clock's origin.
  public static func milliseconds(_ value: Int64) -> Instant {
    Instant(microseconds: value * 1000)
  }

  /// This instant moved forward by `milliseconds`.
  public func adding(milliseconds: Int64) -> Instant {
    Instant(microseconds: microseconds + milliseconds * 1000)
  }

  /// The earlier of two times; nil when neither is known.
  public static func earlier(_ first: Instant?, _ second: Instant?) -> Instant? {
    guard let first else { return second }
    guard let second else { return first }
    return Swift.min(first, second)
  }

  public static func < (lhs: Instant, rhs: Instant) -> Bool {
    lhs.microseconds < rhs.microseconds
  }
}

/// What happened to a key: the `value` of an evdev `EV_KEY` event.
public enum KeyValue: Int32, Sendable {
  case up = 0
  case down = 1
  /// The kernel's auto-repeat of a held key.
  case `repeat` = 2
}

/// Identifies the physical device an event came from.
public struct DeviceID: Hashable, Sendable {
  public var rawValue: Int32
  /// Wraps a caller-chosen number (the daemon uses the device's fd).
  public init(_ rawValue: Int32) { self.rawValue = rawValue }
}

/// One key event read from a physical keyboard.
public struct KeyEvent: Equatable, Sendable {
  /// The evdev key code (`KEY_A` is 30).
  public var code: UInt16
  public var value: KeyValue
  /// The kernel's timestamp of the event.
  public var time: Instant
  public var device: DeviceID

  /// Makes an event; `device` defaults to the first device.
  public init(code: UInt16, value: KeyValue, time: Instant, device: DeviceID = DeviceID(0)) {
    self.code = code
    self.value = value
    self.time = time
    self.device = device
  }
}

/// One key event the engine asks to be written to the virtual keyboard.
public struct OutputKey: Equatable, Sendable {
  public var code: UInt16
  public var value: KeyValue

  /// Makes an output event.
  public init(code: UInt16, value: KeyValue) {
    self.code = code
    self.value = value
  }
}

/// The events the engine emits during one call, in order.
///
/// The buffer keeps its storage between calls, so a caller that reuses one
/// buffer costs no allocation per event.
public struct KeyOutput: Sendable {
  public private(set) var events: [OutputKey] = []

  /// Makes an empty buffer with room for `capacity` events.
  public init(capacity: Int = 256) { events.reserveCapacity(capacity) }

  /// Appends one event.
  public mutating func append(_ event: OutputKey) { events.append(event) }

  /// Empties the buffer and keeps its storage.
  public mutating func removeAll() { events.removeAll(keepingCapacity: true) }
}

/// Evdev key codes the engine itself refers to, as `UInt16`.
public enum KeyCode {
  public static let escape = UInt16(KEY_ESC)
  public static let backspace = UInt16(KEY_BACKSPACE)
  public static let tab = UInt16(KEY_TAB)
  public static let delete = UInt16(KEY_DELETE)
  public static let insert = UInt16(KEY_INSERT)
  public static let left = UInt16(KEY_LEFT)
  public static let enter = UInt16(KEY_ENTER)
  public static let space = UInt16(KEY_SPACE)
  public static let leftShift = UInt16(KEY_LEFTSHIFT)
  public static let rightShift = UInt16(KEY_RIGHTSHIFT)
  public static let leftCtrl = UInt16(KEY_LEFTCTRL)
  public static let rightCtrl = UInt16(KEY_RIGHTCTRL)
  public static let leftAlt = UInt16(KEY_LEFTALT)
  public static let rightAlt = UInt16(KEY_RIGHTALT)
  public static let leftMeta = UInt16(KEY_LEFTMETA)
  public static let rightMeta = UInt16(KEY_RIGHTMETA)
  public static let capsLock = UInt16(KEY_CAPSLOCK)
  public static let numLock = UInt16(KEY_NUMLOCK)
  public static let key102nd = UInt16(KEY_102ND)
  public static let u = UInt16(KEY_U)
  /// One past the highest key code the engine tracks (`KEY_MAX + 1`).
  public static let count = Int(KEY_MAX) + 1
}
