import AgentProtocol

/// Where the agent shows the daemon's snippet picker (DESIGN 8): a window
/// above every other that never takes the keyboard (the daemon routes the
/// keys), on the monitor of the focused window. The agent tells the
/// daemon in its hello whether it has one.
protocol PickerWindow: AnyObject {
  /// What `vkbd status` and the log call it: `layer-shell`, `x11`, `gnome-shell`.
  var name: String { get }
  /// Shows `view`, or redraws the window with it.
  func show(_ view: PickerShow)
  /// Takes the window away; nothing when it is not shown.
  func hide()
}
