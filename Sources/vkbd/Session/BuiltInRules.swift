import AgentProtocol

/// The rules tried after the config's `apps:` (vkbd.yaml(5) lists them):
/// secret fields are a pure pass-through; terminals, code editors and
/// fields for addresses and numbers get no automatic capitals and no
/// double-space period. A rule of the config that matches first wins.
enum BuiltInRules {
  private static let noProseAids = AppSettings(autocapitalize: false, doubleSpacePeriod: false)

  static let rules: [AppRule] = [
    AppRule(roles: [.password, .pin], settings: AppSettings(enabled: false), origin: "built-in: secret fields"),
    AppRule(
      roles: [.terminal, .url, .email, .number], settings: noProseAids, origin: "built-in: fields that are not prose"),
    AppRule(app: .names(Set(terminals), prefixes: []), settings: noProseAids, origin: "built-in: terminals"),
    AppRule(
      app: .names(Set(editors), prefixes: editorPrefixes), settings: noProseAids, origin: "built-in: code editors"),
  ]

  /// Terminal emulators: Wayland app ids and X11 WM_CLASS fields.
  static let terminals: [String] = ["foot", "footclient", "kitty", "Alacritty", "xterm", "XTerm"]

  /// Code editors and IDEs.
  static let editors: [String] = ["code", "Code"]
  /// JetBrains IDEs name their windows `jetbrains-` and the product.
  static let editorPrefixes: [String] = ["jetbrains-"]
}
