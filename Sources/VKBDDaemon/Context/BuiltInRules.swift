import AgentProtocol

/// The rules tried after the config's `apps:` (vkbd.yaml(5) lists them):
/// secret fields are a pure pass-through; terminals, code editors and
/// fields for addresses and numbers get no automatic capitals, no
/// double-space period, no autocorrect and no smart punctuation. A rule of the config that matches first wins.
///
/// The names are the Wayland app ids and X11 WM_CLASS fields these
/// programs set, in their released versions (GTK 3 programs name their
/// Wayland windows after the executable, GTK 4 and Qt ones after the
/// application id; several changed names between versions, and both are
/// here). They match without regard to case.
enum BuiltInRules {
  private static let noProseAids = AppSettings(
    autocapitalize: false, doubleSpacePeriod: false, autocorrect: false, smartPunctuation: false)
  /// Terminals paste with Ctrl+Shift+V (Ctrl+V is a control character there).
  private static let terminalSettings = AppSettings(
    autocapitalize: false, doubleSpacePeriod: false, autocorrect: false, smartPunctuation: false,
    pasteShortcut: .ctrlShiftV)

  static let rules: [AppRule] = [
    AppRule(roles: [.password, .pin], settings: AppSettings(enabled: false), origin: "built-in: secret fields"),
    AppRule(roles: [.terminal], settings: terminalSettings, origin: "built-in: terminal fields"),
    AppRule(roles: [.url, .email, .number], settings: noProseAids, origin: "built-in: fields that are not prose"),
    AppRule(app: .names(terminals, prefixes: []), settings: terminalSettings, origin: "built-in: terminals"),
    AppRule(app: .names(editors, prefixes: editorPrefixes), settings: noProseAids, origin: "built-in: code editors"),
  ]

  /// Terminal emulators.
  static let terminals: [String] = [
    "foot", "footclient", "kitty", "Alacritty", "org.wezfurlong.wezterm", "com.mitchellh.ghostty",
    "com.mitchellh.ghostty-debug", "ghostty",
    // GNOME Terminal before and from 3.52.3, Console under its three names, Ptyxis.
    "gnome-terminal-server", "org.gnome.Terminal", "Gnome-terminal", "org.gnome.Console", "org.gnome.Console.Devel",
    "kgx", "org.gnome.zbrown.KingsCross", "org.gnome.Ptyxis", "org.gnome.Ptyxis.Devel", "ptyxis",
    "org.kde.konsole", "konsole", "org.kde.yakuake", "yakuake",
    // X11 terminals; Debian's x-terminal-emulator link names the instance of some.
    "xterm", "UXTerm", "KOI8RXTerm", "urxvt", "rxvt-unicode", "rxvt", "st", "st-256color",
    "stterm", "Zutty", "x-terminal-emulator",
    "terminator", "tilix", "com.gexperts.Tilix", "xfce4-terminal", "mate-terminal", "lxterminal", "qterminal",
    "terminology", "sakura", "guake", "tilda", "cool-retro-term", "com.raggesilver.BlackBox", "blackbox",
    "blackbox-terminal", "dev.warp.Warp", "tabby", "rio", "contour", "org.contourterminal.Contour",
    "deepin-terminal", "kermit", "com.system76.CosmicTerm",
  ]

  /// Code editors and IDEs.
  static let editors: [String] = [
    // Visual Studio Code and its relatives; Electron names Wayland windows
    // `*-url-handler` before VS Code 1.95.
    "code", "code-url-handler", "code-oss", "code-oss-url-handler", "code - oss", "code-insiders",
    "code-insiders-url-handler", "code - insiders", "codium", "codium-url-handler", "VSCodium", "cursor",
    "cursor-url-handler", "com.visualstudio.code",
    "emacs", "emacs-pgtk", "gvim", "neovide", "nvim-qt", "goneovim", "dev.zed.Zed", "dev.zed.Zed-Preview",
    "dev.zed.Zed-Nightly", "sublime_text", "subl", "subl3", "org.kde.kate", "kate", "org.gnome.Builder",
    "org.gnome.Builder.Devel", "gnome-builder", "geany", "lapce", "dev.lapce.lapce", "lite-xl",
    "com.lite_xl.LiteXL", "pulsar", "atom", "Eclipse", "org.qt-project.qtcreator", "qtcreator",
    "org.kde.kdevelop", "kdevelop", "codeblocks",
  ]

  /// JetBrains IDEs name their windows `jetbrains-` and the product
  /// (`jetbrains-idea`, `jetbrains-pycharm-ce`, `jetbrains-studio`…);
  /// NetBeans puts its version in its class.
  static let editorPrefixes: [String] = ["jetbrains-", "Apache NetBeans IDE"]
}
