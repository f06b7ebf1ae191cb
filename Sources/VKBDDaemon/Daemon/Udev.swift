import CEvdev
import Glibc
import LinuxSystem
import SystemPackage

/// libudev: the input devices present, and a monitor for those that come
/// and go.
final class Udev {
  private let udev: OpaquePointer
  private let monitor: OpaquePointer
  /// The monitor's netlink socket, for the event loop.
  let fd: FileDescriptor
  /// Whether udevd runs; when not, the monitor listens to the kernel.
  let isUdevdRunning: Bool

  /// One device event: what happened and the device's node and properties.
  struct DeviceEvent {
    var action: String
    var node: String
    /// Set by a udev rule (`ENV{VKBD_IGNORE}="1"`): never grab this device.
    var ignored: Bool
    /// The device's name and key bits as sysfs has them (an added device's),
    /// so that a device vkbd has no use for is never opened: closing an
    /// evdev fd waits for an RCU grace period, milliseconds each.
    var name: String?
    /// `vendor:product` in hex, as lsusb writes it.
    var id: String?
    var keys: KeyBits?
  }

  /// A device's EV_KEY bits, from sysfs `capabilities/key`: hex words,
  /// most significant first, each a C `long`.
  struct KeyBits {
    private var words: [UInt] = []  // least significant first

    init?(sysfs text: String) {
      for word in text.split(separator: " ").reversed() {
        guard let value = UInt(word, radix: 16) else { return nil }
        words.append(value)
      }
    }

    func contains(_ code: Int32) -> Bool {
      let index = Int(code) / UInt.bitWidth
      return index < words.count && words[index] & (1 << (UInt(code) % UInt(UInt.bitWidth))) != 0
    }
  }

  /// Opens libudev and starts monitoring the input subsystem
  /// (`udev_new`, `udev_monitor_new_from_netlink`).
  init() throws(SystemError) {
    guard let udev = udev_new() else { throw SystemError("udev_new") }
    // Without udevd (a minimal system, a test VM) the kernel's own uevents
    // announce devices; the kernel makes the /dev nodes itself (devtmpfs).
    isUdevdRunning = access("/run/udev/control", F_OK) == 0
    guard let monitor = udev_monitor_new_from_netlink(udev, isUdevdRunning ? "udev" : "kernel") else {
      udev_unref(udev)
      throw SystemError("udev_monitor_new_from_netlink")
    }
    self.udev = udev
    self.monitor = monitor
    udev_monitor_filter_add_match_subsystem_devtype(monitor, "input", nil)
    udev_monitor_enable_receiving(monitor)
    fd = FileDescriptor(rawValue: udev_monitor_get_fd(monitor))
    _ = fcntl(fd.rawValue, F_SETFL, fcntl(fd.rawValue, F_GETFL) | O_NONBLOCK)
  }

  deinit {
    udev_monitor_unref(monitor)
    udev_unref(udev)
  }

  /// The evdev nodes (`/dev/input/event*`) present now (`udev_enumerate_*`).
  func inputDevices() -> [DeviceEvent] {
    guard let enumerate = udev_enumerate_new(udev) else { return [] }
    defer { udev_enumerate_unref(enumerate) }
    udev_enumerate_add_match_subsystem(enumerate, "input")
    udev_enumerate_scan_devices(enumerate)
    var result: [DeviceEvent] = []
    var entry = udev_enumerate_get_list_entry(enumerate)
    while let current = entry {
      if let syspath = udev_list_entry_get_name(current),
        let device = udev_device_new_from_syspath(udev, syspath)
      {
        if let event = Self.deviceEvent(device, action: "add") { result.append(event) }
        udev_device_unref(device)
      }
      entry = udev_list_entry_get_next(current)
    }
    return result.sorted { $0.node < $1.node }
  }

  /// The next device event from the monitor, nil when none is waiting.
  func receive() -> DeviceEvent? {
    while let device = udev_monitor_receive_device(monitor) {
      defer { udev_device_unref(device) }
      let action = udev_device_get_action(device).map { String(cString: $0) } ?? ""
      if let event = Self.deviceEvent(device, action: action) { return event }
    }
    return nil
  }

  private static func deviceEvent(_ device: OpaquePointer, action: String) -> DeviceEvent? {
    guard let node = udev_device_get_devnode(device).map({ String(cString: $0) }),
      node.hasPrefix("/dev/input/event")
    else { return nil }
    let ignored = udev_device_get_property_value(device, "VKBD_IGNORE").map { String(cString: $0) == "1" } ?? false
    // The event node's parent is the input device, which has the attributes.
    let input = udev_device_get_parent_with_subsystem_devtype(device, "input", nil)
    func attribute(_ name: String) -> String? {
      input.flatMap { udev_device_get_sysattr_value($0, name) }.map { String(cString: $0) }
    }
    let id = attribute("id/vendor").flatMap { vendor in attribute("id/product").map { vendor + ":" + $0 } }
    return DeviceEvent(
      action: action, node: node, ignored: ignored, name: attribute("name"), id: id,
      keys: attribute("capabilities/key").flatMap(KeyBits.init(sysfs:)))
  }
}
