/// Something that changed in the daemon, with the whole state after it:
/// what `vkbd listen` prints, one JSON line each, and what the active
/// user's agent hears for its notifications and its status icon. Every
/// event carries the state, so a reader never has to keep one. Never typed
/// text: a failed snippet says why, not what.
public struct DaemonEvent: AgentProtocolMessage {
  public static let type = "event"

  public enum Kind: String, WireName {
    /// No change: the state as it is (the first line `vkbd listen` prints,
    /// and what an agent hears when its reports start to count).
    case state
    case paused, resumed
    /// The layout or its group changed.
    case layout
    /// Another app has the focus, or another app rule is in force.
    case app
    case agentConnected = "agent-connected"
    case agentDisconnected = "agent-disconnected"
    case reloaded
    /// A reload failed: the previous configuration keeps running.
    case reloadFailed = "reload-failed"
    /// A snippet fired but was not typed (`reason` says why).
    case snippetFailed = "snippet-failed"
  }

  public var event: Kind
  /// `running` or `paused`.
  public var state: String
  /// The layout in force, as `vkbd status` names it, and its group from 1.
  public var layout: String
  public var group: Int
  /// The focused app as the active user's agent reports it; nil: none reported.
  public var app: String?
  /// The app rule in force, numbered as `vkbd apps` lists them; nil: the global settings.
  public var rule: Int?
  /// The session agents connected.
  public var agents: Int
  /// The configuration file in force.
  public var config: String
  /// What caused it: `chord`, `vkbd pause`, `file`, `SIGHUP`, `agent`…
  public var by: String?
  /// `reload-failed`: each problem, as file:line:column: message.
  public var problems: [String]?
  /// `snippet-failed`: why, never its text.
  public var reason: String?
  /// `agent-connected` and `agent-disconnected`: whose.
  public var uid: UInt32?

  public init(
    event: Kind, state: String, layout: String, group: Int, app: String?, rule: Int?, agents: Int, config: String
  ) {
    self.event = event
    self.state = state
    self.layout = layout
    self.group = group
    self.app = app
    self.rule = rule
    self.agents = agents
    self.config = config
  }

  public enum CodingKeys: String, CodingKey, CaseIterable {
    case event, state, layout, group, app, rule, agents, config, by, problems, reason, uid
  }

  /// The most problems an event carries.
  public static let maximumProblems = 32

  public func validate() throws(AgentProtocolError) {
    try Check.word(state, "state")
    try Check.length(layout, "layout", limit: AgentProtocol.maximumName)
    try Check.length(app ?? "", "app", limit: AgentProtocol.maximumName)
    try Check.length(config, "config", limit: 4096)
    try Check.length(by ?? "", "by", limit: AgentProtocol.maximumName)
    try Check.length(reason ?? "", "reason", limit: AgentProtocol.maximumMessage)
    guard (problems ?? []).count <= Self.maximumProblems else {
      throw AgentProtocolError("field 'problems' holds more than \(Self.maximumProblems)")
    }
    for problem in problems ?? [] { try Check.length(problem, "problems", limit: AgentProtocol.maximumMessage) }
  }

  public var isPaused: Bool { state == "paused" }

  /// The `by` of what the user did through the agent's status icon.
  public static let statusIcon = "the status icon"
}

/// What the user asks of the daemon through the agent's status icon: the
/// daemon does it for an agent whose reports count, as it does `vkbd`'s.
public struct DaemonCommand: AgentProtocolMessage {
  public static let type = "command"

  public enum Command: String, WireName {
    case pause, resume, reload
    /// Open the snippet picker, as its shortcut does.
    case picker
  }

  public var command: Command

  public init(_ command: Command) { self.command = command }

  public enum CodingKeys: String, CodingKey, CaseIterable { case command }
}

/// A field whose value is one of a few names: one that is not is refused
/// with the list of those that are.
public protocol WireName: RawRepresentable<String>, Codable, Sendable, CaseIterable {}

extension WireName {
  public init(from decoder: Decoder) throws {
    guard let value = Self(rawValue: try decoder.singleValueContainer().decode(String.self)) else {
      let names = Self.allCases.map(\.rawValue).joined(separator: ", ")
      throw AgentProtocolError("field '\(decoder.codingPath.last?.stringValue ?? "?")' must be one of \(names)")
    }
    self = value
  }
}
