import AgentProtocol
import KeyboardEngine

extension PickerShow {
  /// The message that shows `view`.
  init(_ view: PickerView) {
    self.init(
      query: view.query, labels: view.rows.map(\.label), triggers: view.rows.map(\.trigger),
      sources: view.rows.map(\.source), selected: view.selected, total: view.total, trigger: view.trigger)
  }
}
