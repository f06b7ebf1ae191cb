import AgentProtocol
import Testing

@testable import vkbd_agent

/// What the user is told of the daemon's events.
@Suite struct NoticeTests {
  static func event(_ kind: DaemonEvent.Kind, by: String? = nil) -> DaemonEvent {
    var event = DaemonEvent(
      event: kind, state: kind == .paused ? "paused" : "running", layout: "us", group: 1, app: "foot", rule: nil,
      agents: 1, config: "/etc/vkbd/config.yaml")
    event.by = by
    return event
  }

  @Test func aPauseByTheChordOrTheCommandIsShownButNotOneByTheIcon() {
    #expect(Notice.about(Self.event(.paused, by: "chord"))?.summary == "vkbd paused")
    #expect(Notice.about(Self.event(.paused, by: "chord"))?.body.contains("the toggle chord") == true)
    #expect(Notice.about(Self.event(.paused, by: "vkbd pause"))?.body.contains("paused by vkbd pause") == true)
    #expect(Notice.about(Self.event(.resumed, by: "vkbd resume"))?.cause == .pause)
    #expect(Notice.about(Self.event(.paused, by: DaemonEvent.statusIcon)) == nil)
    #expect(Notice.about(Self.event(.resumed, by: DaemonEvent.statusIcon)) == nil)
  }

  @Test func aFailedReloadShowsItsFirstProblemsAndThatTheOldConfigRuns() {
    var failed = Self.event(.reloadFailed, by: "file")
    failed.problems = (1...5).map { "/etc/vkbd/config.yaml:\($0):1: problem \($0)" }
    let notice = Notice.about(failed)
    #expect(notice?.cause == .reload && notice?.urgency == 2)
    #expect(
      notice?.body == """
        /etc/vkbd/config.yaml:1:1: problem 1
        /etc/vkbd/config.yaml:2:1: problem 2
        /etc/vkbd/config.yaml:3:1: problem 3
        … and 2 more (vkbd check)
        The previous configuration keeps running.
        """)
  }

  @Test func aSnippetNotTypedSaysWhyAndTheRestIsQuiet() {
    var failed = Self.event(.snippetFailed)
    failed.reason = "snippet at base.yml:3 not typed: the session agent did not answer in time"
    #expect(
      Notice.about(failed) == Notice(cause: .snippet, summary: "vkbd: a snippet was not typed", body: failed.reason!))
    for kind in [DaemonEvent.Kind.state, .layout, .app, .agentConnected, .agentDisconnected, .reloaded] {
      #expect(Notice.about(Self.event(kind)) == nil, "\(kind)")
    }
  }
}
