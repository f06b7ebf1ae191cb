import CEvdev
import Glibc
import LinuxSystem
import SystemPackage

/// An evdev device node opened through libevdev, with its clock set to
/// CLOCK_MONOTONIC (the engine's and the timerfd's clock).
final class EvdevDevice {
  let path: String
  let fd: FileDescriptor
  private let device: OpaquePointer
  /// Whether the device is grabbed (EVIOCGRAB): its events reach only us.
  private(set) var isGrabbed = false
  /// How many times the kernel dropped events (SYN_DROPPED) and the keys
  /// were read again.
  private(set) var resyncs = 0
  /// The keys down as far as the events delivered say, by code: the
  /// kernel's state, since evdev delivers every change or says SYN_DROPPED.
  private(set) var keysDown = [Bool](repeating: false, count: Int(KEY_CNT))
  /// Where `read` puts the events.
  private let buffer = UnsafeMutableBufferPointer<input_event>.allocate(capacity: 64)

  /// Opens `path` non-blocking, read-write when allowed (for LEDs)
  /// (`open`, `libevdev_new_from_fd`, `libevdev_set_clock_id`).
  init(path: String) throws(SystemError) {
    var raw = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    if raw < 0 && errno == EACCES { raw = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
    guard raw >= 0 else { throw SystemError("open", path) }
    let fd = FileDescriptor(rawValue: raw)
    var device: OpaquePointer?
    let status = libevdev_new_from_fd(raw, &device)
    guard status == 0, let device else {
      fd.closeQuietly()
      throw SystemError("libevdev_new_from_fd", path, errno: Errno(rawValue: -status))
    }
    libevdev_set_clock_id(device, CLOCK_MONOTONIC)
    self.path = path
    self.fd = fd
    self.device = device
  }

  deinit {
    libevdev_free(device)
    fd.closeQuietly()
    buffer.deallocate()
  }

  var name: String { libevdev_get_name(device).map { String(cString: $0) } ?? "" }
  var vendor: Int32 { libevdev_get_id_vendor(device) }
  var product: Int32 { libevdev_get_id_product(device) }
  /// `vendor:product` in hex, as lsusb writes it.
  var vendorProduct: String { Self.hex(vendor) + ":" + Self.hex(product) }

  private static func hex(_ value: Int32) -> String {
    let digits = String(value, radix: 16)
    return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
  }

  func has(_ type: Int32, _ code: Int32) -> Bool { libevdev_has_event_code(device, UInt32(type), UInt32(code)) == 1 }
  func has(_ type: Int32) -> Bool { libevdev_has_event_type(device, UInt32(type)) == 1 }
  func hasProperty(_ property: Int32) -> Bool { libevdev_has_property(device, UInt32(property)) == 1 }
  /// The range, resolution and noise of an absolute axis (`libevdev_get_abs_info`).
  func absoluteAxis(_ code: Int32) -> UnsafePointer<input_absinfo>? { libevdev_get_abs_info(device, UInt32(code)) }

  /// The keys every keyboard has (DESIGN 4): the letters.
  private static let letterKeys = [
    KEY_Q, KEY_W, KEY_E, KEY_R, KEY_T, KEY_Y, KEY_U, KEY_I, KEY_O, KEY_P, KEY_A, KEY_S, KEY_D, KEY_F, KEY_G,
    KEY_H, KEY_J, KEY_K, KEY_L, KEY_Z, KEY_X, KEY_C, KEY_V, KEY_B, KEY_N, KEY_M,
  ]

  /// A keyboard has key events and every letter key (DESIGN 4), whether
  /// libevdev or sysfs tells which keys a device has.
  static func isKeyboard(hasKey: (Int32) -> Bool) -> Bool { letterKeys.allSatisfy(hasKey) }

  /// A pointer has a left button (mice, touchpads): read for clicks, never grabbed.
  static func isPointer(hasKey: (Int32) -> Bool) -> Bool { hasKey(BTN_LEFT) }

  /// Keys that type or move the cursor without being letters: the digit
  /// row and the main block's other keys, the keypad, the cursor keys. A
  /// numeric keypad, a macro pad or a presenter remote has some of them;
  /// media keys, power buttons and lid switches do not.
  static func typesKeys(hasKey: (Int32) -> Bool) -> Bool {
    (KEY_1...KEY_KPDOT).contains(where: hasKey)
      || [
        KEY_KPENTER, KEY_KPSLASH, KEY_KPEQUAL, KEY_KPCOMMA, KEY_HOME, KEY_UP, KEY_PAGEUP, KEY_LEFT, KEY_RIGHT,
        KEY_END, KEY_DOWN, KEY_PAGEDOWN, KEY_INSERT, KEY_DELETE,
      ].contains(where: hasKey)
  }

  var isKeyboard: Bool { Self.isKeyboard { has(EV_KEY, $0) } }
  var isPointer: Bool { Self.isPointer { has(EV_KEY, $0) } }
  var typesKeys: Bool { Self.typesKeys { has(EV_KEY, $0) } }

  /// Whether the kernel has any key of the device down now (EVIOCGKEY).
  func hasKeysDown() -> Bool { keyState().contains(true) }

  /// Which keys the kernel has down on the device now, by code (EVIOCGKEY).
  /// The kernel also drops the key events still waiting to be read on this
  /// fd: the state it returns already counts them, and so the events
  /// delivered from now on start from it.
  func keyState() -> [Bool] {
    var bits = [UInt8](repeating: 0, count: (Int(KEY_CNT) + 7) / 8)
    if CEvdev_getKeyState(fd.rawValue, &bits, UInt(bits.count)) < 0 { bits = bits.map { _ in 0 } }
    keysDown = (0..<Int(KEY_CNT)).map { bits[$0 / 8] & (1 << ($0 % 8)) != 0 }
    return keysDown
  }

  /// Grabs the device (EVIOCGRAB through `libevdev_grab`).
  func grab() throws(SystemError) {
    let status = libevdev_grab(device, LIBEVDEV_GRAB)
    guard status == 0 else { throw SystemError("EVIOCGRAB", path, errno: Errno(rawValue: -status)) }
    isGrabbed = true
  }

  func ungrab() {
    _ = libevdev_grab(device, LIBEVDEV_UNGRAB)
    isGrabbed = false
  }

  /// What reading found.
  enum ReadEnd {
    /// Nothing more to read now.
    case drained
    /// The device is gone or broken (ENODEV…): forget it.
    case failed(SystemError)
  }

  /// Reads every pending event (`read`, up to 64 at a time), straight from
  /// the fd: libevdev is for the device's description, grabbing and LEDs.
  /// A read that did not fill the buffer took all there was: no second
  /// read to hear EAGAIN (the loop's epoll wakes for what comes later).
  /// After SYN_DROPPED (this reader's kernel buffer overflowed), the events
  /// read after it are dropped and the keys held are compared with the
  /// kernel's (EVIOCGKEY, which also drops the key events still queued):
  /// every difference is delivered as an event with `resynced` true.
  func readEvents(_ handle: (_ event: input_event, _ resynced: Bool) -> Void) -> ReadEnd {
    let size = MemoryLayout<input_event>.stride
    while true {
      let count: Int
      do {
        guard
          case .done(let read) = try nonBlocking(
            "read", path, { Glibc.read(fd.rawValue, buffer.baseAddress, buffer.count * size) })
        else { return .drained }
        count = read
      } catch {
        return .failed(error)
      }
      guard count > 0 else { return .failed(SystemError("read", path, errno: .operationNotSupportedByDevice)) }
      var index = 0
      var dropped = false
      while index < count / size {
        let event = buffer[index]
        index += 1
        if event.type == UInt16(EV_SYN) && event.code == UInt16(SYN_DROPPED) {
          resyncs += 1
          resynchronize(handle)
          dropped = true
          break
        }
        if event.type == UInt16(EV_KEY) && event.value != 2 && Int(event.code) < keysDown.count {
          keysDown[Int(event.code)] = event.value != 0
        }
        handle(event, false)
      }
      if !dropped && count < buffer.count * size { return .drained }
    }
  }

  /// Delivers, as events, how the kernel's keys differ from those delivered:
  /// releases first, then presses, stamped now.
  private func resynchronize(_ handle: (_ event: input_event, _ resynced: Bool) -> Void) {
    let delivered = keysDown
    let kernel = keyState()
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    for pressed in [false, true] {
      for code in 0..<kernel.count where kernel[code] == pressed && delivered[code] != pressed {
        var event = input_event(type: UInt16(EV_KEY), code: UInt16(code), value: pressed ? 1 : 0)
        event.time = timeval(tv_sec: now.tv_sec, tv_usec: now.tv_nsec / 1000)
        handle(event, true)
      }
    }
  }

  /// Sets an LED on the device (`libevdev_kernel_set_led_value`).
  func setLED(_ code: UInt16, on: Bool) {
    _ = libevdev_kernel_set_led_value(device, UInt32(code), on ? LIBEVDEV_LED_ON : LIBEVDEV_LED_OFF)
  }
}

extension input_event {
  /// An event of `type`, `code` and `value`, with no time (uinput stamps it).
  init(type: UInt16, code: UInt16, value: Int32) {
    self.init()
    self.type = type
    self.code = code
    self.value = value
  }

  /// The kernel's timestamp in microseconds (CLOCK_MONOTONIC once set).
  var microseconds: Int64 { Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec) }
}
