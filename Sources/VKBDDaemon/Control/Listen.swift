import AgentProtocol
import ArgumentParser
import Glibc
import LinuxSystem
import SystemPackage

extension VKBD {
  /// `vkbd listen`: the daemon's events as they happen, for status bars.
  struct Listen: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "listen",
      abstract: "Print the daemon's state, then each change as it happens, one JSON object a line.",
      discussion: """
        Events: state (the first line), paused, resumed, layout, app, agent-connected, \
        agent-disconnected, reloaded, reload-failed, snippet-failed. Each line carries the whole \
        state (state, layout, group, app, rule, agents, config) besides what changed (by, problems, \
        reason, uid), so a reader keeps nothing. Ends when the daemon stops (exit 69).

        --waybar prints what waybar's custom module reads instead (text, alt, class, tooltip), \
        says "stopped" while the daemon is not running and waits for it to come back.
        """)
    @OptionGroup var client: ClientOptions
    @Flag(name: .long, help: "Print waybar's custom-module JSON and wait for the daemon when it is not running.")
    var waybar = false

    func run() throws {
      // "stopped" is said once each time the daemon goes, not at every try.
      var saidStopped = false
      while true {
        do {
          try ControlClient.listen(socket: client.socket) { event in
            saidStopped = false
            emit(waybar ? ControlProtocol.encode(WaybarState(event)) : ControlProtocol.encode(event))
          }
          guard waybar else {
            printError("the daemon stopped")
            throw SysExit.unavailable
          }
        } catch let unanswered as ControlClient.Unanswered {
          guard waybar, case .notRunning = unanswered else { throw client.failure(unanswered) }
        }
        if !saidStopped { emit(ControlProtocol.encode(WaybarState.stopped)) }
        saidStopped = true
        sleep(1)
      }
    }

    /// One line, written at once (no buffer): a status bar reads it as it comes.
    private func emit(_ line: [UInt8]) {
      _ = try? FileDescriptor.standardOutput.writeAll(line)
    }
  }
}

/// What waybar's custom module reads (`return-type: json`): the text, the
/// state as `alt` and `class` (for its format-icons and CSS), a tooltip.
struct WaybarState: Codable, Equatable {
  var text: String
  var alt: String
  var `class`: String
  var tooltip: String

  init(_ event: DaemonEvent) {
    text = event.isPaused ? "paused" : event.layout
    alt = event.state
    `class` = event.state
    var lines = ["vkbd \(event.state)", "layout \(event.layout), group \(event.group)"]
    if let app = event.app, !app.isEmpty {
      lines.append("app \(app)" + (event.rule.map { ", rule \($0)" } ?? ""))
    }
    lines.append(plural(event.agents, "session agent"))
    if event.event == .reloadFailed { lines.append("reload failed: \(event.problems?.first ?? "")") }
    tooltip = lines.joined(separator: "\n")
  }

  private init(text: String, alt: String, tooltip: String) {
    self.text = text
    self.alt = alt
    self.class = alt
    self.tooltip = tooltip
  }

  static let stopped = WaybarState(text: "", alt: "stopped", tooltip: "vkbd is not running")
}
