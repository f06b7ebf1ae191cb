import AgentProtocol
import Glibc
import LinuxSystem

extension Daemon {
  /// Answers a control-socket request. Nothing here waits: every answer is
  /// state the loop already has, but a reload's, which `client` gets once
  /// the config has loaded, and the snippet list's and search's, made from
  /// the engine's snippets on a thread of their own (nil here).
  func respond(to request: ControlRequest, from client: UInt64) -> ControlReply? {
    var reply = ControlReply(ok: true)
    switch request.command {
    case .status: reply.status = status()
    case .pause, .resume, .toggle:
      setPaused(
        request.command == .toggle ? !engine.isPaused : request.command == .pause,
        by: "vkbd \(request.command.rawValue)")
      reply.status = status()
    case .listen:
      return .failure("listen is answered by the control socket itself")  // ControlServer takes it first
    case .reload:
      reload(by: "vkbd reload", client: client)
      return nil
    case .devices:
      reply.devices = devices.reports
    case .stats:
      reply.stats = statistics.report
      if request.reset == true { statistics.reset() }
    case .releaseAll:
      engine.releaseAll(into: &output)
      flush(sourceTime: nil)
      logger.info("released every key (vkbd release-all)")
    case .snippets:
      let table = engine.snippets.snippets
      control?.answer(client) {
        ControlReply(ok: true, snippets: table.map(SnippetReport.init))
      }
      return nil
    case .search:
      guard let query = request.query else { return .failure("search needs a query") }
      let (table, index) = (engine.snippets.snippets, engine.searchIndex)
      let limit = min(max(request.limit ?? 20, 1), SearchResult.maximumLimit)
      control?.answer(client) {
        let found = index.search(query, limit: limit)
        return ControlReply(ok: true, results: found.snippets.map { SearchResult(table[$0]) }, matched: found.total)
      }
      return nil
    case .expand:
      guard let trigger = request.trigger, let snippet = engine.snippets.snippet(forTrigger: trigger) else {
        return .failure("no snippet has the trigger '\(request.trigger ?? "")'")
      }
      reply.expansion = snippet.preview(typed: trigger, world: .system, nested: engine.snippets.snippet(forTrigger:))
    case .apps:
      reply.apps = appRules.rules.enumerated().map { index, rule in
        AppRuleReport(
          number: index + 1, matchers: rule.matchers, settings: rule.settings.description, origin: rule.origin,
          inForce: context.rule?.index == index)
      }
    }
    return reply
  }

  func status() -> StatusReport {
    var loaded = configLoaded
    var parts = tm()
    gmtime_r(&loaded, &parts)
    var buffer = [CChar](repeating: 0, count: 32)
    let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
    return StatusReport(
      state: engine.isPaused ? "paused" : "running", config: configuration.source,
      configLoaded: String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self),
      reloadProblems: reloadProblems.isEmpty ? nil : reloadProblems,
      layout: engine.layout.names.description, layoutOrigin: layoutOrigin,
      devicesGrabbed: devices.grabbed.count,
      snippets: engine.snippets.snippets.count, searchIndexBytes: engine.searchIndexBytes,
      autocorrect: autocorrectStatus,
      uptimeSeconds: (monotonicMicroseconds() - startTime) / 1_000_000,
      pid: getpid(), version: VKBDVersion.current, focus: focusStatus())
  }
}
