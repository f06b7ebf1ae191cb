import Foundation
import Glibc
import KeyboardEngine
import LinuxSystem
import Logging
import Testing

@testable import VKBDDaemon

/// Loads away from the loop: one runs, what is asked meanwhile waits as one
/// more, and each outcome comes back on the loop.
@Suite(.serialized) struct EngineLoaderTests {
  final class Loading {
    let directory = "/tmp/vkbd-loader-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    let loop: EventLoop
    let loader: EngineLoader
    var configuration = ConfigLoader.embeddedDefault()
    var user = UserSnippets()
    var outcomes: [EngineLoader.Outcome] = []

    init() throws {
      try Files.makeDirectories(directory)
      loop = try EventLoop()
      loader = EngineLoader(loop: loop, logger: Logger(label: "test"))
      loader.job = { [unowned self] request in
        EngineLoader.Job(request: request, configPath: config, configuration: configuration, user: user)
      }
      loader.finished = { [unowned self] outcome in
        if case .success(let fresh) = outcome.configuration { configuration = fresh }
        if let (parsed, _) = outcome.user { user = parsed }
        outcomes.append(outcome)
      }
    }

    deinit { try? Files.removeTree(directory) }

    var config: String { directory + "/config.yaml" }

    func write(_ text: String) throws { try text.write(toFile: config, atomically: true, encoding: .utf8) }

    /// Runs the loop until `count` outcomes came, or `seconds`.
    func run(until count: Int, seconds: Double = 60) {
      let end = Date().addingTimeInterval(seconds)
      while outcomes.count < count && Date() < end { try? loop.runOnce(timeoutMilliseconds: 50) }
    }
  }

  static func reload(_ cause: String, client: UInt64? = nil) -> EngineLoader.Request {
    EngineLoader.Request(rereadsConfig: true, causes: [cause], replies: client.map { [$0] } ?? [])
  }

  @Test func requestsWhileOneLoadsWaitAsOneMoreAndEachOutcomeComesOnTheLoop() throws {
    let loading = try Loading()
    try loading.write("matches:\n  - {trigger: ':one', replace: 'one'}\n")
    loading.loader.request(Self.reload("file", client: 1))
    #expect(loading.loader.isBusy)
    // Three more while the first runs: they wait, merged, as one load.
    try loading.write("matches:\n  - {trigger: ':two', replace: 'two'}\n")
    loading.loader.request(Self.reload("SIGHUP", client: 2))
    loading.loader.request(Self.reload("file"))
    loading.loader.request(Self.reload("vkbd reload", client: 3))
    #expect(loading.outcomes.isEmpty)  // nothing comes back but on the loop
    loading.run(until: 2)
    #expect(loading.outcomes.count == 2)
    loading.run(until: 3, seconds: 1)  // and no third
    #expect(loading.outcomes.count == 2 && !loading.loader.isBusy)
    #expect(loading.outcomes.map(\.request.causes) == [["file"], ["SIGHUP", "file", "vkbd reload"]])
    #expect(loading.outcomes.map(\.request.replies) == [[1], [2, 3]])
    // The second read the file as it was when it started.
    let engine = try #require(try? loading.outcomes[1].engine?.get())
    #expect(engine.snippets.snippet(forTrigger: ":two")?.replacement == Template("two"))
  }

  @Test func aConfigThatFailsBuildsNoEngineButTheUsersSnippetsStillLoad() throws {
    let loading = try Loading()
    try loading.write("autocapitalize: maybe\n")
    loading.loader.request(Self.reload("file"))
    loading.run(until: 1)
    let failed = try #require(loading.outcomes.first)
    guard case .failure(let errors) = failed.configuration else {
      Issue.record("the broken config loaded")
      return
    }
    #expect(errors.problems.map(\.message) == ["autocapitalize must be true or false"])
    #expect(failed.engine == nil)
    // A broken config and the user's files at once: the user's go on the
    // configuration in force.
    let sent = UserSnippets.Sent(
      files: ["/home/u/.config/espanso/match/base.yml": "matches:\n  - {trigger: ':mine', replace: 'mine'}\n"],
      directory: "/home/u/.config/espanso", uid: 1000)
    var both = Self.reload("file")
    both.userFiles = .some(sent)
    loading.loader.request(both)
    loading.run(until: 2)
    let second = loading.outcomes[1]
    #expect(second.user?.snippets.snippets.count == 1)
    let engine = try #require(try? second.engine?.get())
    #expect(engine.snippets.snippet(forTrigger: ":mine") != nil)
    #expect(engine.snippets.snippet(forTrigger: ";date") != nil)  // the embedded default's, still in force
    if case .failure = second.configuration {} else { Issue.record("the broken config loaded") }
  }
}
