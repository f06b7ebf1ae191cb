import AgentProtocol

/// The snippet picker on GNOME Shell, which has no layer shell: the
/// vkbd-focus extension draws it in the shell's own chrome, from the
/// agent's signals on the session bus:
///
///     io.github.vkbd.Agent1.PickerChanged(s view)   the picker message, JSON
///     io.github.vkbd.Agent1.PickerHidden()
///
/// The signals go to the bus's subscribers alone (the extension in the
/// user's own shell), never into a log.
extension ShellBridge: PickerWindow {
  func show(_ view: PickerShow) {
    emit("PickerChanged", String(decoding: view.encoded().dropLast(), as: UTF8.self))
  }

  func hide() { emit("PickerHidden", nil) }
}
