import AgentProtocol
import KeyboardEngine

extension VariableRequest {
  /// What the agent is asked for an engine's session request.
  init(_ request: SessionRequest) {
    switch request.call {
    case .shell(let command, let shell, let trim, _):
      self.init(id: request.id, kind: .shell)
      arguments = [command]
      self.shell = shell
      self.trim = trim
    case .script(let arguments, let trim):
      self.init(id: request.id, kind: .script)
      self.arguments = arguments
      self.trim = trim
    case .clipboard:
      self.init(id: request.id, kind: .clipboard)
      trim = false
    case .choice(let choices):
      self.init(id: request.id, kind: .choice)
      arguments = choices.map(\.label)
      values = choices.map(\.id)
    case .paste(let text):
      self.init(id: request.id, kind: .paste)
      arguments = [text]
      trim = false
    case .restoreClipboard:
      self.init(id: request.id, kind: .restoreClipboard)
      trim = false
    case .form(let layout, let fields):
      self.init(id: request.id, kind: .form)
      self.layout = layout
      arguments = fields.map(\.name)
      values = fields.map(\.defaultValue)
      trim = false
    }
    environment = request.environment
  }
}

extension VariableAnswer {
  /// The answer as the engine takes it.
  var engineResult: Result<VariableValue, SessionFailure> {
    switch result {
    case .success(let value):
      return .success(VariableValue(value.text, fields: value.fields))
    case .failure(let reason):
      return .failure(.failed(reason.message))
    }
  }
}
