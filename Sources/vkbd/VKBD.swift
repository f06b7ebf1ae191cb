import AgentProtocol
import ArgumentParser
import Glibc

/// The `vkbd` command: the daemon and the tools around it.
struct VKBD: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "vkbd",
    abstract: "A keyboard daemon: layout-true snippets and phone-keyboard typing aids below the display server.",
    version: VKBDVersion.current,
    subcommands: [
      Run.self, Status.self, Pause.self, Resume.self, Toggle.self, Reload.self, Devices.self, Stats.self,
      ReleaseAll.self, Snippets.self, Expand.self, Apps.self, Check.self, Config.self, Simulate.self, Doctor.self,
    ]
  )
}

/// The exit codes vkbd uses, from sysexits.h.
enum SysExit {
  /// EX_DATAERR: the input data (a script) was wrong.
  static let dataError = ExitCode(65)
  /// EX_UNAVAILABLE: a service (uinput, the daemon) is not there.
  static let unavailable = ExitCode(69)
  /// EX_NOPERM: permission denied.
  static let noPermission = ExitCode(77)
  /// EX_CONFIG: the configuration is wrong.
  static let config = ExitCode(78)
}

/// Writes one line to standard error.
func printError(_ message: String) {
  var standardError = StandardError()
  print("vkbd: \(message)", to: &standardError)
}

/// Standard error as a `TextOutputStream`.
struct StandardError: TextOutputStream {
  mutating func write(_ string: String) {
    var bytes = Array(string.utf8)
    var offset = 0
    while offset < bytes.count {
      let written = bytes[offset...].withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
      if written < 0 && errno == EINTR { continue }
      if written <= 0 { return }
      offset += written
    }
  }
}
