import AgentProtocol
import Foundation
import Glibc
import LinuxSystem
import Logging
import Testing

@testable import SessionAgent

/// sway's layout, from the IPC messages sway 1.7 sent (recorded with
/// `swaymsg -t subscribe -m '["input"]'` while `swaymsg input type:keyboard
/// xkb_layout "us,de"`, `xkb_switch_layout 1` and `xkb_variant ",nodeadkeys"`
/// ran), played by a fake sway on a socket.
@Suite(.serialized) struct SwayLayoutTests {
  static func input(_ names: [String], active: Int, name: String = "virtual keyboard") -> String {
    let list = names.map { "\"\($0)\"" }.joined(separator: ", ")
    return """
      { "identifier": "0:0:\(name.replacingOccurrences(of: " ", with: "_"))", "name": "\(name)", "vendor": 0, \
      "product": 0, "type": "keyboard", "xkb_layout_names": [ \(list) ], "xkb_active_layout_index": \(active), \
      "xkb_active_layout_name": "\(names[active])" }
      """
  }

  static let recorded: [(UInt32, String)] = [
    (100, "[ { \"identifier\": \"0:0:pointer\", \"type\": \"pointer\" }, \(input(["English (US)"], active: 0)) ]"),
    (0x8000_0015, "{ \"change\": \"xkb_keymap\", \"input\": \(input(["English (US)", "German"], active: 0)) }"),
    (0x8000_0015, "{ \"change\": \"xkb_layout\", \"input\": \(input(["English (US)", "German"], active: 1)) }"),
    // Another keyboard's event says nothing of the one followed.
    (0x8000_0015, "{ \"change\": \"xkb_layout\", \"input\": \(input(["French"], active: 0, name: "other")) }"),
    (
      0x8000_0015,
      "{ \"change\": \"xkb_keymap\", \"input\": \(input(["English (US)", "German (no dead keys)"], active: 0)) }"
    ),
    // A name no list knows (wtype's keymap has none): not followed.
    (0x8000_0015, "{ \"change\": \"xkb_keymap\", \"input\": \(input(["Klingon"], active: 0)) }"),
  ]

  static let list = """
    ! layout
      us              English (US)
      de              German
    ! variant
      nodeadkeys      de: German (no dead keys)
      sun_type6       us: English (US)
    ! option
      grp:switch      Right Alt (while pressed)
    """

  @Test func theDescriptionsNameLayoutsAndVariants() {
    let descriptions = LayoutDescriptions(list: Self.list)
    #expect(descriptions.names(for: "German (no dead keys)")! == ("de", "nodeadkeys"))
    #expect(descriptions.names(for: "English (US)")! == ("us", ""), "a layout before a variant of its name")
    #expect(descriptions.names(for: "Right Alt (while pressed)") == nil)
  }

  @Test func theSystemListNamesEveryLayoutSwayShows() {
    let system = LayoutDescriptions.system
    #expect(system.names(for: "German")! == ("de", ""))
    #expect(system.names(for: "Russian")! == ("ru", ""))
    #expect(system.names(for: "French (BEPO)")! == ("fr", "bepo"))
  }

  @Test func theRecordedMessagesGiveTheLayoutsAndGroups() throws {
    let (path, server, listening) = Self.listeningSocket("ipc.sock")
    defer { close(server) }
    #expect(listening)
    let source = try SwayLayoutSource(
      path: path, logger: Logger(label: "test"), descriptions: LayoutDescriptions(list: Self.list))
    var reports: [LayoutReport] = []
    source.onLayout = { reports.append($0) }
    let sway = accept(server, nil, nil)
    defer { close(sway) }
    // The agent asked first: SUBSCRIBE ["input"], then GET_INPUTS.
    var asked = [UInt8](repeating: 0, count: 64)
    let count = read(sway, &asked, asked.count)
    #expect(Array(asked[0..<6]) == Array("i3-ipc".utf8))
    #expect(String(decoding: asked[14..<min(count, 23)], as: UTF8.self) == #"["input"]"#)
    // Every message in one stream, the last split in two reads.
    var stream: [UInt8] = []
    for (type, payload) in Self.recorded {
      stream += Array("i3-ipc".utf8)
      for value in [UInt32(payload.utf8.count), type] { withUnsafeBytes(of: value.littleEndian) { stream += $0 } }
      stream += payload.utf8
    }
    let half = stream.count - 40
    _ = stream[..<half].withUnsafeBytes { write(sway, $0.baseAddress, $0.count) }
    try source.readable()
    _ = stream[half...].withUnsafeBytes { write(sway, $0.baseAddress, $0.count) }
    try source.readable()
    #expect(
      reports == [
        LayoutReport(source: "sway", layout: "us"),
        LayoutReport(source: "sway", layout: "us,de"),
        LayoutReport(source: "sway", layout: "us,de", group: 1),
        LayoutReport(source: "sway", layout: "us,de", variant: ",nodeadkeys"),
      ])
  }

  @Test(arguments: [
    (
      #"[{"identifier":"k","type":"keyboard","xkb_layout_names":["German"],"xkb_active_layout_index":0,"x":[1,2.5,{}]}]"#,
      true
    ),
    (#"[{"identifier":"k","type":"keyboard","xkb_layout_names":["German"]}"#, false),
    (#"[{"identifier" "k"}]"#, false),
    (#""unclosed"#, false),
    (String(repeating: "[", count: 100) + String(repeating: "]", count: 100), false),
  ])
  func whatSwaySendsIsReadAndNothingElse(text: String, valid: Bool) throws {
    let source = try Self.detachedSource()
    var reports: [LayoutReport] = []
    source.onLayout = { reports.append($0) }
    source.take(type: SwayLayoutSource.Message.getInputs.rawValue, payload: Array(text.utf8))
    #expect(reports == (valid ? [LayoutReport(source: "sway", layout: "de")] : []))
  }

  /// A source connected to a socket no one answers: for feeding it
  /// payloads directly.
  static func detachedSource() throws -> SwayLayoutSource {
    let (path, server, _) = listeningSocket("quiet.sock")
    defer { close(server) }
    return try SwayLayoutSource(path: path, logger: Logger(label: "test"), descriptions: LayoutDescriptions(list: list))
  }

  /// A socket for sway's stand-in, named `name` in the tests' directory:
  /// its path, its descriptor, and whether it is bound and listening.
  static func listeningSocket(_ name: String) -> (path: String, server: Int32, listening: Bool) {
    let directory = "/tmp/vkbd-sway-test-\(getpid())"
    mkdir(directory, 0o700)
    let path = directory + "/" + name
    unlink(path)
    let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    let bound = withSocketAddress(path) { bind(server, $0, $1) } == 0
    return (path, server, bound && listen(server, 1) == 0)
  }
}
