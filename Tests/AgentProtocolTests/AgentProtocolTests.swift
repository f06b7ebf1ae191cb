import Testing

@testable import AgentProtocol

@Suite struct AgentProtocolTests {
  @Test(arguments: [
    AgentMessage.hello(agent: "0.1.0", source: "wlr-foreign-toplevel"),
    .focus(FocusReport(window: 7, app: "foot")),
    .focus(
      FocusReport(window: 1, app: "XTerm", instance: "xterm", title: "vim ~/notes \"todo\"\n\t☃", role: .terminal)),
    .focus(FocusReport(window: 0, app: "")),
    .field(FieldReport(source: "input-method", role: .text, before: "Thanks. \"Quoted\"\n", isFieldStart: true)),
    .field(FieldReport(source: "at-spi", role: .password)),
    .field(FieldReport(source: "input-method")),
    .layout(
      LayoutReport(source: "sway", layout: "us,de", variant: ",nodeadkeys", options: "grp:alt_shift_toggle", group: 1)),
    .layout(LayoutReport(source: "x11", rules: "evdev", model: "pc104", layout: "fr", variant: "oss")),
    .layout(LayoutReport(source: "x11", layout: "us", variant: "intl", locale: "pt_BR.UTF-8")),
    .layout(LayoutReport(source: "kwin", layout: "rs", variant: "latin", locale: "sr_RS.UTF-8@latin")),
    .value(
      VariableAnswer(id: 3, result: .success(VariableValueText("  out\n", fields: [("name", "Ada"), ("x", "")])))),
    .value(VariableAnswer(id: 4, result: .failure(AgentProtocolError("bash exited with status 3")))),
    .snippetFile(path: "/home/ada/.config/espanso/match/base.yml", text: "matches:\n  - trigger: a\n"),
    .snippetFilesEnd(directory: "/home/ada/.config/espanso/match", count: 1),
  ])
  func everyMessageReadsBackAsItWasWritten(message: AgentMessage) throws {
    let line = message.encoded()
    #expect(line.last == UInt8(ascii: "\n"))
    #expect(line.dropLast().allSatisfy { $0 != UInt8(ascii: "\n") }, "one line")
    #expect(try AgentMessage(decoding: line.dropLast()) == message)
  }

  static var variableRequests: [VariableRequest] {
    var shell = VariableRequest(id: 1, kind: .shell)
    shell.arguments = ["echo \"$ESPANSO_X\""]
    shell.shell = "zsh"
    shell.environment = [("ESPANSO_X", "a=b"), ("ESPANSO_Y", "")]
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

  @Test(arguments: [DaemonMessage.session(active: true), .session(active: false), .refused("too many agents")])
  func everyDaemonMessageReadsBack(message: DaemonMessage) throws {
    #expect(try DaemonMessage(decoding: message.encoded().dropLast()) == message)
  }

  @Test(arguments: variableRequests)
  func everyVariableRequestReadsBack(request: VariableRequest) throws {
    #expect(try DaemonMessage(decoding: DaemonMessage.variable(request).encoded().dropLast()) == .variable(request))
  }

  @Test(arguments: ["relative/base.yml", "/home/ada/../root/x.yml"])
  func aSnippetFileMustBeAnAbsolutePathWithoutDotDot(path: String) {
    let line = AgentMessage.snippetFile(path: path, text: "").encoded().dropLast()
    #expect(throws: AgentProtocolError.self) { try AgentMessage(decoding: line) }
  }

  @Test func aReportReadsLikeTheManPageSays() throws {
    let line = #"{"version":1,"type":"focus","window":3,"app":"org.gnome.Terminal","title":"~","role":"terminal"}"#
    let report = FocusReport(window: 3, app: "org.gnome.Terminal", title: "~", role: .terminal)
    #expect(try AgentMessage(decoding: Array(line.utf8)) == .focus(report))
    // Spaces, another order, nulls for what is absent.
    let spaced = #" { "app" : "kitty" , "window" : 4 , "type" : "focus" , "version" : 1 , "role" : null } "#
    #expect(try AgentMessage(decoding: Array(spaced.utf8)) == .focus(FocusReport(window: 4, app: "kitty")))
  }

  @Test(arguments: [
    ("", "not a JSON object"),
    ("nonsense", "not a JSON object"),
    (#"[1]"#, "not a JSON object"),
    (#"{"version":1,"type":"focus","window":1,"app":"a"} x"#, "text after the object"),
    (#"{"type":"focus","window":1,"app":"a"}"#, "'version' is missing"),
    (#"{"version":"1","type":"focus","window":1,"app":"a"}"#, "'version' is missing or not a number"),
    (#"{"version":2,"type":"focus","window":1,"app":"a"}"#, "protocol version 2 is not spoken here (1 is)"),
    (#"{"version":1,"window":1,"app":"a"}"#, "'type' is missing"),
    (#"{"version":1,"type":"keys","window":1}"#, "unknown message type"),
    (#"{"version":1,"type":"focus","app":"a"}"#, "field 'window' is missing"),
    (#"{"version":1,"type":"focus","window":-1,"app":"a"}"#, "'window' must not be negative"),
    (#"{"version":1,"type":"focus","window":1.5,"app":"a"}"#, "only whole numbers"),
    (#"{"version":1,"type":"focus","window":1}"#, "field 'app' is missing"),
    (#"{"version":1,"type":"focus","window":1,"app":5}"#, "field 'app' must be a string"),
    (#"{"version":1,"type":"focus","window":1,"app":"a","colour":"red"}"#, "unknown field 'colour'"),
    (#"{"version":1,"type":"focus","window":1,"app":"a","app":"b"}"#, "appears twice"),
    (#"{"version":1,"type":"focus","window":1,"app":"a","role":"secret"}"#, "field 'role' must be one of"),
    (#"{"version":1,"type":"focus","window":1,"app":{"id":"a"}}"#, "nested objects"),
    (#"{"version":1,"type":"focus","window":1,"app":"a\u0"}"#, "four hex digits"),
    (#"{"version":1,"type":"focus","window":1,"app":"\ud800"}"#, "unpaired surrogate"),
    (#"{"version":1,"type":"hello","agent":"1"}"#, "field 'source' is missing"),
    (#"{"version":1,"type":"hello","agent":"1","source":"x\nfake log line"}"#, "letters, digits and .+-_"),
    (#"{"version":1,"type":"hello","agent":"","source":"x11"}"#, "letters, digits and .+-_"),
    (#"{"version":1,"type":"field","source":"input-method","start":true}"#, "'start' needs field 'before'"),
    (
      #"{"version":1,"type":"field","source":"input-method","before":"\#(String(repeating: "é", count: 257))"}"#,
      "longer than 256 characters"
    ),
    (#"{"version":1,"type":"field","source":"im","role":"secret"}"#, "field 'role' must be one of"),
    (
      #"{"version":1,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"us;rm -rf","variant":"","options":"","group":0}"#,
      "must be XKB names"
    ),
    (
      #"{"version":1,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"","variant":"","options":"","group":0}"#,
      "1 to 4 layouts"
    ),
    (
      #"{"version":1,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"a,b,c,d,e","variant":"","options":"","group":0}"#,
      "1 to 4 layouts"
    ),
    (
      #"{"version":1,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"us,de","variant":"","options":"","group":2}"#,
      "'group' must be 0 to 1"
    ),
    (#"{"version":1,"type":"layout","source":"sway","layout":"us","group":0}"#, "field 'rules' is missing"),
    (
      #"{"version":1,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"us","variant":"","options":"","group":0,"locale":"../../etc"}"#,
      "field 'locale' must be"
    ),
    (
      #"{"version":1,"type":"layout","source":"sway","rules":"evdev","model":"pc105","layout":"us","variant":"","options":"","group":0,"locale":""}"#,
      "field 'locale' must be"
    ),
  ])
  func aBadMessageIsRefusedWithAReason(line: String, reason: String) {
    #expect {
      try AgentMessage(decoding: Array(line.utf8))
    } throws: { error in
      (error as? AgentProtocolError)?.message.contains(reason) == true
    }
  }

  @Test func theReasonNeverQuotesTheTitle() throws {
    let secret = "my bank password 1234"
    let lines = [
      #"{"version":1,"type":"focus","window":1,"app":"a","title":5,"x":"\#(secret)"}"#,
      #"{"version":1,"type":"focus","window":1,"app":"a","title":"\#(secret)","role":"\#(secret)"}"#,
      #"{"version":1,"type":"focus","window":1,"app":"a","title":"\#(secret)"#,
      #"{"version":1,"type":"field","source":"im","before":"\#(secret)","start":"\#(secret)"}"#,
    ]
    for line in lines {
      do {
        _ = try AgentMessage(decoding: Array(line.utf8))
        Issue.record("accepted \(line)")
      } catch {
        #expect(!error.message.contains("bank"), "\(error.message)")
      }
    }
  }

  @Test func invalidUTF8AndBoundsAreRefused() {
    var line = Array(#"{"version":1,"type":"focus","window":1,"app":"a"#.utf8)
    line += [0xFF, 0xFE] + Array(#""}"#.utf8)
    #expect(throws: AgentProtocolError.self) { try AgentMessage(decoding: line) }
    let longTitle = String(repeating: "t", count: AgentProtocol.maximumTitle + 1)
    let tooLong = #"{"version":1,"type":"focus","window":1,"app":"a","title":"\#(longTitle)"}"#
    #expect(throws: AgentProtocolError.self) { try AgentMessage(decoding: Array(tooLong.utf8)) }
    let mebibyte = [UInt8](repeating: UInt8(ascii: " "), count: 1 << 20)
    #expect(throws: AgentProtocolError.self) { try AgentMessage(decoding: mebibyte) }
  }

  @Test func titlesAreCutAtACharacterBoundary() {
    #expect(AgentProtocol.truncated("héllo", toBytes: 2) == "h")
    #expect(AgentProtocol.truncated("héllo", toBytes: 3) == "hé")
    #expect(AgentProtocol.truncated("short", toBytes: 1024) == "short")
    let long = String(repeating: "€", count: 1000)
    let cut = AgentProtocol.truncated(long, toBytes: AgentProtocol.maximumTitle)
    #expect(cut.utf8.count <= AgentProtocol.maximumTitle && cut.utf8.count > AgentProtocol.maximumTitle - 3)
    let report = FocusReport(window: 1, app: "a", title: cut)
    #expect(throws: Never.self) { try AgentMessage(decoding: AgentMessage.focus(report).encoded().dropLast()) }
  }
}
