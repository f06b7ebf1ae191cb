import AgentProtocol
import Foundation
import Glibc
import Testing

@testable import VKBDDaemon

@Suite struct DoctorTests {
  func diagnosis(uinput: String = "/dev/null", socket: String = "/nonexistent/vkbd.sock") -> Diagnosis {
    var diagnosis = Diagnosis(socket: socket, configPath: nil)
    diagnosis.uinput = uinput
    diagnosis.userDirectory = "/nonexistent/espanso"
    return diagnosis
  }

  @Test func espansoRunningBesideVkbdFails() throws {
    let processes = NSTemporaryDirectory() + "doctor-proc-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: processes) }
    var doctor = diagnosis()
    doctor.processes = processes
    for (pid, name) in [("12", "bash\n"), ("345", "espanso-worker\n"), ("self", "espanso\n")] {
      try FileManager.default.createDirectory(atPath: processes + "/" + pid, withIntermediateDirectories: true)
      try name.write(toFile: processes + "/\(pid)/comm", atomically: true, encoding: .utf8)
    }
    #expect(doctor.espansoCheck().result == .ok)
    try FileManager.default.createDirectory(atPath: processes + "/678", withIntermediateDirectories: true)
    try "espanso\n".write(toFile: processes + "/678/comm", atomically: true, encoding: .utf8)
    let running = doctor.espansoCheck()
    #expect(running.result == .fail && running.detail.hasPrefix("espanso is running (pid 678)"))
    #expect(running.fix == "as its user: espanso service unregister && espanso stop")
  }

  @Test func theUsersOwnFilesAreCheckedAsTheirAgentSendsThem() throws {
    let directory = NSTemporaryDirectory() + "doctor-espanso-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var doctor = diagnosis()
    doctor.userDirectory = directory
    let none = doctor.userSnippetsCheck()
    #expect(none.result == .ok && none.detail.hasSuffix("go in \(directory)/match (the session agent loads them)"))
    try FileManager.default.createDirectory(atPath: directory + "/match", withIntermediateDirectories: true)
    try "matches:\n  - trigger: ':hi'\n    replace: hello\n".write(
      toFile: directory + "/match/base.yml", atomically: true, encoding: .utf8)
    let good = doctor.userSnippetsCheck()
    #expect(good.result == .ok && good.detail == "\(directory): 1 snippet, 1 match file")
    try "matches:\n  - trigger: ':f'\n    form: 'Hi [[name]]'\n".write(
      toFile: directory + "/match/form.yml", atomically: true, encoding: .utf8)
    doctor.dialogProgram = nil
    #expect(doctor.userSnippetsCheck().detail.contains("with a form or a choice, and no dialog program"))
    try "matches:\n  - trigger: ':bad'\n".write(toFile: directory + "/match/bad.yml", atomically: true, encoding: .utf8)
    let bad = doctor.userSnippetsCheck()
    #expect(bad.result == .fail && bad.detail.hasPrefix("1 error in your match files, first \(directory)/match/bad.yml:2"))
    doctor.userDirectory = nil
    #expect(doctor.userSnippetsCheck().result == .skip)
  }

  @Test func uinputMustBeACharacterDevice() throws {
    #expect(diagnosis(uinput: "/dev/null").uinputCheck().result == .ok)  // a character device
    let missing = diagnosis(uinput: "/nonexistent/uinput").uinputCheck()
    #expect(missing.result == .fail && missing.fix?.contains("modprobe uinput") == true)
    let file = NSTemporaryDirectory() + "doctor-uinput-\(getpid())"
    #expect(FileManager.default.createFile(atPath: file, contents: Data()))
    defer { unlink(file) }
    #expect(diagnosis(uinput: file).uinputCheck().result == .fail)
  }

  @Test func beforeTheFirstStartWhatIsInstalledIsReadFromDisk() throws {
    let root = NSTemporaryDirectory() + "doctor-root-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: root) }
    var doctor = diagnosis()
    doctor.root = root
    var checks = doctor.run()
    #expect(
      checks.map(\.name) == [
        "uinput", "daemon", "keyboards", "udev", "libinput", "agent", "config", "snippets", "espanso",
        "spelling", "control socket",
      ])
    // Nothing installed: no unit to start, and the parts are missing.
    #expect(checks[1].result == .fail && checks[1].fix?.contains("vkbd.service is not installed") == true)
    #expect(checks[2].result == .skip)
    #expect(checks[3...5].allSatisfy { $0.result == .fail && $0.detail.contains("is not installed") })
    #expect(checks[3].fix == "make install, or the vkbd .deb, installs it in /etc/udev/rules.d/70-vkbd.rules")
    #expect(Report.doctor(checks).hasSuffix("checks failed\n"))
    // Installed as the .deb does it: the unit to start, the parts there.
    for path in [
      "/usr/lib/systemd/system/vkbd.service", "/usr/lib/udev/rules.d/70-vkbd.rules",
      "/usr/share/libinput/50-vkbd.quirks", "/etc/xdg/autostart/vkbd-agent.desktop",
    ] {
      try FileManager.default.createDirectory(
        atPath: root + (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
      #expect(FileManager.default.createFile(atPath: root + path, contents: Data()))
    }
    checks = doctor.run()
    #expect(checks[1].fix?.hasPrefix("systemctl enable --now vkbd") == true)
    #expect(
      checks[3...5].map(\.detail) == [
        "70-vkbd.rules is installed in /usr/lib/udev/rules.d/70-vkbd.rules (the daemon is not running: read from disk)",
        "50-vkbd.quirks is installed in /usr/share/libinput/50-vkbd.quirks (the daemon is not running: read from disk)",
        "the session agent's autostart is installed in /etc/xdg/autostart/vkbd-agent.desktop"
          + " (the daemon is not running: read from disk)",
      ])
  }

  @Test func aFormOrAChoiceWithoutADialogProgramFails() throws {
    let config = NSTemporaryDirectory() + "doctor-dialog-\(getpid()).yaml"
    defer { unlink(config) }
    try """
      matches:
        - {trigger: ";form", form: "Dear [[name]]"}
        - trigger: ";pick"
          replace: "{{fruit}}"
          vars: [{name: fruit, type: choice, params: {values: [apple, pear]}}]
        - {trigger: ";plain", replace: plain}
      """.write(toFile: config, atomically: true, encoding: .utf8)
    var doctor = Diagnosis(socket: "/nonexistent/vkbd.sock", configPath: config)
    doctor.userDirectory = nil
    doctor.dialogProgram = nil
    let missing = doctor.configCheck()
    #expect(missing.result == .fail && missing.detail == "2 snippets with a form or a choice, and no dialog program (zenity) on PATH")
    #expect(missing.fix?.hasPrefix("apt install zenity") == true)
    doctor.dialogProgram = "/usr/bin/zenity"
    #expect(doctor.configCheck().result == .ok)
  }

  @Test func theDictionariesAutocorrectWouldUseMustBeInstalled() throws {
    let config = NSTemporaryDirectory() + "doctor-spelling-\(getpid()).yaml"
    defer { unlink(config) }
    var doctor = Diagnosis(socket: "/nonexistent/vkbd.sock", configPath: config)
    doctor.userDirectory = nil
    try "autocorrect_languages: [en_US, de_DE]\n".write(toFile: config, atomically: true, encoding: .utf8)
    #expect(doctor.spellingCheck() == .ok("spelling", "autocorrect with en_US, de_DE (/usr/share/hunspell)"))
    doctor.dictionaryDirectory = "/nonexistent"
    let missing = doctor.spellingCheck()
    #expect(missing.result == .fail && missing.detail == "no dictionary en_US, de_DE in /nonexistent")
    #expect(missing.fix?.contains("apt install hunspell-en-us") == true)
    try "autocorrect: false\n".write(toFile: config, atomically: true, encoding: .utf8)
    #expect(doctor.spellingCheck() == .ok("spelling", "autocorrect is off"))
  }

  @Test func aSocketOthersCanWriteToFails() throws {
    let path = NSTemporaryDirectory() + "doctor-\(getpid()).sock"
    let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
    defer {
      close(fd)
      unlink(path)
    }
    var address = sockaddr_un()
    address.sun_family = sa_family_t(AF_UNIX)
    withUnsafeMutableBytes(of: &address.sun_path) { bytes in
      _ = path.utf8CString.withUnsafeBytes { memcpy(bytes.baseAddress!, $0.baseAddress!, $0.count) }
    }
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
    }
    try #require(bound == 0)
    chmod(path, 0o666)
    let open = diagnosis(socket: path).socketCheck()
    #expect(open.result == .fail && open.detail.contains("0666"))
    chmod(path, 0o600)
    #expect(diagnosis(socket: path).socketCheck().result == (getuid() == 0 ? .ok : .fail))
  }

  @Test func aBrokenConfigOrMatchFileFails() throws {
    let directory = NSTemporaryDirectory() + "doctor-config-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let config = directory + "/config.yaml", matches = directory + "/base.yml"
    try "snippets:\n  - \(matches)\n".write(toFile: config, atomically: true, encoding: .utf8)
    try "matches:\n  - trigger: ;a\n    replace: b\n".write(toFile: matches, atomically: true, encoding: .utf8)
    var diagnosis = diagnosis()
    diagnosis.configPath = config
    #expect(diagnosis.configCheck().result == .ok)
    try "matches: [\n".write(toFile: matches, atomically: true, encoding: .utf8)
    let broken = diagnosis.configCheck()
    #expect(broken.result == .fail && broken.detail.contains("base.yml:2"), "\(broken)")
    try "autocapitalize: 3\n".write(toFile: config, atomically: true, encoding: .utf8)
    #expect(diagnosis.configCheck().result == .fail)
  }

  @Test func anotherVersionOfTheDaemonFails() {
    var status = StatusReport(
      state: "running", config: "c", configLoaded: "", layout: "us", devicesGrabbed: 1, snippets: 0, uptimeSeconds: 1,
      pid: 1, version: "0.0.1")
    #expect(diagnosis().daemonCheck(status).result == .fail)
    status.version = VKBDVersion.current
    #expect(diagnosis().daemonCheck(status).result == .ok)
  }
}
