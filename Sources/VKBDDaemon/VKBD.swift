import AgentProtocol
import ArgumentParser
import Glibc
import LinuxSystem

/// The `vkbd` program, which the executable's `main` starts.
public enum VKBDProgram {
  /// Runs the `vkbd` command with the process's arguments and exits.
  public static func main() {
    // A signal mask comes through exec: a parent that blocked SIGTERM
    // (a test runner, a status bar) would leave `vkbd listen` deaf to
    // it. Each command starts with none blocked; the daemon's loop
    // blocks what it reads from its signalfd.
    var none = sigset_t()
    sigemptyset(&none)
    sigprocmask(SIG_SETMASK, &none, nil)
    if VKBD.printsVersion(Array(CommandLine.arguments.dropFirst())) { return }
    VKBD.main()
  }
}

/// The `vkbd` command: the daemon and the tools around it.
struct VKBD: ParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "vkbd",
    abstract: "A keyboard daemon: layout-true snippets and phone-keyboard typing aids below the display server.",
    discussion: "vkbd --version prints the version.",
    subcommands: [
      Run.self, Status.self, Pause.self, Resume.self, Toggle.self, Reload.self, Devices.self, Stats.self,
      ReleaseAll.self, Snippets.self, Expand.self, Search.self, Apps.self, Check.self, Config.self, Simulate.self,
      Doctor.self, Words.self, Listen.self, Package.self, Path.self, Edit.self,
    ]
  )

  /// `vkbd --version`, alone on the command line (``VKBDProgram``): the argument
  /// parser's flag would show in every subcommand's help, beside espanso's
  /// `package install --version`, and a flag of this command's would take
  /// that option's place.
  static func printsVersion(_ arguments: [String]) -> Bool {
    guard arguments == ["--version"] else { return false }
    print(VKBDVersion.current)
    return true
  }
}

/// The exit codes vkbd uses, from sysexits.h.
enum SysExit {
  /// EX_DATAERR: the input data (a script) was wrong.
  static let dataError = ExitCode(65)
  /// EX_UNAVAILABLE: a service (uinput, the daemon) is not there.
  static let unavailable = ExitCode(69)
  /// EX_CANTCREAT: a file could not be created.
  static let cannotCreate = ExitCode(73)
  /// EX_PROTOCOL: the daemon's reply lacked what was asked.
  static let protocolError = ExitCode(76)
  /// EX_NOPERM: permission denied.
  static let noPermission = ExitCode(77)
  /// EX_CONFIG: the configuration is wrong.
  static let config = ExitCode(78)
}

/// Writes one line to standard error.
func printError(_ message: String) { LinuxSystem.printError(message, program: "vkbd") }

/// Says so when a command for the user's own files (`package`, `words`)
/// runs under sudo: it works on root's `path`, and the user meant theirs.
func warnUnderSudo(_ command: String, on path: String) {
  guard geteuid() == 0, let user = getenv("SUDO_USER").map({ String(cString: $0) }), !user.isEmpty else { return }
  printError("under sudo, vkbd \(command) works on root's \(path), not \(user)'s: run it as \(user), without sudo")
}

/// `count` and `noun`, in the plural unless `count` is 1: "1 snippet", "2 snippets".
func plural(_ count: Int, _ noun: String) -> String { "\(count) \(noun)\(count == 1 ? "" : "s")" }
