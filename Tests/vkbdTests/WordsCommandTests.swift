import Foundation
import Glibc
import Testing

@testable import VKBDDaemon

/// `vkbd words` and `vkbd package` as a user meets them: what an empty
/// list says, teaching a word by hand, and sudo's root files named.
@Suite struct WordsCommandTests {
  @Test func anEmptyListSaysHowWordsComeAndAWordCanBeTaughtByHand() throws {
    let data = "/tmp/vkbd-words-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: data) }
    let environment = ["XDG_DATA_HOME": data, "SUDO_USER": ""]
    let empty = try VKBDBinary.run(["words"], environment: environment)
    #expect(empty.status == 0 && empty.output.isEmpty)
    #expect(empty.error.contains("no learned words in \(data)/vkbd/words") && empty.error.contains("vkbd words add WORD"))
    #expect(try VKBDBinary.run(["words", "add", "Kubectl"], environment: environment).status == 0)
    #expect(try VKBDBinary.run(["words", "add", "kubectl"], environment: environment).status == 0)  // once
    let listed = try VKBDBinary.run(["words"], environment: environment)
    #expect(listed.output == "kubectl\n" && listed.error.isEmpty)
    let bad = try VKBDBinary.run(["words", "add", "two words"], environment: environment)
    #expect(bad.status == 64 && bad.error.contains("a word to add is 1 to 32 letters") && !bad.error.contains("two"))
    #expect(try VKBDBinary.run(["words", "remove", "kubectl"], environment: environment).status == 0)
    #expect(try VKBDBinary.run(["words"], environment: environment).output.isEmpty)
  }

  @Test func underSudoTheFilesAreSaidToBeRoots() throws {
    let home = "/tmp/vkbd-sudo-\(getpid())"
    defer { try? FileManager.default.removeItem(atPath: home) }
    let environment = ["HOME": home, "XDG_CONFIG_HOME": "", "XDG_DATA_HOME": "", "SUDO_USER": "alice"]
    let words = try VKBDBinary.run(["words"], environment: environment)
    #expect(words.error.contains("under sudo, vkbd words works on root's \(home)/.local/share/vkbd/words, not alice's"))
    let packages = try VKBDBinary.run(["package", "list"], environment: environment)
    #expect(packages.error.contains("under sudo, vkbd package works on root's \(home)/.config/espanso, not alice's"))
    // Without sudo nothing is said.
    let plain = try VKBDBinary.run(["package", "list"], environment: ["HOME": home, "XDG_CONFIG_HOME": "", "SUDO_USER": ""])
    #expect(!plain.error.contains("under sudo"))
  }
}
