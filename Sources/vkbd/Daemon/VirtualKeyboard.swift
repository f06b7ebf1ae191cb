import CEvdev
import Glibc
import KeyboardEngine
import LinuxSystem
import SystemPackage

/// The one uinput keyboard vkbd types on, "vkbd virtual keyboard"
/// (`libevdev_uinput_create_from_device`).
final class VirtualKeyboard {
  static let name = "vkbd virtual keyboard"

  private let uinput: OpaquePointer
  /// The uinput fd: written with key events, read for LED changes.
  let fd: FileDescriptor
  /// Where ``write(_:)`` lays out its frames: two events for each key event.
  private let frames = UnsafeMutableBufferPointer<input_event>.allocate(capacity: 2 * 256)
  /// How fast keys may go out (``pace(_:)``), and the keys that wait.
  private var pacing = OutputPacing(ExpansionConfiguration())

  /// The keys the device offers: every key code up to KEY_MAX but the
  /// buttons of mice, joysticks and d-pads (which would make it a pointer,
  /// and go out on a ``VirtualPointer``), unassigned codes included, so
  /// that a keyboard plugged in later finds all its keys, a kernel newer
  /// than these headers too, and expansions every key a layout types with.
  /// uinput cannot add keys after creation.
  static let keys: [ClosedRange<Int32>] = [
    KEY_ESC...0xff, KEY_OK...(BTN_DPAD_UP - 1), (BTN_DPAD_RIGHT + 1)...(BTN_TRIGGER_HAPPY - 1),
    (BTN_TRIGGER_HAPPY40 + 1)...KEY_MAX,
  ]
  static let leds: [Int32] = [LED_NUML, LED_CAPSL, LED_SCROLLL, LED_COMPOSE, LED_KANA]

  /// Creates the device on /dev/uinput.
  init() throws(SystemError) {
    guard let template = libevdev_new() else { throw SystemError("libevdev_new", errno: .noMemory) }
    defer { libevdev_free(template) }
    libevdev_set_name(template, Self.name)
    libevdev_set_id_bustype(template, Int32(BUS_VIRTUAL))
    libevdev_enable_event_type(template, UInt32(EV_KEY))
    for range in Self.keys {
      for code in range { libevdev_enable_event_code(template, UInt32(EV_KEY), UInt32(code), nil) }
    }
    libevdev_enable_event_type(template, UInt32(EV_LED))
    for code in Self.leds { libevdev_enable_event_code(template, UInt32(EV_LED), UInt32(code), nil) }
    // Kernel auto-repeat on the virtual keyboard, for the text console; a
    // desktop ignores it and repeats keys itself.
    var delay: Int32 = 250
    var period: Int32 = 33
    libevdev_enable_event_code(template, UInt32(EV_REP), UInt32(REP_DELAY), &delay)
    libevdev_enable_event_code(template, UInt32(EV_REP), UInt32(REP_PERIOD), &period)
    uinput = try createUInput(from: template)
    fd = FileDescriptor(rawValue: libevdev_uinput_get_fd(uinput))
    _ = fcntl(fd.rawValue, F_SETFL, fcntl(fd.rawValue, F_GETFL) | O_NONBLOCK)
    let syn = input_event(type: UInt16(EV_SYN), code: UInt16(SYN_REPORT), value: 0)
    for index in stride(from: 1, to: frames.count, by: 2) { frames[index] = syn }
  }

  /// Destroys the device (`libevdev_uinput_destroy`).
  deinit {
    libevdev_uinput_destroy(uinput)
    frames.deallocate()
  }

  /// The device's event node, e.g. /dev/input/event7.
  var node: String? { libevdev_uinput_get_devnode(uinput).map { String(cString: $0) } }

  /// Paces the output by `configuration`'s bursts (a reload).
  func pace(_ configuration: ExpansionConfiguration) { pacing.adopt(configuration) }

  /// When the keys that wait may go on (monotonic µs); nil when none wait.
  var waitingDeadline: Int64? { pacing.deadline }

  /// Writes `keys` at `now` (monotonic µs), or as many as the pacing lets
  /// go and the rest from ``writeWaiting(at:)``; true when they all went now.
  func write(_ keys: [OutputKey], at now: Int64) throws(SystemError) -> Bool {
    try pacing.send(keys, at: now) { keys throws(SystemError) in try write(keys) }
  }

  /// Writes as many of the keys that wait as the pacing lets go at `now`.
  func writeWaiting(at now: Int64) throws(SystemError) {
    try pacing.writeWaiting(at: now) { keys throws(SystemError) in try write(keys) }
  }

  /// Writes every key that waits, at once (exit).
  func writeAllWaiting() throws(SystemError) {
    try pacing.writeAllWaiting { keys throws(SystemError) in try write(keys) }
  }

  /// Writes key events, each in its own frame (a SYN_REPORT after it), 256
  /// to a `write` (uinput takes several events per write; the kernel
  /// stamps them).
  private func write(_ keys: ArraySlice<OutputKey>) throws(SystemError) {
    var start = keys.startIndex
    while start < keys.endIndex {
      let end = min(start + frames.count / 2, keys.endIndex)
      for index in start..<end {
        // The SYN_REPORTs in between stay where init put them.
        frames[2 * (index - start)].type = UInt16(EV_KEY)
        frames[2 * (index - start)].code = keys[index].code
        frames[2 * (index - start)].value = keys[index].value.rawValue
      }
      let size = 2 * (end - start) * MemoryLayout<input_event>.stride
      try writeFully(fd, UnsafeRawBufferPointer(start: frames.baseAddress, count: size), to: Self.name)
      start = end
    }
  }

  /// Reads what the kernel sends back: LED changes a desktop made, which
  /// `handle` forwards to the physical keyboards.
  func readLEDs(_ handle: (_ code: UInt16, _ on: Bool) -> Void) {
    var event = input_event()
    while read(fd.rawValue, &event, MemoryLayout<input_event>.size) == MemoryLayout<input_event>.size {
      if event.type == UInt16(EV_LED) { handle(event.code, event.value != 0) }
    }
  }
}

/// A uinput device made like `template` (`libevdev_uinput_create_from_device`).
func createUInput(from template: OpaquePointer) throws(SystemError) -> OpaquePointer {
  var uinput: OpaquePointer?
  let status = libevdev_uinput_create_from_device(template, Int32(LIBEVDEV_UINPUT_OPEN_MANAGED.rawValue), &uinput)
  guard status == 0, let uinput else {
    throw SystemError("create uinput device on", "/dev/uinput", errno: Errno(rawValue: -status))
  }
  return uinput
}
