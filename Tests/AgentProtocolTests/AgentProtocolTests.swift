import Testing

@testable import AgentProtocol

/// Every message either side reads, with a handler that keeps it.
final class Received {
  var messages: [any AgentProtocolMessage] = []
  var reader = MessageReader<Void>()

  init() {
    keep(Hello.self)
    keep(FocusReport.self)
    keep(FieldReport.self)
    keep(LayoutReport.self)
    keep(VariableAnswer.self)
    keep(DialogShown.self)
    keep(SnippetFile.self)
    keep(SnippetFilesEnd.self)
    keep(AgentStanding.self)
    keep(Refusal.self)
    keep(VariableRequest.self)
    keep(DaemonEvent.self)
    keep(DaemonCommand.self)
  }

  private func keep<Message: AgentProtocolMessage>(_ type: Message.Type) {
    reader.on(type) { [unowned self] message, _ in messages.append(message) }
  }

  /// The message on `line`, read as a daemon or an agent reads it.
  static func decode(_ line: some Collection<UInt8>) throws(AgentProtocolError) -> any AgentProtocolMessage {
    try Received().reader.decode(line)
  }
}

/// Whether two messages are the same message.
func same(_ first: any AgentProtocolMessage, _ second: any AgentProtocolMessage) -> Bool {
  func equal<Message: AgentProtocolMessage>(_ message: Message) -> Bool { (second as? Message) == message }
  return equal(first)
}

@Suite struct AgentProtocolTests {
  static let agentMessages: [any AgentProtocolMessage] = [
    Hello(agent: "0.1.0", source: "wlr-foreign-toplevel"),
    FocusReport(window: 7, app: "foot"),
    FocusReport(window: 1, app: "XTerm", instance: "xterm", title: "vim ~/notes \"todo\"\n\t☃", role: .terminal),
    FocusReport(window: 0, app: ""),
    FieldReport(source: "input-method", role: .text, before: "Thanks. \"Quoted\"\n", isFieldStart: true),
    FieldReport(source: "ibus", role: .text, maybeSecret: true),
    FieldReport(source: "input-method", role: .entry, before: "ada", capitals: false, correction: false),
    FieldReport(source: "input-method", role: .text, capitals: true),
    FieldReport(source: "at-spi", role: .password),
    FieldReport(source: "input-method"),
    LayoutReport(source: "sway", layout: "us,de", variant: ",nodeadkeys", options: "grp:alt_shift_toggle", group: 1),
    LayoutReport(source: "x11", rules: "evdev", model: "pc104", layout: "fr", variant: "oss"),
    LayoutReport(source: "x11", layout: "us", variant: "intl", locale: "pt_BR.UTF-8"),
    LayoutReport(source: "kwin", layout: "rs", variant: "latin", locale: "sr_RS.UTF-8@latin"),
    VariableAnswer(id: 3, result: .success(VariableValueText("  out\n", fields: ["name": "Ada", "x": ""]))),
    VariableAnswer(id: 4, result: .failure(AgentProtocolError("bash exited with status 3"))),
    DialogShown(id: 5),
    SnippetFile(path: "/home/ada/.config/espanso/match/base.yml", text: "matches:\n  - trigger: a\n"),
    SnippetFilesEnd(directory: "/home/ada/.config/espanso/match", count: 1),
    DaemonCommand(.pause), DaemonCommand(.picker),
  ]

  @Test(arguments: 0..<agentMessages.count)
  func everyMessageReadsBackAsItWasWritten(index: Int) throws {
    let message = Self.agentMessages[index]
    let line = message.encoded()
    #expect(line.last == UInt8(ascii: "\n"))
    #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") }, "one line")
    #expect(same(try Received.decode(line.dropLast()), message))
  }

  static var variableRequests: [VariableRequest] {
    var shell = VariableRequest(id: 1, kind: .shell)
    shell.arguments = ["echo \"$ESPANSO_X\""]
    shell.shell = "zsh"
    shell.environment = ["ESPANSO_X": "a=b", "ESPANSO_Y": ""]
    var script = VariableRequest(id: 2, kind: .script)
    script.arguments = ["/usr/bin/printf", "%s", ""]
    script.trim = false
    var choice = VariableRequest(id: 3, kind: .choice)
    choice.arguments = ["Hello", "Hi"]
    choice.values = ["hello", "hi"]
    var form = VariableRequest(id: 4, kind: .form)
    form.layout = "Dear [[name]]"
    form.arguments = ["name"]
    form.values = [""]
    return [shell, script, VariableRequest(id: 5, kind: .clipboard), choice, form]
  }

  static var daemonMessages: [any AgentProtocolMessage] {
    var failed = DaemonEvent(
      event: .reloadFailed, state: "running", layout: "us,de", group: 2, app: "org.gnome.TextEditor", rule: 3,
      agents: 1, config: "/etc/vkbd/config.yaml")
    failed.by = "file"
    failed.problems = ["/etc/vkbd/config.yaml:3:17: autocapitalize must be true or false"]
    var connected = DaemonEvent(
      event: .agentConnected, state: "paused", layout: "de", group: 1, app: nil, rule: nil, agents: 2,
      config: "(embedded default)")
    connected.uid = 1000
    return [
      AgentStanding(active: true), AgentStanding(active: false),
      AgentStanding(active: true, notifications: false),
      Refusal("too many agents"), failed, connected,
    ]
  }

  @Test(arguments: 0..<daemonMessages.count)
  func everyDaemonMessageReadsBack(index: Int) throws {
    let message = Self.daemonMessages[index]
    #expect(same(try Received.decode(message.encoded().dropLast()), message))
  }

  @Test(arguments: variableRequests)
  func everyVariableRequestReadsBack(request: VariableRequest) throws {
    #expect(try decodeMessage(VariableRequest.self, from: request.encoded().dropLast()) == request)
  }

  @Test func listsAndMapsAreRealJSON() {
    var request = VariableRequest(id: 9, kind: .script)
    request.arguments = ["a", "b c"]
    request.environment = ["ESPANSO_X": "1"]
    let line = String(decoding: request.encoded(), as: UTF8.self)
    #expect(line.contains(#""arguments":["a","b c"]"#))
    #expect(line.contains(#""environment":{"ESPANSO_X":"1"}"#))
    #expect(line.contains(#""version":\#(AgentProtocol.version)"#) && line.contains(#""type":"variable""#))
  }

  @Test func aReaderRefusesWhatItHasNoHandlerFor() {
    var reader = MessageReader<Void>()
    reader.on(FocusReport.self) { _, _ in }
    #expect(throws: AgentProtocolError("unknown message type (focus)")) {
      try reader.read(Hello(agent: "1", source: "x11").encoded().dropLast(), ())
    }
  }

  @Test(arguments: ["relative/base.yml", "/home/ada/../root/x.yml"])
  func aSnippetFileMustBeAnAbsolutePathWithoutDotDot(path: String) {
    let line = SnippetFile(path: path, text: "").encoded().dropLast()
    #expect(throws: AgentProtocolError.self) { try Received.decode(line) }
  }

  @Test func aReportReadsLikeTheManPageSays() throws {
    let line = #"{"version":2,"type":"focus","window":3,"app":"org.gnome.Terminal","title":"~","role":"terminal"}"#
    let report = FocusReport(window: 3, app: "org.gnome.Terminal", title: "~", role: .terminal)
    #expect(try decodeMessage(FocusReport.self, from: Array(line.utf8)) == report)
    // Spaces, another order, nulls for what is absent.
    let spaced = #" { "app" : "kitty" , "window" : 4 , "type" : "focus" , "version" : 2 , "role" : null } "#
    #expect(try decodeMessage(FocusReport.self, from: Array(spaced.utf8)) == FocusReport(window: 4, app: "kitty"))
  }

  @Test(arguments: [
    ("", "not a JSON object"),
    ("nonsense", "not a JSON object"),
    (#"[1]"#, "not a JSON object"),
    (#"{"version":2,"type":"focus","window":1,"app":"a"} x"#, "not a JSON object"),
    (#"{"type":"focus","window":1,"app":"a"}"#, "'version' is missing"),
    (#"{"version":"1","type":"focus","window":1,"app":"a"}"#, "'version' is missing or not a number"),
    (#"{"version":3,"type":"focus","window":1,"app":"a"}"#, "protocol version 3 is not spoken here (2 is)"),
    (#"{"version":2,"window":1,"app":"a"}"#, "'type' is missing"),
    (#"{"version":2,"type":"keys","window":1}"#, "unknown message type"),
    (#"{"version":2,"type":"focus","app":"a"}"#, "field 'window' is missing"),
    (#"{"version":2,"type":"focus","window":-1,"app":"a"}"#, "'window' must not be negative"),
    (#"{"version":2,"type":"focus","window":1.5,"app":"a"}"#, "only whole numbers"),
    (#"{"version":2,"type":"focus","window":1}"#, "field 'app' is missing"),
    (#"{"version":2,"type":"focus","window":1,"app":5}"#, "field 'app' must be a string"),
    (#"{"version":2,"type":"focus","window":1,"app":"a","colour":"red"}"#, "unknown field 'colour'"),
    (#"{"version":2,"type":"focus","window":1,"app":"a","app":"b"}"#, "appears twice"),
    (#"{"version":2,"type":"focus","window":1,"app":"a",}"#, "a comma before a closing bracket"),
    (#"{"version":2,"type":"focus","window":1e0,"app":"a"}"#, "only whole numbers"),
    (#"{"version":2,"type":"focus","window":1,"app":"a","role":"secret"}"#, "field 'role' must be one of"),
    (#"{"version":2,"type":"focus","window":1,"app":{"id":"a"}}"#, "field 'app' must be a string"),
    (#"{"version":2,"type":"focus","window":1,"app":"a\u0"}"#, "not a JSON object"),
    (#"{"version":2,"type":"focus","window":1,"app":"\ud800"}"#, "not a JSON object"),
    (#"{"version":2,"type":"hello","agent":"1"}"#, "field 'source' is missing"),
    (#"{"version":2,"type":"hello","agent":"1","source":"x\nfake log line"}"#, "letters, digits and .+-_"),
    (#"{"version":2,"type":"hello","agent":"","source":"x11"}"#, "letters, digits and .+-_"),
    (#"{"version":2,"type":"field","source":"input-method","start":true}"#, "'start' needs field 'before'"),
    (
      #"{"version":2,"type":"field","source":"ibus","role":"text","before":"x","maybe-secret":true}"#,
      "'maybe-secret' needs field 'role' and no field 'before'"
    ),
    (#"{"version":2,"type":"field","source":"ibus","maybe-secret":true}"#, "'maybe-secret' needs field 'role'"),
    (
      #"{"version":2,"type":"field","source":"ibus","capitals":false}"#, "'capitals' and 'correction' need field 'role'"
    ),
    (
      #"{"version":2,"type":"field","source":"input-method","before":"\#(String(repeating: "é", count: 257))"}"#,
      "longer than 256 characters"
    ),
    (#"{"version":2,"type":"field","source":"im","role":"secret"}"#, "field 'role' must be one of"),
    (
      #"{"version":2,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"us;rm -rf","variant":"","options":"","group":0}"#,
      "must be XKB names"
    ),
    (
      #"{"version":2,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"","variant":"","options":"","group":0}"#,
      "1 to 4 layouts"
    ),
    (
      #"{"version":2,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"a,b,c,d,e","variant":"","options":"","group":0}"#,
      "1 to 4 layouts"
    ),
    (
      #"{"version":2,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"us,de","variant":"","options":"","group":2}"#,
      "'group' must be 0 to 1"
    ),
    (#"{"version":2,"type":"layout","source":"sway","layout":"us","group":0}"#, "field 'rules' is missing"),
    (
      #"{"version":2,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"us","variant":"","options":"","group":0,"locale":"../../etc"}"#,
      "field 'locale' must be"
    ),
    (
      #"{"version":2,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"us","variant":"","options":"","group":0,"locale":""}"#,
      "field 'locale' must be"
    ),
    (
      #"{"version":2,"type":"event","event":"exploded","state":"running","layout":"us","group":1,"agents":0,"config":"x"}"#,
      "field 'event' must be one of state, paused, resumed"
    ),
    (
      #"{"version":2,"type":"command","command":"reboot"}"#,
      "field 'command' must be one of pause, resume, reload, picker"
    ),
    (
      #"{"version":2,"type":"event","event":"state","state":"running\nfake","layout":"us","group":1,"agents":0,"config":"x"}"#,
      "letters, digits and .+-_"
    ),
    (
      #"{"version":2,"type":"event","event":"reload-failed","state":"running","layout":"us","group":1,"agents":0,"config":"x","problems":[\#(Array(repeating: "\"p\"", count: 33).joined(separator: ","))]}"#,
      "holds more than 32"
    ),
  ])
  func aBadMessageIsRefusedWithAReason(line: String, reason: String) {
    #expect {
      try Received.decode(Array(line.utf8))
    } throws: { error in
      (error as? AgentProtocolError)?.message.contains(reason) == true
    }
  }

  @Test func theReasonNeverQuotesTheTitle() throws {
    let secret = "my bank password 1234"
    let lines = [
      #"{"version":2,"type":"focus","window":1,"app":"a","title":5,"x":"\#(secret)"}"#,
      #"{"version":2,"type":"focus","window":1,"app":"a","title":"\#(secret)","role":"\#(secret)"}"#,
      #"{"version":2,"type":"focus","window":1,"app":"a","title":"\#(secret)"#,
      #"{"version":2,"type":"field","source":"im","before":"\#(secret)","start":"\#(secret)"}"#,
    ]
    for line in lines {
      do {
        _ = try Received.decode(Array(line.utf8))
        Issue.record("accepted \(line)")
      } catch {
        #expect(!error.message.contains("bank"), "\(error.message)")
      }
    }
  }

  @Test func invalidUTF8AndBoundsAreRefused() {
    var line = Array(#"{"version":2,"type":"focus","window":1,"app":"a"#.utf8)
    line += [0xFF, 0xFE] + Array(#""}"#.utf8)
    #expect(throws: AgentProtocolError.self) { try Received.decode(line) }
    let longTitle = String(repeating: "t", count: AgentProtocol.maximumTitle + 1)
    let tooLong = #"{"version":2,"type":"focus","window":1,"app":"a","title":"\#(longTitle)"}"#
    #expect(throws: AgentProtocolError.self) { try Received.decode(Array(tooLong.utf8)) }
    let mebibyte = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
    #expect(throws: AgentProtocolError.self) { try Received.decode(mebibyte) }
  }

  @Test func titlesAreCutAtACharacterBoundary() {
    #expect(AgentProtocol.truncated("héllo", toBytes: 2) == "h")
    #expect(AgentProtocol.truncated("héllo", toBytes: 3) == "hé")
    #expect(AgentProtocol.truncated("short", toBytes: 1024) == "short")
    let long = String(repeating: "€", count: 1000)
    let cut = AgentProtocol.truncated(long, toBytes: AgentProtocol.maximumTitle)
    #expect(cut.utf8.count <= AgentProtocol.maximumTitle && cut.utf8.count > AgentProtocol.maximumTitle - 3)
    let report = FocusReport(window: 1, app: "a", title: cut)
    #expect(throws: Never.self) { try Received.decode(report.encoded().dropLast()) }
  }
}
