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
}
