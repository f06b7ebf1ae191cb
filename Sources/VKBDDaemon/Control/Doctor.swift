import AgentProtocol
import ArgumentParser
import Glibc
import LinuxSystem
import SessionWork

extension VKBD {
  /// `vkbd doctor`: what vkbd needs, checked in order, one line each.
  struct Doctor: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "doctor",
      abstract: "Check what vkbd needs, one line each, with what to do about each failure.",
      discussion: """
        Checks in order: the uinput module and /dev/uinput; the daemon running, and its version \
        the same as this command's; keyboards grabbed; the virtual keyboard marked by udev \
        (70-vkbd.rules) and by libinput (50-vkbd.quirks); the active user's session agent \
        connected; the config and its snippet files (as vkbd check); your own espanso files \
        (as your session agent sends them; --no-user leaves them out); espanso not running \
        beside vkbd; autocorrect's dictionaries \
        installed; the control socket's \
        permissions. A check that needs what this user may not read (the daemon's socket, \
        the device nodes) is skipped, and said so. Exits 0 when no check failed, 1 otherwise.
        """)
    @OptionGroup var client: ClientOptions
    @OptionGroup var output: JSONOption
    @Option(name: .long, help: ArgumentHelp("Check FILE instead of \(ConfigLoader.defaultPath).", valueName: "file"))
    var config: String?
    @Flag(name: .customLong("no-user"), help: "Leave out your own espanso files.")
    var noUser = false

    func run() throws {
      var diagnosis = Diagnosis(socket: client.socket, configPath: config)
      if noUser { diagnosis.userDirectory = nil }
      let checks = diagnosis.run()
      output.print(checks) { Report.doctor(checks) }
      if checks.contains(where: { $0.result == .fail }) { throw ExitCode(1) }
    }
  }
}

/// One line of `vkbd doctor`.
struct DoctorCheck: Codable, Equatable {
  enum Result: String, Codable { case ok, fail, skip }
  var name: String
  var result: Result
  /// What was found.
  var detail: String
  /// What to do, for a failure.
  var fix: String?

  static func ok(_ name: String, _ detail: String) -> DoctorCheck {
    DoctorCheck(name: name, result: .ok, detail: detail)
  }
  static func fail(_ name: String, _ detail: String, fix: String) -> DoctorCheck {
    DoctorCheck(name: name, result: .fail, detail: detail, fix: fix)
  }
  static func skip(_ name: String, _ why: String) -> DoctorCheck { DoctorCheck(name: name, result: .skip, detail: why) }
}

/// The checks of `vkbd doctor`, on the paths given (the tests give their own).
struct Diagnosis {
  var socket: String
  var configPath: String?
  var uinput = "/dev/uinput"
  var udevData = "/run/udev/data"
  var dictionaryDirectory = Dictionaries.directory
  /// Where the installed parts are looked for ("": the system's root).
  var root = ""
  /// The program the session agent shows dialogs with, if there is one.
  var dialogProgram = Programs.dialogProgram
  /// The espanso directory of whoever runs `doctor` (nil: left out).
  var userDirectory: String? = Programs.espansoDirectory
  /// Where the processes are listed (`/proc`).
  var processes = "/proc"

  /// A part `make install` or the .deb puts in place, checked on disk when
  /// no daemon runs to show it at work: where it may be.
  struct InstalledPart {
    var check: String
    var what: String
    var paths: [String]
  }

  static let rule = InstalledPart(
    check: "udev", what: "70-vkbd.rules",
    paths: ["/etc/udev/rules.d", "/usr/lib/udev/rules.d", "/lib/udev/rules.d"].map { $0 + "/70-vkbd.rules" })
  static let quirk = InstalledPart(
    check: "libinput", what: "50-vkbd.quirks",
    paths: ["/usr/share/libinput/50-vkbd.quirks"])
  static let autostart = InstalledPart(
    check: "agent", what: "the session agent's autostart",
    paths: [
      "/etc/xdg/autostart/vkbd-agent.desktop", "/usr/lib/systemd/user/vkbd-agent.service",
      "/etc/systemd/user/vkbd-agent.service",
    ])
  static let unit = InstalledPart(
    check: "daemon", what: "vkbd.service",
    paths: ["/etc/systemd/system", "/usr/lib/systemd/system", "/lib/systemd/system"].map { $0 + "/vkbd.service" })

  /// Where `part` is installed, if anywhere.
  func installed(_ part: InstalledPart) -> String? { part.paths.first { access(root + $0, R_OK) == 0 } }

  /// `part` found on disk or not, said of a system whose daemon is not running.
  func onDisk(_ part: InstalledPart) -> DoctorCheck {
    guard let path = installed(part) else {
      return .fail(
        part.check, "\(part.what) is not installed (the daemon is not running: read from disk)",
        fix: "make install, or the vkbd .deb, installs it in \(part.paths[0])")
    }
    return .ok(part.check, "\(part.what) is installed in \(path) (the daemon is not running: read from disk)")
  }

  func run() -> [DoctorCheck] {
    var checks = [uinputCheck()]
    let status: StatusReport?
    let devices: [DeviceReport]
    switch ask(.status) {
    case .reply(let reply):
      status = reply.status
      if case .reply(let listed) = ask(.devices) { devices = listed.devices ?? [] } else { devices = [] }
      checks.append(daemonCheck(status!))
    case .problem(let why):
      status = nil
      devices = []
      checks.append(why)
    }
    if status == nil {
      checks.append(.skip("keyboards", "needs the daemon"))
      checks += [Self.rule, Self.quirk, Self.autostart].map(onDisk)
    } else {
      checks.append(keyboardsCheck(devices))
      let node = devices.first { $0.name == VirtualKeyboard.name }?.path
      checks.append(udevCheck(node))
      checks.append(libinputCheck(node))
      checks.append(agentCheck(status!))
    }
    checks.append(configCheck())
    checks.append(userSnippetsCheck())
    checks.append(espansoCheck())
    checks.append(spellingCheck())
    checks.append(socketCheck())
    return checks
  }

  func uinputCheck() -> DoctorCheck {
    var info = stat()
    return stat(uinput, &info) == 0 && info.st_mode & S_IFMT == S_IFCHR
      ? .ok("uinput", "\(uinput) is there")
      : .fail(
        "uinput", "\(uinput) is missing or no device: the uinput module is not loaded",
        fix: "modprobe uinput; to load it at every boot, echo uinput > /etc/modules-load.d/uinput.conf"
          + " (the Debian package does this)")
  }

  /// The daemon's reply, or the line that says why there is none.
  private enum Answer {
    case reply(ControlReply)
    case problem(DoctorCheck)
  }

  private func ask(_ command: ControlRequest.Command) -> Answer {
    do {
      return .reply(try ControlClient.ask(ControlRequest(command: command), socket: socket))
    } catch {
      switch error {
      case .notRunning:
        return .problem(
          .fail(
            "daemon", "not running: nothing listens on \(socket)",
            fix: installed(Self.unit) != nil
              ? "systemctl enable --now vkbd; journalctl -u vkbd says why it stopped"
              : "vkbd.service is not installed: make install, or the vkbd .deb, installs it; meanwhile sudo vkbd run"))
      case .socketForbidden:
        return .problem(.skip("daemon", "\(socket) is for root and control_group: run vkbd doctor as root"))
      case .refused:
        return .problem(.skip("daemon", "the daemon admits root and control_group only: run vkbd doctor as root"))
      case .failed(let failure):
        return .problem(.fail("daemon", "\(failure)", fix: "systemctl restart vkbd"))
      }
    }
  }

  func daemonCheck(_ status: StatusReport) -> DoctorCheck {
    guard status.version == VKBDVersion.current else {
      return .fail(
        "daemon", "vkbd \(status.version) runs, this command is \(VKBDVersion.current)",
        fix: "systemctl restart vkbd (after an upgrade the old daemon still runs)")
    }
    return .ok("daemon", "vkbd \(status.version) is \(status.state) (pid \(status.pid))")
  }

  func keyboardsCheck(_ devices: [DeviceReport]) -> DoctorCheck {
    let grabbed = devices.filter(\.grabbed)
    if !grabbed.isEmpty {
      return .ok("keyboards", "\(grabbed.count) grabbed: " + grabbed.map(\.name).joined(separator: ", "))
    }
    let waiting = devices.filter { $0.state.contains("waiting") || $0.state.contains("excluded") }
    return .fail(
      "keyboards",
      "none grabbed"
        + (waiting.isEmpty ? "" : ": " + waiting.map { "\($0.name) (\($0.state))" }.joined(separator: "; ")),
      fix: "vkbd devices says why for each device; release a key held at start; check devices: in the config")
  }

  /// udev's properties of `node` (its database under /run/udev/data).
  private func udevProperties(_ node: String) -> [String]? {
    var info = stat()
    guard stat(node, &info) == 0 else { return nil }
    // glibc's major() and minor(), which are macros.
    let device = UInt64(info.st_rdev)
    let major = ((device >> 8) & 0xfff) | ((device >> 32) & ~0xfff)
    let minor = (device & 0xff) | ((device >> 12) & ~0xff)
    let path = "\(udevData)/c\(major):\(minor)"
    guard let text = try? Files.readText(path) else { return nil }
    return text.split(separator: "\n").compactMap { $0.hasPrefix("E:") ? String($0.dropFirst(2)) : nil }
  }

  func udevCheck(_ node: String?) -> DoctorCheck {
    guard let node else {
      return .fail("udev", "the daemon lists no virtual keyboard", fix: "systemctl restart vkbd")
    }
    guard let properties = udevProperties(node) else {
      return .fail(
        "udev", "udev knows nothing of \(node): udevd is not running, or has not seen it",
        fix: "start systemd-udevd; then udevadm trigger --subsystem-match=input")
    }
    guard properties.contains("VKBD_VIRTUAL=1"), properties.contains("VKBD_IGNORE=1") else {
      return .fail(
        "udev", "\(node) lacks VKBD_VIRTUAL=1 and VKBD_IGNORE=1: 70-vkbd.rules is not installed",
        fix: "install 70-vkbd.rules in /usr/lib/udev/rules.d or /etc/udev/rules.d; udevadm control --reload;"
          + " udevadm trigger --subsystem-match=input")
    }
    return .ok("udev", "\(node) is marked VKBD_VIRTUAL=1 VKBD_IGNORE=1")
  }

  func libinputCheck(_ node: String?) -> DoctorCheck {
    guard let node else { return .skip("libinput", "no virtual keyboard to look at") }
    guard access(node, R_OK) == 0 else { return .skip("libinput", "\(node) is for root: run vkbd doctor as root") }
    let run = ProgramRun.run(["libinput", "quirks", "list", node], timeoutMicroseconds: 10_000_000)
    guard case .success(let output) = run, output.termination == .exited(0) else {
      let why =
        switch run {
        case .failure(.didNotStart(let error)): "\(error.errno)"
        case .failure(.timedOut): "it ran longer than 10 s"
        case .failure(.outputTooLong): "it printed too much"
        case .success(let output):
          switch output.termination {
          case .exited(let status): "it exited with status \(status)"
          case .signaled(let signal): "it was killed by signal \(signal)"
          }
        }
      return .skip("libinput", "`libinput quirks list` did not run (\(why)): install libinput-tools")
    }
    let listed = String(decoding: output.standardOutput, as: UTF8.self)
    guard listed.contains("AttrKeyboardIntegration=internal") else {
      return .fail(
        "libinput", "\(node) is not an internal keyboard to libinput: 50-vkbd.quirks is not installed",
        fix: "install 50-vkbd.quirks in /usr/share/libinput (or /etc/libinput/local-overrides.quirks);"
          + " a touchpad then pauses while you type")
    }
    return .ok("libinput", "\(node) is an internal keyboard (50-vkbd.quirks)")
  }

  func agentCheck(_ status: StatusReport) -> DoctorCheck {
    guard let focus = status.focus else { return .skip("agent", "the daemon reports no focus") }
    guard let agent = focus.agents.first(where: \.active) else {
      let users = focus.activeUsers.map { "uid \($0)" }.joined(separator: ", ")
      return .fail(
        "agent",
        "no session agent of the active user (\(users.isEmpty ? "no one" : users)) is connected"
          + (focus.agents.isEmpty ? "" : "; \(plural(focus.agents.count, "agent")) of others"),
        fix: "as that user: systemctl --user enable --now vkbd-agent.service (or log out and in)")
    }
    let layout = status.layoutOrigin.map { ", layout from \($0)" } ?? ""
    return .ok(
      "agent",
      "uid \(agent.uid), focus from \(agent.source ?? "nothing yet")\(layout); "
        + FieldCoverage.describe(agent.fields, focusSource: agent.source))
  }

  func socketCheck() -> DoctorCheck {
    var info = stat()
    guard lstat(socket, &info) == 0 else {
      return .skip("control socket", "\(socket) is not there (the daemon makes it)")
    }
    guard info.st_mode & S_IFMT == S_IFSOCK, info.st_uid == 0, info.st_mode & 0o007 == 0 else {
      let mode = Self.octal(info.st_mode)
      return .fail(
        "control socket", "\(socket) is mode \(mode), owner uid \(info.st_uid): others could command the daemon",
        fix: "restart the daemon, which makes it 0600 (0660 with control_group) and root's")
    }
    return .ok("control socket", "\(socket): root's, mode \(Self.octal(info.st_mode))")
  }

  private static func octal(_ mode: mode_t) -> String { "0" + String(mode & 0o777, radix: 8) }

}

extension Report {
  /// `vkbd doctor`'s lines: the result, the check, what was found, and
  /// below a failure what to do.
  static func doctor(_ checks: [DoctorCheck]) -> String {
    var text = ""
    for check in checks {
      let mark = check.result == .ok ? "ok  " : check.result == .fail ? "FAIL" : "skip"
      text += "\(mark) \(check.name.padding(14)) \(check.detail)\n"
      if let fix = check.fix { text += "     \("".padding(14)) → \(fix)\n" }
    }
    let failed = checks.count { $0.result == .fail }
    let skipped = checks.count { $0.result == .skip }
    text +=
      failed == 0
      ? "all \(checks.count - skipped) checks passed" + (skipped > 0 ? ", \(skipped) skipped" : "") + "\n"
      : "\(failed) of \(checks.count) checks failed\n"
    return text
  }
}

extension String {
  func padding(_ width: Int) -> String { self + String(repeating: " ", count: max(0, width - count)) }
}
