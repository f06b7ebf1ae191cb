import AgentProtocol
import Glibc
import Logging

/// sway's keyboard layout, through its IPC socket (`SWAYSOCK`): the
/// keyboards' layouts at start (GET_INPUTS) and every change after
/// (SUBSCRIBE to `input` events: `xkb_keymap`, `xkb_layout`). sway names
/// the layouts by their descriptions only ("English (US)", "German (no dead
/// keys)"), never by their XKB names, and tells no model or options: the
/// names are found in xkeyboard-config's list (``LayoutDescriptions``).
/// The keyboard followed is vkbd's virtual keyboard when sway lists it
/// (its keymap is the one that reads vkbd's keys), else the first.
final class SwayLayoutSource: LayoutSource {
  let name = "sway"

  /// sway's message types (sway-ipc(7)).
  enum Message: UInt32 {
    case subscribe = 2
    case getInputs = 100
    /// The `input` event (bit 31 marks events).
    case inputEvent = 0x8000_0015
  }

  private var fd: Int32
  private let logger: Logger
  private var received: [UInt8] = []
  private let descriptions: LayoutDescriptions
  /// The keyboard followed, by sway's identifier.
  private var keyboard: String?
  private var lastReport: LayoutReport?
  private var loggedUnknown: Set<String> = []
  var onLayout: (LayoutReport) -> Void = { _ in }

  /// Connects to sway and asks for the keyboards and their changes.
  init(path: String, logger: Logger, descriptions: LayoutDescriptions = .system) throws(AgentExit) {
    self.logger = logger
    self.descriptions = descriptions
    fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
    guard fd >= 0, withSocketAddress(path, { connect(fd, $0, $1) }) == 0 else {
      let reason = String(cString: strerror(errno))
      if fd >= 0 { close(fd) }
      throw AgentExit("cannot connect to sway's IPC socket \(path): \(reason)")
    }
    send(.subscribe, #"["input"]"#)
    send(.getInputs, "")
  }

  deinit { if fd >= 0 { close(fd) } }

  var pollFD: Int32? { fd >= 0 ? fd : nil }

  /// Reads sway's replies and events; when sway goes, this source stops
  /// (the focus source ends the agent).
  func readable() throws(AgentExit) {
    var chunk = [UInt8](repeating: 0, count: 65536)
    let count = read(fd, &chunk, chunk.count)
    if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
    guard count > 0 else {
      close(fd)
      fd = -1
      return
    }
    received += chunk[..<count]
    while received.count >= 14 {
      let length = Int(Self.word(received, at: 6))
      guard received.count >= 14 + length else { return }
      let type = Self.word(received, at: 10)
      let payload = Array(received[14..<14 + length])
      received.removeFirst(14 + length)
      take(type: type, payload: payload)
    }
  }

  /// One reply or event.
  func take(type: UInt32, payload: [UInt8]) {
    guard let json = JSON(parsing: payload) else { return }
    switch Message(rawValue: type) {
    case .getInputs:
      keyboard = nil
      json.array.map(takeInputs)
    case .inputEvent:
      guard let change = json["change"]?.string, let input = json["input"] else { return }
      switch change {
      case "xkb_keymap", "xkb_layout": takeInputs([input])
      case "added" where keyboard == nil: takeInputs([input])
      case "removed" where input["identifier"]?.string == keyboard:
        keyboard = nil
        send(.getInputs, "")
      default: break
      }
    default: break
    }
  }

  /// Follows the keyboard among `inputs`: the one followed so far, else
  /// vkbd's, else the first. An event of another keyboard than the one
  /// followed says nothing of it.
  private func takeInputs(_ inputs: [JSON]) {
    let keyboards = inputs.filter { $0["type"]?.string == "keyboard" && $0["xkb_layout_names"] != nil }
    var chosen = keyboards.first { $0["identifier"]?.string == keyboard }
    if chosen == nil && (keyboard == nil || inputs.count > 1) {
      chosen = keyboards.first { $0["name"]?.string?.hasPrefix("vkbd") == true } ?? keyboards.first
    }
    guard let chosen else { return }
    keyboard = chosen["identifier"]?.string
    report(chosen)
  }

  private func report(_ input: JSON) {
    let names = input["xkb_layout_names"]?.array?.map { $0.string } ?? []
    guard !names.isEmpty, names.count <= AgentProtocol.maximumGroups else { return }
    var layouts: [String] = []
    var variants: [String] = []
    for description in names {
      guard let description, let (layout, variant) = descriptions.names(for: description) else {
        let shown = description ?? "(none)"
        if loggedUnknown.insert(shown).inserted {
          logger.notice("sway names a layout xkeyboard-config does not list; its layout is not followed: \(shown)")
        }
        return
      }
      layouts.append(layout)
      variants.append(variant)
    }
    let group = input["xkb_active_layout_index"]?.integer ?? 0
    let report = LayoutReport(
      source: name, layout: layouts.joined(separator: ","),
      variant: variants.allSatisfy(\.isEmpty) ? "" : variants.joined(separator: ","),
      group: (0..<layouts.count).contains(group) ? group : 0)
    guard report != lastReport else { return }
    lastReport = report
    onLayout(report)
  }

  private func send(_ type: Message, _ payload: String) {
    var bytes = Array("i3-ipc".utf8)
    for value in [UInt32(payload.utf8.count), type.rawValue] { withUnsafeBytes(of: value.littleEndian) { bytes += $0 } }
    bytes += payload.utf8
    _ = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
  }
}

/// xkeyboard-config's layouts and variants by description, read from its
/// rules list (`evdev.lst`): "German (no dead keys)" is `de(nodeadkeys)`.
/// A description both a layout and a variant give (Sun keyboards' variants
/// describe themselves as their layout) is the layout.
struct LayoutDescriptions {
  private var byDescription: [String: (layout: String, variant: String)] = [:]

  static let path = "/usr/share/X11/xkb/rules/evdev.lst"
  /// The system's list; empty when it cannot be read.
  static var system: LayoutDescriptions { LayoutDescriptions(list: readText(path) ?? "") }

  /// Reads the `! layout` and `! variant` sections of a rules list.
  init(list: String) {
    var section = ""
    var variants: [(String, (String, String))] = []
    for line in list.split(separator: "\n") {
      if line.hasPrefix("!") {
        section = line.dropFirst().trimmed
        continue
      }
      let trimmed = line.trimmed
      guard let space = trimmed.firstIndex(of: " ") else { continue }
      let name = String(trimmed[..<space])
      let rest = trimmed[space...].trimmed
      switch section {
      case "layout": byDescription[rest] = byDescription[rest] ?? (name, "")
      case "variant":
        guard let colon = rest.firstIndex(of: ":") else { continue }
        let layout = String(rest[..<colon])
        variants.append((rest[rest.index(after: colon)...].trimmed, (layout, name)))
      default: break
      }
    }
    for (description, names) in variants where byDescription[description] == nil { byDescription[description] = names }
  }

  /// The layout and variant a description names; nil for an unknown one.
  func names(for description: String) -> (layout: String, variant: String)? { byDescription[description] }
}
