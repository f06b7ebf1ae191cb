import CEvdev
import Glibc
import KeyboardEngine
import LinuxSystem
import Logging
import SystemPackage

/// The one uinput keyboard vkbd types on, "vkbd virtual keyboard"
/// (`libevdev_uinput_create_from_device`).
final class VirtualKeyboard {
  static let name = "vkbd virtual keyboard"

  private let uinput: OpaquePointer
  /// The uinput fd: written with key events, read for LED changes.
  let fd: FileDescriptor
  private let frames = KeyFrames()
  /// What may not go out at once goes out from its thread, paced.
  private let typist: Typist
  /// What a timer's turn may write at once: a key with its modifiers.
  static let chord = 4

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
  init(logger: Logger) throws(SystemError) {
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
    typist = Typist(fd: fd, pacing: OutputPacing(ExpansionConfiguration()), logger: logger)
  }

  /// Destroys the device (`libevdev_uinput_destroy`).
  deinit {
    typist.finish()
    libevdev_uinput_destroy(uinput)
  }

  /// The device's event node, e.g. /dev/input/event7.
  var node: String? { libevdev_uinput_get_devnode(uinput).map { String(cString: $0) } }

  /// Paces the output by `configuration`'s bursts.
  func pace(_ configuration: ExpansionConfiguration) { typist.adopt(configuration) }

  /// Writes `keys` at `now` (monotonic µs) when nothing waits and the
  /// pacing lets them go (``OutputPacing``), else hands them to the typist;
  /// true when they went now. What a timer's turn makes (an expansion's
  /// next burst, the keys that waited behind it) goes to the typist unless
  /// it is a chord.
  func write(_ keys: [OutputKey], at now: Int64, timed: Bool) throws(SystemError) -> Bool {
    guard (!timed || keys.count <= Self.chord) && typist.mayWrite(keys.count, at: now) else {
      typist.queue(keys)
      return false
    }
    try frames.write(keys[...], to: fd)
    return true
  }

  /// Writes every key that waits and stops the typist (exit).
  func finish() { typist.finish() }

  /// Reads what the kernel sends back: LED changes a desktop made, which
  /// `handle` forwards to the physical keyboards.
  func readLEDs(_ handle: (_ code: UInt16, _ on: Bool) -> Void) {
    var event = input_event()
    while read(fd.rawValue, &event, MemoryLayout<input_event>.size) == MemoryLayout<input_event>.size {
      if event.type == UInt16(EV_LED) { handle(event.code, event.value != 0) }
    }
  }
}

/// Where key events are laid out for one `write`: each in its own frame,
/// a SYN_REPORT after it, 256 to a write.
final class KeyFrames {
  private let frames = UnsafeMutableBufferPointer<input_event>.allocate(capacity: 2 * 256)

  init() {
    let syn = input_event(type: UInt16(EV_SYN), code: UInt16(SYN_REPORT), value: 0)
    for index in 0..<frames.count { frames[index] = syn }
  }

  deinit { frames.deallocate() }

  /// Writes `keys` to the uinput device `fd` (uinput takes several events
  /// per write; the kernel stamps them).
  func write(_ keys: ArraySlice<OutputKey>, to fd: FileDescriptor) throws(SystemError) {
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
      try writeFully(fd, UnsafeRawBufferPointer(start: frames.baseAddress, count: size), to: VirtualKeyboard.name)
      start = end
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
