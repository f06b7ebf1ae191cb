import CEvdev
import Glibc
import KeyboardEngine
import LinuxSystem
import Logging

/// The input devices the daemon reads (DESIGN 4): keyboards it grabs once
/// their keys are up, and pointers it reads for clicks. Devices come from
/// udev, at start and as they are plugged in. Each device's epoll token is
/// ``firstToken`` + its slot, so an event finds its device without hashing;
/// a removed device's slot is taken by the next one added.
final class InputDevices {
  /// The first device token; those below are the daemon's other fds.
  static let firstToken: UInt64 = 16

  /// An input device the daemon reads.
  final class Input {
    enum Role {
      /// A keyboard waiting for its keys to be up before the grab.
      case waitingForRelease
      /// A grabbed keyboard: its events go through the engine.
      case grabbed
      /// A pointer, read (not grabbed) for button presses.
      case pointer
      /// Keys read, not grabbed: a keypad or macro pad (keys but no
      /// letters), or a keyboard the config sets `grab: false`. A key that
      /// types or moves the cursor there forgets the text.
      case readOnly
    }

    let device: EvdevDevice
    let id: DeviceID
    let token: UInt64
    var role: Role
    /// The keys this device holds down, as far as the engine was told.
    var held = [Bool](repeating: false, count: KeyCode.count)
    /// Where a grabbed keyboard's pointer half goes (touchpad, trackpoint).
    var pointer: VirtualPointer?

    init(device: EvdevDevice, id: DeviceID, token: UInt64, role: Role) {
      self.device = device
      self.id = id
      self.token = token
      self.role = role
    }
  }

  let udev: Udev
  /// Which keyboards to grab.
  var filter: DeviceFilter
  private let loop: EventLoop
  private let logger: Logger
  private var slots: [Input?] = []
  private var nextDeviceID: Int32 = 1
  /// Every input device seen, by path, for `vkbd devices`.
  private var seen: [String: DeviceReport] = [:]

  /// Opens udev's monitor; the daemon watches it.
  init(filter: DeviceFilter, loop: EventLoop, logger: Logger) throws(SystemError) {
    self.filter = filter
    self.loop = loop
    self.logger = logger
    udev = try Udev()
    if !udev.isUdevdRunning { logger.info("udevd is not running: hotplug from the kernel's uevents") }
  }

  /// Every device read.
  var all: [Input] { slots.compactMap { $0 } }

  /// The keyboards grabbed.
  var grabbed: [Input] { slots.compactMap { $0?.role == .grabbed ? $0 : nil } }

  /// Whether `token` is a device's.
  func isDevice(_ token: UInt64) -> Bool {
    token >= Self.firstToken && token < Self.firstToken + UInt64(slots.count)
  }

  /// The device of a token for which ``isDevice(_:)`` holds.
  func input(for token: UInt64) -> Input? { slots[Int(token - Self.firstToken)] }

  /// Every device seen, in the order people count (event2 before event10).
  var reports: [DeviceReport] { seen.values.sorted { Self.numbersPadded($0.path) < Self.numbersPadded($1.path) } }

  /// `text` with every run of digits padded to twelve, so that it sorts as
  /// people count.
  static func numbersPadded(_ text: String) -> String {
    var result = ""
    var digits = ""
    for character in text + "/" {
      if character.isASCII && character.isNumber {
        digits.append(character)
        continue
      }
      if !digits.isEmpty {
        result += String(repeating: "0", count: max(0, 12 - digits.count)) + digits
        digits = ""
      }
      result.append(character)
    }
    return String(result.dropLast())
  }

  /// Takes a device udev announced; true when it is now read (the text
  /// before the cursor is then unknown).
  func add(_ event: Udev.DeviceEvent) -> Bool {
    guard event.action == "add", !all.contains(where: { $0.device.path == event.node }) else { return false }
    if let unwanted = Self.unwanted(event) {
      seen[event.node] = DeviceReport(
        name: event.name ?? "?", id: event.id ?? "?", path: event.node, grabbed: false, state: unwanted)
      return false
    }
    let device: EvdevDevice
    do {
      device = try EvdevDevice(path: event.node)
    } catch {
      logger.debug("not opened: \(error)")
      seen[event.node] = DeviceReport(name: "?", id: "?", path: event.node, grabbed: false, state: "\(error)")
      return false
    }
    let name = device.name
    func note(_ state: String) {
      seen[event.node] = DeviceReport(
        name: name, id: device.vendorProduct, path: event.node, grabbed: false, state: state)
    }
    let role: Input.Role
    if name == VirtualKeyboard.name || name == VirtualPointer.name {
      note("vkbd's own virtual \(name == VirtualKeyboard.name ? "keyboard" : "pointer")")
      return false
    } else if event.ignored {
      note("marked VKBD_IGNORE by a udev rule")
      return false
    } else if device.isKeyboard && filter.readsOnly(name: name, vendorProduct: device.vendorProduct) {
      note("read, not grabbed (grab: false): a key that types forgets the remembered text")
      role = .readOnly
    } else if device.isKeyboard {
      guard filter.admits(name: name, vendorProduct: device.vendorProduct) else {
        logger.info("not grabbed: excluded by devices", metadata: ["device": "\(name)", "path": "\(event.node)"])
        note("excluded by the devices setting")
        return false
      }
      note("waiting for its keys to be released")
      role = .waitingForRelease
    } else if device.typesKeys {
      note("keys but no letters: read, not grabbed; a key that types forgets the remembered text")
      role = .readOnly
    } else if device.isPointer {
      note("a pointer: read for button presses")
      role = .pointer
    } else {
      note("not a keyboard")
      return false
    }
    let slot = slots.firstIndex { $0 == nil } ?? slots.count
    let input = Input(device: device, id: DeviceID(nextDeviceID), token: Self.firstToken + UInt64(slot), role: role)
    nextDeviceID &+= 1
    do {
      try loop.watch(device.fd, token: input.token)
    } catch {
      logger.error("\(error)")
      return false
    }
    if slot == slots.count { slots.append(input) } else { slots[slot] = input }
    switch role {
    case .pointer: logger.debug("reading pointer", metadata: ["device": "\(name)"])
    case .readOnly: logger.info("reading keys, not grabbed", metadata: ["device": "\(name)", "path": "\(event.node)"])
    case .waitingForRelease, .grabbed: grabWhenReleased(input)
    }
    return true
  }

  /// Why a device is of no use, as far as sysfs tells without opening it;
  /// nil when it may be (opening it tells the rest).
  private static func unwanted(_ event: Udev.DeviceEvent) -> String? {
    if event.name == VirtualKeyboard.name { return "vkbd's own virtual keyboard" }
    if event.name == VirtualPointer.name { return "vkbd's own virtual pointer" }
    guard let keys = event.keys else { return nil }
    let useful =
      EvdevDevice.isKeyboard(hasKey: keys.contains) || EvdevDevice.isPointer(hasKey: keys.contains)
      || EvdevDevice.typesKeys(hasKey: keys.contains)
    return useful ? nil : "not a keyboard"
  }

  /// Grabs a keyboard once the kernel says no key of it is down, so a key
  /// held at start (the Enter that launched vkbd) is not left repeating. The
  /// check runs again after the grab: a key pressed in between means letting
  /// go and waiting for its release, which the desktop then receives.
  func grabWhenReleased(_ input: Input) {
    let device = input.device
    guard !device.hasKeysDown() else {
      logger.info("waiting for keys to be released before grabbing", metadata: ["device": "\(device.name)"])
      return
    }
    do {
      try device.grab()
    } catch {
      logger.error("\(error)")
      return
    }
    if device.hasKeysDown() {
      device.ungrab()
      return
    }
    // A keyboard that is also a pointer keeps its pointer: the grab would
    // swallow it. Without a pointer to pass it on, the device stays the
    // desktop's.
    var state = "grabbed"
    if VirtualPointer.isWanted(by: device) && input.pointer == nil {
      do {
        input.pointer = try VirtualPointer(copying: device)
        state += "; its pointer goes out on \(VirtualPointer.name)"
      } catch {
        device.ungrab()
        logger.error(
          "not grabbed: its pointer could not be passed on: \(error)", metadata: ["device": "\(device.name)"])
        seen[device.path]?.state = "not grabbed: its pointer could not be passed on (\(error))"
        return
      }
    }
    input.role = .grabbed
    seen[device.path]?.grabbed = true
    seen[device.path]?.state = state
    logger.info(
      "grabbed keyboard",
      metadata: [
        "device": "\(device.name)", "id": "\(device.vendorProduct)", "path": "\(device.path)",
        "pointer": "\(input.pointer?.node ?? "-")",
      ])
  }

  /// The device at `path`, forgotten; nil when none was read there.
  func remove(path: String) -> Input? {
    seen[path] = nil
    guard let input = all.first(where: { $0.device.path == path }) else { return nil }
    return remove(input) ? input : nil
  }

  /// Forgets a device; false when it was forgotten already. The caller
  /// releases the keys it held; its pointer's buttons are let go here.
  func remove(_ input: Input) -> Bool {
    let slot = Int(input.token - Self.firstToken)
    guard slots[slot] === input else { return false }
    slots[slot] = nil
    do {
      try input.pointer?.releaseButtons()
    } catch {
      logger.error("\(error)")
    }
    input.pointer = nil
    loop.unwatch(input.device.fd)
    seen[input.device.path] = nil
    logger.info("device removed", metadata: ["device": "\(input.device.name)"])
    return true
  }

  /// Lets every grabbed keyboard go.
  func ungrabAll() {
    for input in grabbed { input.device.ungrab() }
  }
}
