import FoundationEssentials
import KeyboardEngine

/// The control socket's protocol: one JSON object per line each way, one
/// request per connection. Every message carries `version`; a daemon answers
/// a version it does not speak with an error.
enum ControlProtocol {
  static let version = 1
  /// The largest request the daemon reads, newline included.
  static let maximumRequest = 65_536
  /// The largest reply the daemon sends: a bound it never comes near (the
  /// snippet list of 100,000 snippets is some megabytes).
  static let maximumReply = 256 << 20

  static func encode<Message: Encodable>(_ message: Message) -> [UInt8] {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    // Every message type here encodes; a failure would be a programming error.
    var bytes = [UInt8]((try? encoder.encode(message)) ?? Data("{}".utf8))
    bytes.append(UInt8(ascii: "\n"))
    return bytes
  }

  static func decode<Message: Decodable>(_ type: Message.Type, from line: some Collection<UInt8>) -> Message? {
    try? JSONDecoder().decode(type, from: Data(line))
  }
}

/// What a client asks.
struct ControlRequest: Codable, Equatable {
  enum Command: String, Codable, CaseIterable {
    case status, pause, resume, toggle, reload, devices, stats
    case releaseAll = "release-all"
    case snippets, expand, apps, search
    /// Stay connected and get each event as a line (``DaemonEvent``).
    case listen
  }

  var version = ControlProtocol.version
  var command: Command
  /// `stats`: zero the counters after reading them.
  var reset: Bool?
  /// `expand`: the trigger to render.
  var trigger: String?
  /// `search`: the query, and how many results at most.
  var query: String?
  var limit: Int?
}

/// What the daemon answers: `ok` and the command's result, or `error`.
struct ControlReply: Codable, Equatable {
  var version = ControlProtocol.version
  var ok: Bool
  var error: String?
  /// `reload`: every problem of the config, as file:line:column: message.
  var problems: [String]?
  var status: StatusReport?
  var devices: [DeviceReport]?
  var stats: StatsReport?
  var snippets: [SnippetReport]?
  var expansion: String?
  var apps: [AppRuleReport]?
  /// `search`: the best matches, best first, and how many matched in all.
  var results: [SearchResult]?
  var matched: Int?

  static func failure(_ message: String, problems: [String]? = nil) -> ControlReply {
    ControlReply(ok: false, error: message, problems: problems)
  }
}

struct StatusReport: Codable, Equatable {
  var state: String  // "running" or "paused"
  var config: String
  /// When the config was loaded, ISO 8601 UTC.
  var configLoaded: String
  /// What the last reload found wrong, while the config before it runs
  /// (absent: the last reload, if any, succeeded).
  var reloadProblems: [String]? = nil
  var layout: String
  /// Where the layout comes from: `config`, `desktop (SOURCE), group N`,
  /// or `the system (FILES)`.
  var layoutOrigin: String?
  var devicesGrabbed: Int
  var snippets: Int
  /// The bytes of the picker's search index (absent in older replies).
  var searchIndexBytes: Int? = nil
  /// Autocorrect's dictionaries: loaded, loading, off or missing, and the
  /// words the user taught (absent in older replies).
  var autocorrect: String? = nil
  var uptimeSeconds: Int64
  var pid: Int32
  var version: String
  /// What the session agents say and which app rule is in force.
  var focus: FocusStatus?
}

/// The focused app as the active user's agent reports it, and the rule
/// chosen for it. Never the window title.
struct FocusStatus: Codable, Equatable {
  /// The app id or X11 class; nil while no agent of the active user reports.
  var app: String?
  /// The field's role, from the field source or the window's report;
  /// `unknown` when the source sees no field where it saw some
  /// (``FocusContext/isFieldUnknown``).
  var role: String?
  /// Where the field's role and text come from (`input-method`, `at-spi`);
  /// nil: from the app only.
  var fieldSource: String?
  /// The typing aids the field refuses (`capitals`, `correction`).
  var refused: [String]? = nil
  /// The rule in force, numbered as `vkbd apps` lists them; nil: the global settings.
  var rule: Int?
  var ruleOrigin: String?
  /// What the rule in force sets.
  var settings: String
  /// Who decides whose agent counts: `logind` or `session_users`.
  var seat: String
  /// The users whose agents count now.
  var activeUsers: [UInt32]
  var agents: [AgentStatus]
}

/// One connected session agent.
struct AgentStatus: Codable, Equatable {
  var uid: UInt32
  var pid: Int32
  /// Where its focus reports come from (`wlr-foreign-toplevel`, `x11`…).
  var source: String?
  /// Whether its reports count.
  var active: Bool
  /// Whether it shows the snippet picker (absent in older replies).
  var picker: Bool? = nil
  /// Where its field reports come from, best first, joined by `+`;
  /// nil: nowhere (or an older agent).
  var fields: String? = nil
}

/// One app rule, in the order they are tried.
struct AppRuleReport: Codable, Equatable {
  var number: Int
  var matchers: String
  var settings: String
  var origin: String
  /// Whether it is the rule in force.
  var inForce: Bool
}

struct DeviceReport: Codable, Equatable {
  var name: String
  var id: String  // vendor:product
  var path: String
  var grabbed: Bool
  /// Why not grabbed, or what it is used for.
  var state: String
}

struct StatsReport: Codable, Equatable {
  /// Key events read from grabbed keyboards, and written to the virtual keyboard.
  var eventsIn: UInt64
  var eventsOut: UInt64
  /// Latency samples: one per emitted event, from the source event's kernel
  /// timestamp to the write, in microseconds.
  var samples: UInt64
  var p50: UInt64
  var p90: UInt64
  var p99: UInt64
  var p999: UInt64
  var max: UInt64
  var sinceSeconds: Int64
}

/// A snippet the picker's search found, as `vkbd search` prints it.
struct SearchResult: Codable, Equatable {
  /// The replacement as its file writes it.
  var replace: String
  var label: String?
  var triggers: [String]
  var file: String
  var line: Int

  init(_ snippet: Snippet) {
    replace = snippet.writtenReplacement
    label = snippet.label
    triggers = snippet.triggers
    if let line = snippet.originLine {
      file = String(snippet.originFile)
      self.line = line
    } else {
      file = snippet.origin
      line = 0
    }
  }

  /// The most results a search gives.
  static let maximumLimit = 1000
}

struct SnippetReport: Codable, Equatable {
  var triggers: [String]
  var label: String?
  var origin: String
}

extension SnippetReport {
  init(_ snippet: Snippet) { self.init(triggers: snippet.triggers, label: snippet.label, origin: snippet.origin) }
}
