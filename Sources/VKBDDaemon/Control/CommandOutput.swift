import ArgumentParser
import FoundationEssentials
import Glibc
import KeyboardEngine

/// `--json`: stable JSON instead of text for people.
struct JSONOption: ParsableArguments {
  @Flag(name: .long, help: "Print JSON (stable field names) instead of text.")
  var json = false

  /// Prints `value` as JSON, or `text()` for people.
  func print<Value: Encodable>(_ value: Value, text: () -> String) {
    if json {
      Swift.print(String(decoding: ControlProtocol.encode(value).dropLast(), as: UTF8.self))
    } else {
      Swift.print(text(), terminator: "")
    }
  }
}

/// The replies as text for people.
enum Report {
  static func status(_ status: StatusReport) -> String {
    """
    vkbd \(status.version) is \(status.state) (pid \(status.pid), up \(duration(status.uptimeSeconds)))
    config    \(status.config) (loaded \(status.configLoaded))\(reloadFailure(status.reloadProblems))
    layout    \(status.layout)\(status.layoutOrigin.map { ", from \($0)" } ?? "")
    devices   \(plural(status.devicesGrabbed, "keyboard")) grabbed
    snippets  \(status.snippets)\(status.searchIndexBytes.map { ", search index \(mebibytes($0))" } ?? "")\
    \(status.autocorrect.map { "\nspelling  \($0)" } ?? "")

    """ + (status.focus.map(focus) ?? "")
  }

  /// The lines of a reload that failed, under the config's.
  static func reloadFailure(_ problems: [String]?) -> String {
    guard let problems, !problems.isEmpty else { return "" }
    return "\n          the last reload failed; this config keeps running:"
      + problems.map { "\n            \($0)" }.joined()
  }

  /// The focus lines of `vkbd status`: the app, the rule, the agents.
  static func focus(_ focus: FocusStatus) -> String {
    let users = focus.activeUsers.isEmpty ? "no one" : focus.activeUsers.map { "uid \($0)" }.joined(separator: ", ")
    var lines: [String] = []
    if let app = focus.app {
      let role = focus.role.map {
        switch $0 {
        case "unknown": ", a field no source sees (taken as secret)"
        case "maybe-secret": ", a field that may be secret (taken as secret)"
        default: ", a \($0) field"
        }
      }
      lines.append("focus     \(app.isEmpty ? "(no app id)" : app)\(role ?? "")")
      let refused = (focus.refused ?? []).map { "no \($0)" }.joined(separator: " and ")
      lines.append(
        "field     "
          + (focus.fieldSource.map { "from \($0)" } ?? "from the app only (no input method or AT-SPI report)")
          + (refused.isEmpty ? "" : "; it asks for \(refused)"))
    } else {
      lines.append("focus     unknown: no session agent of \(users) reports")
    }
    if let rule = focus.rule, let origin = focus.ruleOrigin {
      lines.append("rule      \(rule) (\(origin)): \(focus.settings)")
    } else {
      lines.append("rule      none: \(focus.settings)")
    }
    if focus.agents.isEmpty {
      lines.append("agents    none connected; \(users) may report (\(focus.seat))")
    }
    for (index, agent) in focus.agents.enumerated() {
      lines.append(
        (index == 0 ? "agents    " : "          ")
          + "uid \(agent.uid) (pid \(agent.pid)): \(agent.source ?? "no hello yet"), "
          + (agent.fields.map { "fields from \($0), " } ?? "")
          + (agent.picker == true ? "shows the picker, " : "")
          + (agent.active ? "counts" : "ignored: not the active session's user"))
    }
    return lines.map { $0 + "\n" }.joined()
  }

  static func apps(_ rules: [AppRuleReport]) -> String {
    table(rules.map { ["\($0.number)\($0.inForce ? "*" : "")", $0.matchers, $0.settings, $0.origin] })
  }

  static func devices(_ devices: [DeviceReport]) -> String {
    table(devices.map { [$0.path, $0.id, $0.name, $0.state] })
  }

  static func stats(_ stats: StatsReport) -> String {
    """
    events    \(stats.eventsIn) in, \(stats.eventsOut) out, in \(duration(stats.sinceSeconds))
    latency   p50 \(stats.p50) µs, p90 \(stats.p90) µs, p99 \(stats.p99) µs, p99.9 \(stats.p999) µs, \
    max \(stats.max) µs (\(stats.samples) events)

    """
  }

  static func snippets(_ snippets: [SnippetReport]) -> String {
    table(snippets.map { [$0.triggers.joined(separator: " "), $0.label ?? "", $0.origin] })
  }

  /// The picker's rows: what it shows, the trigger, file:line; then the count.
  static func search(_ results: [SearchResult], matched: Int) -> String {
    let rows = results.map { result in
      var snippet = Snippet(triggers: result.triggers, replacement: Template(result.replace), origin: "")
      snippet.label = result.label
      return [snippet.displayText(), result.triggers.first ?? "-", "\(result.file):\(result.line)"]
    }
    let summary =
      switch matched {
      case 0: "no snippet matches"
      case results.count: plural(matched, "matching snippet")
      default: "\(results.count) of \(matched) matching snippets"
      }
    return table(rows) + summary + "\n"
  }

  /// Columns padded to their widest cell; trailing spaces trimmed.
  static func table(_ rows: [[String]]) -> String {
    guard let columns = rows.map(\.count).max() else { return "" }
    let widths = (0..<columns).map { column in rows.map { $0.count > column ? $0[column].count : 0 }.max() ?? 0 }
    return rows.map { row in
      var line = ""
      for (column, cell) in row.enumerated() {
        line += cell
        if column + 1 < row.count { line += String(repeating: " ", count: widths[column] + 2 - cell.count) }
      }
      while line.last == " " { line.removeLast() }
      return line + "\n"
    }.joined()
  }

  /// `12.3 MiB`, `640 KiB`.
  static func mebibytes(_ bytes: Int) -> String {
    bytes < 1 << 20
      ? "\((bytes + 1023) / 1024) KiB" : "\(Double(bytes * 10 / (1 << 20)) / 10) MiB"
  }

  /// `1h 02m 03s`, `4m 05s`, `6s`.
  static func duration(_ seconds: Int64) -> String {
    let hours = seconds / 3600
    let minutes = seconds / 60 % 60
    let rest = seconds % 60
    func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
    if hours > 0 { return "\(hours)h \(two(minutes))m \(two(rest))s" }
    if minutes > 0 { return "\(minutes)m \(two(rest))s" }
    return "\(rest)s"
  }
}
