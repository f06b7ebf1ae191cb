import CSystemd
import Glibc
import LinuxSystem

/// KWin's input method for this user: kwinrc's `[Wayland] InputMethod`,
/// the path of a desktop file whose Exec KWin runs (Plasma's Virtual
/// Keyboard settings write it). vkbd's is `vkbd-agent-kwin.desktop`,
/// installed beside the agent. A user who has another one (fcitx5, IBus,
/// Maliit) keeps it: KWin runs one input method only.
enum KWinSetup {
  static let desktopFileName = "vkbd-agent-kwin.desktop"

  enum InputMethod: Equatable {
    case none
    case vkbd
    /// Another input method's desktop file.
    case other(String)
  }

  /// The desktop file beside the agent: PREFIX/share/applications/.
  static var desktopFile: String { VKBDAgent.installPrefix + "/share/applications/" + desktopFileName }

  /// What kwinrc names; `.none` without kwinrc or the key.
  static func current() -> InputMethod {
    guard let path = KConfig.path("kwinrc"), let text = try? Files.readText(path) else { return .none }
    return inputMethod(in: text)
  }

  static func inputMethod(in kwinrc: String) -> InputMethod {
    guard let value = KConfig.entries(of: "Wayland", in: kwinrc)["InputMethod"], !value.isEmpty else { return .none }
    return value.hasSuffix("/" + desktopFileName) ? .vkbd : .other(value)
  }

  /// Makes the agent KWin's input method: sets kwinrc's InputMethod (and
  /// VirtualKeyboardEnabled, without which KWin starts none) and tells a
  /// running KWin, which starts it at once. Refuses where another input
  /// method is set. Returns what to tell the user.
  static func setUp() throws(AgentExit) -> String {
    guard let path = KConfig.path("kwinrc") else {
      throw AgentExit.unavailable("neither XDG_CONFIG_HOME nor HOME is set")
    }
    var text = ""
    do {
      text = try Files.readText(path)
    } catch  where error.errno == .noSuchFileOrDirectory {
    } catch {
      throw AgentExit.unavailable("cannot read \(path): \(error)")
    }
    switch inputMethod(in: text) {
    case .other(let other):
      throw AgentExit.unavailable(
        "KWin's input method is \(other): it stays, and vkbd learns text fields from AT-SPI only. "
          + "To have vkbd's instead, choose vkbd in System Settings, Keyboard, Virtual Keyboard "
          + "(KWin runs one input method)")
    case .vkbd, .none:
      break
    }
    let desktopFile = Self.desktopFile
    guard access(desktopFile, R_OK) == 0 else {
      throw AgentExit.unavailable("\(desktopFile) is missing: reinstall vkbd")
    }
    let wasOff = KConfig.entries(of: "Wayland", in: text)["VirtualKeyboardEnabled"] == "false"
    let updated = KConfig.setting(
      ["InputMethod": desktopFile, "VirtualKeyboardEnabled": "true"], in: "Wayland", of: text)
    do {
      try Files.writeAtomically(updated, to: path)
    } catch {
      throw AgentExit.unavailable("cannot write \(path): \(error)")
    }
    let told = notifyKWin()
    if wasOff || !told {
      return "\(path): vkbd-agent is KWin's input method from the next login"
    }
    return "\(path): vkbd-agent is KWin's input method; KWin has started it"
  }

  /// Tells a running KWin that kwinrc's input method changed, as KDE's
  /// settings do (org.kde.kconfig.notify's ConfigChanged on /kwinrc, with
  /// the group and its changed keys): it starts the new one then.
  private static func notifyKWin() -> Bool {
    guard let bus = try? DBus.openSessionBus() else { return false }
    defer { sd_bus_flush_close_unref(bus) }
    var message: OpaquePointer?
    guard sd_bus_message_new_signal(bus, &message, "/kwinrc", "org.kde.kconfig.notify", "ConfigChanged") >= 0,
      let message
    else { return false }
    defer { sd_bus_message_unref(message) }
    let appended =
      sd_bus_message_open_container(message, DBus.type("a"), "{saay}") >= 0
      && sd_bus_message_open_container(message, DBus.type("e"), "saay") >= 0
      && "Wayland".withCString { sd_bus_message_append_basic(message, DBus.type("s"), $0) } >= 0
      && sd_bus_message_open_container(message, DBus.type("a"), "ay") >= 0
      && ["InputMethod", "VirtualKeyboardEnabled"].allSatisfy { key in
        Array(key.utf8).withUnsafeBytes {
          sd_bus_message_append_array(message, DBus.type("y"), $0.baseAddress, $0.count) >= 0
        }
      }
      && sd_bus_message_close_container(message) >= 0
      && sd_bus_message_close_container(message) >= 0
      && sd_bus_message_close_container(message) >= 0
    guard appended, sd_bus_send(bus, message, nil) >= 0 else { return false }
    // Is a KWin there to hear it?
    let owner = DBus.call(
      bus, "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameHasOwner",
      [.string("org.kde.KWin")], timeout: 2_000_000, reading: DBus.readBool)
    if case .success(true) = owner { return true }
    return false
  }
}
