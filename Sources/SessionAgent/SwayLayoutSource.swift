import AgentProtocol
import FoundationEssentials
import Glibc
import LinuxSystem
import Logging
import SystemPackage

/// sway's keyboard layout, through its IPC socket (`SWAYSOCK`): the
/// keyboards' layouts at start (GET_INPUTS) and every change after
/// (SUBSCRIBE to `input` events: `xkb_keymap`, `xkb_layout`). sway names
/// the layouts by their descriptions only ("English (US)", "German (no dead
/// keys)"), never by their XKB names, and tells no model or options: the
/// names are found in xkeyboard-config's list (``LayoutDescriptions``).
/// The keyboard followed is vkbd's virtual keyboard when sway lists it
/// (its keymap is the one that reads vkbd's keys), else the first.
final class SwayLayoutSource: LayoutSource, Reconnecting {
  let name = "sway"

  /// sway's message types (sway-ipc(7)).
  enum Message: UInt32 {
    case subscribe = 2
    case getInputs = 100
    /// The `input` event (bit 31 marks events).
    case inputEvent = 0x8000_0015
  }

  /// sway's IPC socket; nil once sway closed it.
  private var socket: FileDescriptor?
  private let logger: Logger
  private var received: [UInt8] = []
  private let descriptions: LayoutDescriptions
  /// The keyboard followed, by sway's identifier.
  private var keyboard: String?
  private var lastReport: LayoutReport?
  private var loggedUnknown: Set<String> = []
  var onLayout: (LayoutReport) -> Void = { _ in }
  var onDescriptorChange: () -> Void = {}

  /// What the agent reads of an input device in sway's replies and events.
  struct Input: Decodable, Equatable {
    var identifier: String?
    var name: String?
    var type: String?
    var layoutNames: [String?]?
    var activeLayout: Int?

    enum CodingKeys: String, CodingKey {
      case identifier, name, type
      case layoutNames = "xkb_layout_names"
      case activeLayout = "xkb_active_layout_index"
    }
  }

  /// An `input` event.
  struct InputEvent: Decodable {
    var change: String
    var input: Input
  }

  /// Connects to sway and asks for the keyboards and their changes.
  init(path: String, logger: Logger, descriptions: LayoutDescriptions = .system) throws(AgentExit) {
    self.logger = logger
    self.descriptions = descriptions
    do {
      socket = try UnixSocket.connect(to: path)
    } catch {
      throw AgentExit.unavailable("cannot connect to sway's IPC socket \(path): \(error.errno)")
    }
    send(.subscribe, #"["input"]"#)
    send(.getInputs, "")
  }

  deinit { socket?.closeQuietly() }

  var pollFD: FileDescriptor? { socket }

  /// Reads sway's replies and events; when sway goes, this source stops
  /// (the focus source ends the agent).
  func readable() throws(AgentExit) {
    guard let socket else { return }
    var chunk = [UInt8](repeating: 0, count: 65536)
    let count: Int
    let result = try? nonBlocking("read", "sway's socket") { read(socket.rawValue, &chunk, chunk.count) }
    switch result {
    case .done(let read)?: count = read
    case .wouldBlock?: return
    case nil: count = -1  // sway's socket failed: as gone
    }
    guard count > 0 else {
      self.socket = nil
      onDescriptorChange()
      socket.closeQuietly()
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

  /// One reply or event; what is not JSON of the expected shape is passed over.
  func take(type: UInt32, payload: [UInt8]) {
    let decoder = JSONDecoder()
    switch Message(rawValue: type) {
    case .getInputs:
      guard let inputs = try? decoder.decode([Input].self, from: Data(payload)) else { return }
      keyboard = nil
      takeInputs(inputs)
    case .inputEvent:
      guard let event = try? decoder.decode(InputEvent.self, from: Data(payload)) else { return }
      switch event.change {
      case "xkb_keymap", "xkb_layout": takeInputs([event.input])
      case "added" where keyboard == nil: takeInputs([event.input])
      case "removed" where event.input.identifier == keyboard:
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
  private func takeInputs(_ inputs: [Input]) {
    let keyboards = inputs.filter { $0.type == "keyboard" && $0.layoutNames != nil }
    var chosen = keyboards.first { $0.identifier == keyboard }
    if chosen == nil && (keyboard == nil || inputs.count > 1) {
      chosen = keyboards.first { $0.name?.hasPrefix("vkbd") == true } ?? keyboards.first
    }
    guard let chosen else { return }
    keyboard = chosen.identifier
    report(chosen)
  }

  private func report(_ input: Input) {
    let names = input.layoutNames ?? []
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
    let group = input.activeLayout ?? 0
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
    guard let socket else { return }
    _ = bytes.withUnsafeBytes { Glibc.send(socket.rawValue, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
  }

  private static func word(_ bytes: [UInt8], at offset: Int) -> UInt32 {
    (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
  }
}
