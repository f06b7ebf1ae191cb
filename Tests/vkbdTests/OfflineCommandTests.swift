import Foundation
import Glibc
import Testing

@testable import VKBDDaemon

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
    // Without --config they ask the daemon; where it is not there, they
    // read what it would load (here: no /etc/vkbd/config.yaml, so the
    // embedded default) and say so.
    let fallback = try VKBDBinary.run(["expand", ";shrug"] + socket)
    #expect(fallback.status == 0 && fallback.output == "¯\\_(ツ)_/¯\n")
    #expect(fallback.error.hasPrefix("vkbd: the daemon is not running: reading what it would load"))
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
    // espanso's search_shortcut opens the picker, as in the daemon, and
    // still does after the focus moved (an app rule applied).
    for script in ["tap leftctrl+space\ntype own\ntap enter", "focus gedit text\ntap leftctrl+space\ntype own\ntap enter"] {
      let picker = try VKBDBinary.run(["simulate", "--config", config], input: script, environment: home)
      #expect(picker.output == "espanso", "\(script)")
    }
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
    // --no-user, --no-system and --espanso read here without --config too,
    // whether a daemon runs or not.
    let alone = try VKBDBinary.run(["snippets", "--espanso", espanso, "--no-system"], environment: home)
    #expect(alone.status == 0 && alone.output.contains(":espa") && !alone.output.contains(":sys"))
    #expect(alone.error.hasPrefix("vkbd: \(espanso)/match/bad.yml:2:5: match has no replace: (nor form:)\n"))
  }
}

/// `vkbd path` and `vkbd edit`, espanso's habits (issue 40).
@Suite struct PathAndEditTests {
  @Test func pathNamesEachPlaceAndOneAlone() throws {
    let environment = ["XDG_CONFIG_HOME": "/tmp/vkbd-path-\(getpid())", "XDG_DATA_HOME": "/tmp/vkbd-data"]
    let all = try VKBDBinary.run(["path"], environment: environment)
    #expect(all.status == 0)
    #expect(all.output.split(separator: "\n").map { String($0.prefix(9)) } == [
      "config   ", "espanso  ", "match    ", "packages ", "words    ", "socket   ",
    ])
    #expect(all.output.contains("match    /tmp/vkbd-path-\(getpid())/espanso/match (not there yet)\n"))
    #expect(try VKBDBinary.run(["path", "packages"], environment: environment).output
      == "/tmp/vkbd-path-\(getpid())/espanso/match/packages\n")
    #expect(try VKBDBinary.run(["path", "words"], environment: environment).output == "/tmp/vkbd-data/vkbd/words\n")
    let bad = try VKBDBinary.run(["path", "home"], environment: environment)
    #expect(bad.status == 64 && bad.error.contains("'home' is not a place: one of config, espanso"))
  }

  @Test func editOpensTheFileInTheEditorThenChecksTheUsersFiles() throws {
    let directory = "/tmp/vkbd-edit-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    // The "editor" appends a snippet to the file it is given.
    let adding = #"sh -c 'printf "  - {trigger: \":hi\", replace: hello}\n" >> "$0"'"#
    let edited = try VKBDBinary.run(["edit"], environment: ["XDG_CONFIG_HOME": directory, "EDITOR": adding])
    #expect(edited.status == 0)
    #expect(edited.output == "\(directory)/espanso: good: 1 snippet, 1 match file; your session agent sends them to the daemon\n")
    let text = try String(contentsOfFile: directory + "/espanso/match/base.yml", encoding: .utf8)
    #expect(text == "matches:\n  - {trigger: \":hi\", replace: hello}\n")
    // VISUAL comes before EDITOR, a name is a file under match/, and
    // errors in the files fail with their line.
    let broken = #"sh -c 'printf "matches:\n  - trigger: x\n" > "$0"'"#
    let failed = try VKBDBinary.run(
      ["edit", "work"], environment: ["XDG_CONFIG_HOME": directory, "VISUAL": broken, "EDITOR": "false"])
    #expect(failed.status == 78 && failed.error.contains("\(directory)/espanso/match/work.yml:2:5"))
    let config = try VKBDBinary.run(
      ["edit", "config"], environment: ["XDG_CONFIG_HOME": directory, "EDITOR": "true", "VISUAL": ""])
    // (work.yml is still broken: every file of the user is checked.)
    #expect(config.status == 78 && access(directory + "/espanso/config/default.yml", F_OK) == 0)
    // An editor that fails leaves the files unchecked, with its status.
    let quit = try VKBDBinary.run(["edit"], environment: ["XDG_CONFIG_HOME": directory, "EDITOR": "exit 3"])
    #expect(quit.status == 3 && quit.error.contains("ended with status 3; not checked"))
    let none = try VKBDBinary.run(
      ["edit"], environment: ["XDG_CONFIG_HOME": directory, "EDITOR": "", "VISUAL": "", "PATH": "/nonexistent"])
    #expect(none.status == 69 && none.error.contains("no editor: set VISUAL or EDITOR"))
    #expect(try VKBDBinary.run(["edit", "../x"], environment: ["XDG_CONFIG_HOME": directory]).status == 64)
  }
}
