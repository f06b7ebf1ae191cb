#if VKBD_FUZZ
  import AgentProtocol
  import Glibc
  import KeyboardEngine

  /// libFuzzer's entry point, in a build made with `make fuzz`
  /// (-sanitize=fuzzer,address -DVKBD_FUZZ). VKBD_FUZZ_TARGET picks what the
  /// input goes to: `config` (the config and match-file loader), `script`
  /// (the simulate script parser), `request` (the control-socket request
  /// parser), `agent` (the agent socket's message reader) or `regex` (the
  /// regex front end and PCRE2: the first line is a pattern, compiled as a
  /// trigger and as a filter, the rest a subject the filter is run on).
  /// Anything but a crash, a leak or a hang is fine.
  @_cdecl("LLVMFuzzerTestOneInput")
  public func fuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> Int32 {
    let bytes = UnsafeBufferPointer(start: data, count: size)
    switch FuzzTarget.current {
    case .config:
      guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
      _ = try? ConfigLoader.parse(text, file: "fuzz.yaml")
    case .script:
      guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
      _ = try? Script.parse(text)
    case .request:
      _ = ControlProtocol.decode(ControlRequest.self, from: bytes)
    case .agent:
      _ = try? FuzzTarget.agentMessages.decode(bytes)
    case .regex:
      guard let text = String(validating: bytes, as: UTF8.self) else { return 0 }
      let parts = text.split(separator: "\n", maxSplits: 1, omittingEmptySubsequences: false)
      let pattern = String(parts[0])
      _ = try? TriggerRegex(pattern)
      if let filter = try? FilterRegex(pattern) {
        _ = filter.matches(parts.count > 1 ? String(parts[1]) : "")
      }
    }
    return 0
  }

  /// libFuzzer's driver, for a program with a main of its own (SwiftPM names
  /// an executable's entry point `vkbd_main`).
  @_silgen_name("LLVMFuzzerRunDriver")
  func runFuzzerDriver(
    _ argc: UnsafeMutablePointer<Int32>,
    _ argv: UnsafeMutablePointer<UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?>,
    _ callback: @convention(c) (UnsafePointer<UInt8>, Int) -> Int32
  ) -> Int32

  @_cdecl("vkbd_main")
  func fuzzMain(_ argc: Int32, _ argv: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>?) -> Int32 {
    var count = argc
    var arguments = argv
    return runFuzzerDriver(&count, &arguments) { data, size in fuzzOneInput(data, size) }
  }

  enum FuzzTarget: String {
    case config, script, request, agent, regex

    /// Every message an agent or the daemon reads.
    nonisolated(unsafe) static let agentMessages: MessageReader<Void> = {
      var reader = MessageReader<Void>()
      reader.on(Hello.self) { _, _ in }
      reader.on(FocusReport.self) { _, _ in }
      reader.on(FieldReport.self) { _, _ in }
      reader.on(LayoutReport.self) { _, _ in }
      reader.on(VariableAnswer.self) { _, _ in }
      reader.on(DialogShown.self) { _, _ in }
      reader.on(SnippetFile.self) { _, _ in }
      reader.on(SnippetFilesEnd.self) { _, _ in }
      reader.on(AgentStanding.self) { _, _ in }
      reader.on(Refusal.self) { _, _ in }
      reader.on(VariableRequest.self) { _, _ in }
      return reader
    }()

    static let current: FuzzTarget = {
      let name = getenv("VKBD_FUZZ_TARGET").map { String(cString: $0) } ?? "config"
      guard let target = FuzzTarget(rawValue: name) else {
        preconditionFailure("VKBD_FUZZ_TARGET: config, script, request, agent or regex")
      }
      // The fuzzer must not make the loader read files it names.
      SnippetLoader.readsFiles = false
      return target
    }()
  }
#endif
