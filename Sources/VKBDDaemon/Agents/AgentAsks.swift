import AgentProtocol

/// What the daemon asks of an agent: a snippet variable worked out, the
/// picker shown or hidden.
extension AgentServer {
  /// Asks the agent whose reports are in force (else any that counts) to
  /// work out a snippet variable; false when no agent counts.
  func ask(_ request: VariableRequest) -> Bool {
    guard let agent = reporting ?? connections.first(where: { $0.value.active })?.key else { return false }
    let bytes = request.encoded()
    // A request longer than this is not made (a paste that long is typed).
    guard bytes.count <= Self.largestRequest, send(bytes, to: agent) else { return false }
    asked[request.id] = agent
    return true
  }

  /// Shows the picker (nil: hides it) through the agent that shows it,
  /// else the one whose reports are in force, else any that counts, if it
  /// can; false when none can.
  func showPicker(_ picker: PickerShow?) -> Bool {
    guard let picker else {
      if let agent = pickerShownBy.take() { tell(agent, PickerHide()) }
      return true
    }
    let able = { (agent: UInt64) in self.connections[agent].map { $0.active && $0.showsPicker } ?? false }
    guard
      let agent = pickerShownBy.flatMap({ able($0) ? $0 : nil }) ?? reporting.flatMap({ able($0) ? $0 : nil })
        ?? connections.keys.sorted().first(where: able)
    else { return false }
    pickerShownBy = agent
    showing = true
    defer { showing = false }
    return send(picker.encoded(), to: agent)
  }

  func losePicker() {
    pickerShownBy = nil
    if !showing { onEvent(.pickerLost) }
  }
}
