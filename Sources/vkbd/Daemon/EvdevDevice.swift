import CEvdev
import Glibc

/// An evdev device node opened through libevdev, with its clock set to
/// CLOCK_MONOTONIC (the engine's and the timerfd's clock).
final class EvdevDevice {
  let path: String
  let fd: Int32
  private let device: OpaquePointer
  /// Whether the device is grabbed (EVIOCGRAB): its events reach only us.
  private(set) var isGrabbed = false
  /// How many times the kernel dropped events (SYN_DROPPED) and libevdev resynced.
  private(set) var resyncs = 0

  /// Opens `path` non-blocking, read-write when allowed (for LEDs)
  /// (`open`, `libevdev_new_from_fd`, `libevdev_set_clock_id`).
  init(path: String) throws(SystemError) {
    var fd = open(path, O_RDWR | O_NONBLOCK | O_CLOEXEC)
    if fd < 0 && errno == EACCES { fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC) }
    guard fd >= 0 else { throw SystemError("open", path) }
    var device: OpaquePointer?
    let status = libevdev_new_from_fd(fd, &device)
    guard status == 0, let device else {
      close(fd)
      throw SystemError("libevdev_new_from_fd", path, errno: -status)
    }
    libevdev_set_clock_id(device, CLOCK_MONOTONIC)
    self.path = path
    self.fd = fd
    self.device = device
  }

  deinit {
    libevdev_free(device)
    close(fd)
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

  /// A keyboard has key events and every letter key (DESIGN 4).
  var isKeyboard: Bool {
    let letters = [
      KEY_Q, KEY_W, KEY_E, KEY_R, KEY_T, KEY_Y, KEY_U, KEY_I, KEY_O, KEY_P, KEY_A, KEY_S, KEY_D, KEY_F, KEY_G,
      KEY_H, KEY_J, KEY_K, KEY_L, KEY_Z, KEY_X, KEY_C, KEY_V, KEY_B, KEY_N, KEY_M,
    ]
    return letters.allSatisfy { has(EV_KEY, $0) }
  }

  /// A pointer has a left button (mice, touchpads): read for clicks, never grabbed.
  var isPointer: Bool { has(EV_KEY, BTN_LEFT) }

  /// Whether the kernel has any key of the device down now (EVIOCGKEY).
  func hasKeysDown() -> Bool { keyState().contains(true) }

  /// Which keys the kernel has down on the device now, by code (EVIOCGKEY).
  /// The kernel also drops the key events still waiting to be read on this
  /// fd: the state it returns already counts them.
  func keyState() -> [Bool] {
    var bits = [UInt8](repeating: 0, count: (Int(KEY_CNT) + 7) / 8)
    guard CEvdev_getKeyState(fd, &bits, UInt(bits.count)) >= 0 else {
      return [Bool](repeating: false, count: Int(KEY_CNT))
    }
    return (0..<Int(KEY_CNT)).map { bits[$0 / 8] & (1 << ($0 % 8)) != 0 }
  }

  /// Grabs the device (EVIOCGRAB through `libevdev_grab`).
  func grab() throws(SystemError) {
    let status = libevdev_grab(device, LIBEVDEV_GRAB)
    guard status == 0 else { throw SystemError("EVIOCGRAB", path, errno: -status) }
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

  /// Reads every pending event (`libevdev_next_event`). After a SYN_DROPPED,
  /// libevdev's resync delivers the state changes that were lost as events
  /// (`resynced` is true for them), so held keys are reconciled.
  func readEvents(_ handle: (_ event: input_event, _ resynced: Bool) -> Void) -> ReadEnd {
    var flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue
    var event = input_event()
    while true {
      let status = libevdev_next_event(device, flags, &event)
      if status == LIBEVDEV_READ_STATUS_SUCCESS.rawValue {
        handle(event, flags == LIBEVDEV_READ_FLAG_SYNC.rawValue)
      } else if status == LIBEVDEV_READ_STATUS_SYNC.rawValue {
        // The first is SYN_DROPPED itself; the resync's events follow.
        if flags == LIBEVDEV_READ_FLAG_SYNC.rawValue { handle(event, true) } else { resyncs += 1 }
        flags = LIBEVDEV_READ_FLAG_SYNC.rawValue
      } else if status == -EAGAIN {
        guard flags == LIBEVDEV_READ_FLAG_SYNC.rawValue else { return .drained }
        flags = LIBEVDEV_READ_FLAG_NORMAL.rawValue  // resync done
      } else {
        return .failed(SystemError("read", path, errno: -status))
      }
    }
  }

  /// Sets an LED on the device (`libevdev_kernel_set_led_value`).
  func setLED(_ code: UInt16, on: Bool) {
    _ = libevdev_kernel_set_led_value(device, UInt32(code), on ? LIBEVDEV_LED_ON : LIBEVDEV_LED_OFF)
  }
}

extension input_event {
  /// The kernel's timestamp in microseconds (CLOCK_MONOTONIC once set).
  var microseconds: Int64 { Int64(time.tv_sec) * 1_000_000 + Int64(time.tv_usec) }
}
