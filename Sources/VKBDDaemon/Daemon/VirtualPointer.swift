import CEvdev
import Glibc
import LinuxSystem
import SystemPackage

/// The pointer half of a grabbed keyboard that is also a pointer (a wireless
/// keyboard with a touchpad or a trackpoint in one evdev node): its motion,
/// wheels and buttons are none of the engine's business, and the grab
/// would swallow them. They go out on a uinput pointer of their own, "vkbd
/// virtual pointer", made with the device's axes, buttons and properties,
/// frame by frame in the loop turn they came in.
final class VirtualPointer {
  static let name = "vkbd virtual pointer"

  private let uinput: OpaquePointer
  private let fd: FileDescriptor
  private var frame = PointerFrame()

  /// Whether `device` has a pointer half: a relative or absolute axis, or a
  /// pointer button.
  static func isWanted(by device: EvdevDevice) -> Bool {
    device.has(EV_REL) || device.has(EV_ABS) || PointerFrame.buttons.contains { device.has(EV_KEY, $0) }
  }

  /// Creates the pointer with the axes (absolute ones with their ranges),
  /// pointer buttons and input properties of `device`
  /// (`libevdev_uinput_create_from_device`).
  init(copying device: EvdevDevice) throws(SystemError) {
    guard let template = libevdev_new() else { throw SystemError("libevdev_new", errno: .noMemory) }
    defer { libevdev_free(template) }
    libevdev_set_name(template, Self.name)
    libevdev_set_id_bustype(template, Int32(BUS_VIRTUAL))
    for code in 0...REL_MAX where device.has(EV_REL, code) {
      libevdev_enable_event_code(template, UInt32(EV_REL), UInt32(code), nil)
    }
    for code in 0...ABS_MAX where device.has(EV_ABS, code) {
      libevdev_enable_event_code(template, UInt32(EV_ABS), UInt32(code), device.absoluteAxis(code))
    }
    for code in PointerFrame.buttons where device.has(EV_KEY, code) {
      libevdev_enable_event_code(template, UInt32(EV_KEY), UInt32(code), nil)
    }
    for property in 0...INPUT_PROP_MAX where device.hasProperty(property) {
      libevdev_enable_property(template, UInt32(property))
    }
    uinput = try createUInput(from: template)
    fd = FileDescriptor(rawValue: libevdev_uinput_get_fd(uinput))
  }

  /// Destroys the device: the kernel lets go of its buttons.
  deinit { libevdev_uinput_destroy(uinput) }

  /// The device's event node, e.g. /dev/input/event8.
  var node: String? { libevdev_uinput_get_devnode(uinput).map { String(cString: $0) } }

  /// Takes one event of the source device: false when it is not the
  /// pointer's (a key, a scan code). A frame goes out at its SYN_REPORT.
  /// `onClick` hears every button press.
  func take(_ event: input_event, onClick: () -> Void) throws(SystemError) -> Bool {
    switch frame.take(event) {
    case .notPointer: return false
    case .held(let click):
      if click { onClick() }
    case .complete:
      try write(frame.events)
      frame.sent()
    }
    return true
  }

  /// Lets go of every button still down, in one frame, before the device
  /// goes (its source was removed mid-click).
  func releaseButtons() throws(SystemError) {
    let releases = frame.releases()
    guard !releases.isEmpty else { return }
    try write(releases)
  }

  /// Writes `events` and a SYN_REPORT, stamped by the kernel.
  private func write(_ events: [input_event]) throws(SystemError) {
    var all = events
    all.append(input_event(type: UInt16(EV_SYN), code: UInt16(SYN_REPORT), value: 0))
    let result = all.withUnsafeBytes { bytes in
      Result { () throws(SystemError) in try writeFully(fd, bytes, to: Self.name) }
    }
    try result.get()
  }
}

/// A pointer's events gathered into frames: what the source sent between
/// two SYN_REPORTs, nothing added or lost; the buttons it holds are kept
/// so that they can be let go.
struct PointerFrame {
  /// The pointer buttons: mice, joysticks, tablets, touchpads and the
  /// d-pad, and the trigger-happy buttons (`BTN_MISC` … `BTN_GEAR_UP`,
  /// `BTN_DPAD_*`, `BTN_TRIGGER_HAPPY*`). Keys, never typed text.
  static let buttons: [Int32] =
    Array(BTN_MISC...BTN_GEAR_UP) + Array(BTN_DPAD_UP...BTN_DPAD_RIGHT)
    + Array(BTN_TRIGGER_HAPPY...BTN_TRIGGER_HAPPY40)

  private static let buttonTable: [Bool] = {
    var table = [Bool](repeating: false, count: Int(KEY_CNT))
    for code in buttons { table[Int(code)] = true }
    return table
  }()

  /// Whether the key code `code` is a pointer button.
  static func isButton(_ code: Int) -> Bool { code < buttonTable.count && buttonTable[code] }

  /// The events of the frame being read.
  private(set) var events: [input_event] = []
  /// The buttons down, as far as the frames sent say.
  private var down: Set<UInt16> = []

  enum Taken: Equatable {
    /// Not the pointer's: a key, a scan code, a frame end with nothing in it.
    case notPointer
    /// Kept for the frame; `click` when it pressed a button.
    case held(click: Bool)
    /// The frame's SYN_REPORT: ``events`` go out now.
    case complete
  }

  /// Whether `event` is the pointer's, and what it does to the frame.
  mutating func take(_ event: input_event) -> Taken {
    switch Int32(event.type) {
    case EV_REL, EV_ABS:
      events.append(event)
      return .held(click: false)
    case EV_KEY where Self.isButton(Int(event.code)):
      events.append(event)
      return .held(click: event.value == 1)
    case EV_SYN where event.code == UInt16(SYN_REPORT) && !events.isEmpty:
      return .complete
    default:
      return .notPointer
    }
  }

  /// The frame went out: its buttons count as down or up, and a new one starts.
  mutating func sent() {
    for event in events where event.type == UInt16(EV_KEY) {
      if event.value == 0 { down.remove(event.code) } else { down.insert(event.code) }
    }
    events.removeAll(keepingCapacity: true)
  }

  /// The releases of every button down, in code order; afterwards none is.
  mutating func releases() -> [input_event] {
    defer {
      down.removeAll()
      events.removeAll()
    }
    return down.sorted().map { input_event(type: UInt16(EV_KEY), code: $0, value: 0) }
  }
}

/// Writes all of `bytes` to the uinput `fd` of the device `name` (uinput
/// takes several events per write; the kernel stamps them).
func writeFully(_ fd: FileDescriptor, _ bytes: UnsafeRawBufferPointer, to name: String) throws(SystemError) {
  var written = 0
  while written < bytes.count {
    written += try valueOrErrno("write", name) {
      Glibc.write(fd.rawValue, bytes.baseAddress! + written, bytes.count - written)
    }
  }
}
