import Foundation
import Glibc
import Testing

@testable import vkbd

/// `snippets`, `expand` and `search` with `--config`: the config's own
/// snippets, read as `check` reads them, with no daemon running.
@Suite struct OfflineCommandTests {
  @Test func theSnippetsOfAConfigAreListedExpandedAndSearchedWithoutADaemon() throws {
    let directory = "/tmp/vkbd-offline-\(getpid())"
    mkdir(directory, 0o755)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let config = "\(directory)/config.yaml"
    try """
      matches:
        - {trigger: ":espa", replace: "espanso", label: "the name"}
        - trigger: ":twice"
          replace: "{{inner}} and {{inner}}"
          vars: [{name: inner, type: match, params: {trigger: ":espa"}}]
      """.write(toFile: config, atomically: true, encoding: .utf8)
    let socket = ["--socket", "/nonexistent/vkbd.sock"]
    let listed = try VKBDBinary.run(["snippets", "--config", config] + socket)
    #expect(listed.status == 0 && listed.output.contains(":espa") && listed.output.contains("\(config):2"))
    let expanded = try VKBDBinary.run(["expand", "--config", config, ":twice"] + socket)
    #expect(expanded.status == 0 && expanded.output == "espanso and espanso\n")
    let missing = try VKBDBinary.run(["expand", "--config", config, ":none"] + socket)
    #expect(missing.status == 65 && missing.error.contains("no snippet has the trigger ':none'"))
    let found = try VKBDBinary.run(["search", "--config", config, "name"] + socket)
    #expect(found.status == 0 && found.output.contains(":espa"))
    // Without --config they ask the daemon, which is not there.
    #expect(try VKBDBinary.run(["snippets"] + socket).status != 0)
  }

  /// The offline commands see what the daemon runs for the user who runs
  /// them: the config and that user's espanso files, as their agent sends
  /// them (issue 40).
  @Test func theUsersOwnEspansoFilesJoinTheConfigAsTheDaemonRunsThem() throws {
    let directory = "/tmp/vkbd-offline-user-\(getpid())"
    let espanso = directory + "/espanso"
    try FileManager.default.createDirectory(atPath: espanso + "/match/sub", withIntermediateDirectories: true)
    try FileManager.default.createDirectory(atPath: espanso + "/config", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let config = "\(directory)/config.yaml"
    try "layout:\n  layout: us\nmatches:\n  - {trigger: ':sys', replace: 'system'}\n".write(
      toFile: config, atomically: true, encoding: .utf8)
    try "matches:\n  - {trigger: ':espa', replace: 'espanso', label: 'my own'}\n".write(
      toFile: espanso + "/match/sub/base.yml", atomically: true, encoding: .utf8)
    try "search_shortcut: CTRL+SPACE\ntoggle_key: ALT\n".write(
      toFile: espanso + "/config/default.yml", atomically: true, encoding: .utf8)
    let home = ["XDG_CONFIG_HOME": directory]
    let script = "type :espa :sys"
    let both = try VKBDBinary.run(["simulate", "--config", config], input: script, environment: home)
    #expect(both.status == 0 && both.output == "espanso system")
    #expect(both.error.contains("default.yml:2:1: toggle_key is espanso's and not vkbd's"))
    let noUser = try VKBDBinary.run(["simulate", "--config", config, "--no-user"], input: script, environment: home)
    #expect(noUser.output == ":espa system" && noUser.error.isEmpty)
    let noSystem = try VKBDBinary.run(["simulate", "--config", config, "--no-system"], input: script, environment: home)
    #expect(noSystem.output == "espanso :sys")
    // espanso's search_shortcut opens the picker, as in the daemon.
    let picker = try VKBDBinary.run(
      ["simulate", "--config", config], input: "tap leftctrl+space\ntype own\ntap enter", environment: home)
    #expect(picker.output == "espanso")
    let checked = try VKBDBinary.run(["check", "--config", config], environment: home)
    #expect(checked.status == 0)
    #expect(checked.output.hasPrefix("\(config): good: layout us, 2 snippets, 1 match file (1 of them yours)"))
    let found = try VKBDBinary.run(
      ["search", "--config", config, "--socket", "/nonexistent/vkbd.sock", "own"], environment: home)
    #expect(found.output.contains(":espa"))
    let other = try VKBDBinary.run(
      ["expand", "--config", config, "--espanso", espanso, ":espa"], environment: ["XDG_CONFIG_HOME": "/nonexistent"])
    #expect(other.output == "espanso\n")
    // An error in the user's files fails the check, as the daemon leaves
    // that match out.
    try "matches:\n  - trigger: ':bad'\n".write(toFile: espanso + "/match/bad.yml", atomically: true, encoding: .utf8)
    let bad = try VKBDBinary.run(["check", "--config", config], environment: home)
    #expect(bad.status == 78 && bad.error.contains("\(espanso)/match/bad.yml:2"))
    #expect(try VKBDBinary.run(["check", "--config", config, "--no-user"], environment: home).status == 0)
    // Without --config the daemon is asked, and it has the user's files.
    let alone = try VKBDBinary.run(["search", "--no-user", "x"], environment: home)
    #expect(alone.status == 64 && alone.error.contains("--no-user, --no-system and --espanso go with --config"))
  }
}
