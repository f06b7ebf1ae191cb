/// The snippet picker as the daemon has it (DESIGN 8), for the agent to
/// draw above other windows without taking the focus: the query, the best
/// rows, which one is selected and how many matched. Sent on every change
/// while it is open. Never logged: the query and the rows are the user's.
public struct PickerShow: AgentProtocolMessage {
  public static let type = "picker"
  public var query: String
  /// Per row: the label (else the replacement's first line), the first
  /// trigger (empty: none) and the match file it comes from (the last two
  /// parts of its path).
  public var labels: [String]
  public var triggers: [String]
  public var sources: [String]
  public var selected: Int
  public var total: Int
  /// The trigger whose matches are offered; absent for a search of all.
  public var trigger: String?

  public init(
    query: String, labels: [String], triggers: [String], sources: [String], selected: Int, total: Int,
    trigger: String?
  ) {
    self.query = query
    self.labels = labels
    self.triggers = triggers
    self.sources = sources
    self.selected = selected
    self.total = total
    self.trigger = trigger
  }

  public enum CodingKeys: String, CodingKey, CaseIterable {
    case query, labels, triggers, sources, selected, total, trigger
  }

  /// The most rows a message carries.
  public static let maximumRows = 50

  public func validate() throws(AgentProtocolError) {
    guard labels.count <= Self.maximumRows, triggers.count == labels.count, sources.count == labels.count else {
      throw AgentProtocolError("fields 'labels', 'triggers' and 'sources' must have one entry per row, at most 50")
    }
    guard labels.isEmpty ? selected == 0 : (0..<labels.count).contains(selected), total >= labels.count else {
      throw AgentProtocolError("field 'selected' or 'total' is out of range")
    }
    try Check.length(query, "query", limit: AgentProtocol.maximumMessage)
    for row in 0..<labels.count {
      try Check.length(labels[row], "labels", limit: AgentProtocol.maximumMessage)
      try Check.length(triggers[row], "triggers", limit: AgentProtocol.maximumMessage)
      try Check.length(sources[row], "sources", limit: AgentProtocol.maximumMessage)
    }
  }
}

/// The picker closed: the agent takes its window away.
public struct PickerHide: AgentProtocolMessage {
  public static let type = "picker-hide"
  public init() {}

  /// It has no field.
  public struct CodingKeys: CodingKey, CaseIterable {
    public static var allCases: [CodingKeys] { [] }
    public var stringValue: String { "" }
    public var intValue: Int? { nil }
    public init?(stringValue: String) { nil }
    public init?(intValue: Int) { nil }
  }

  public init(from decoder: Decoder) throws {}
  public func encode(to encoder: Encoder) throws {}
}
