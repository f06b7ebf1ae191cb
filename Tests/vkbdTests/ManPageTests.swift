import ArgumentParser
import Foundation
import Testing

@testable import VKBDDaemon

/// The man pages and the code say the same: every subcommand and option is in
/// vkbd(8), every config key in vkbd.yaml(5), and neither names one that does
/// not exist. mandoc renders both without a warning.
@Suite struct ManPageTests {
  static let man = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("man")

  static func page(_ name: String) throws -> String {
    try String(contentsOf: man.appendingPathComponent(name), encoding: .utf8)
  }

  /// The words after a macro at the start of lines and inside them: `.Cm status` or `Fl -json`.
  static func arguments(of macro: String, in page: String) -> Set<String> {
    let pattern = try! NSRegularExpression(pattern: "(?:^\\.|\\s)\(macro) ([^ \\n]+)", options: [.anchorsMatchLines])
    let range = NSRange(page.startIndex..., in: page)
    return Set(
      pattern.matches(in: page, range: range).compactMap { match in
        Range(match.range(at: 1), in: page).map { String(page[$0]) }
      })
  }

  /// Each subcommand's name and the long options its help lists.
  static var commands: [(name: String, options: Set<String>)] {
    func withNested(_ command: ParsableCommand.Type) -> [ParsableCommand.Type] {
      [command] + command.configuration.subcommands.flatMap(withNested)
    }
    return VKBD.configuration.subcommands.flatMap(withNested).map { command in
      let help = command.helpMessage(columns: 200)
      let pattern = try! NSRegularExpression(pattern: "^  (--[a-z-]+)", options: [.anchorsMatchLines])
      let options = pattern.matches(in: help, range: NSRange(help.startIndex..., in: help)).map {
        String(help[Range($0.range(at: 1), in: help)!])
      }
      return (command._commandName, Set(options).subtracting(["--help", "--version"]))
    }
  }

  /// A name left to the argument parser is derived from the type's name,
  /// which scans every protocol conformance in the binary: over half of the
  /// instructions `vkbd --version` ran before every command named itself.
  @Test func everySubcommandNamesItself() {
    for command in VKBD.configuration.subcommands {
      #expect(command.configuration.commandName != nil, "\(command)")
    }
  }

  @Test func everySubcommandAndOptionIsInVkbd8AndNothingElse() throws {
    let page = try Self.page("vkbd.8")
    let documentedCommands = Self.arguments(of: "Cm", in: page)
    let documentedFlags = Set(Self.arguments(of: "Fl", in: page).map { "-" + $0 })
    var allOptions: Set<String> = []
    for (name, options) in Self.commands {
      #expect(documentedCommands.contains(name), "vkbd.8 does not document the subcommand \(name)")
      for option in options {
        #expect(documentedFlags.contains(option), "vkbd.8 does not document \(name) \(option)")
      }
      allOptions.formUnion(options)
    }
    let extra = documentedFlags.subtracting(allOptions).subtracting(["--help", "--version", "-h"])
    #expect(extra.isEmpty, "vkbd.8 documents options no command has: \(extra.sorted())")
  }

  /// Every config key, nested ones as `backspace.repeat_delay_ms`.
  static var configKeys: Set<String> {
    var keys = Set(ConfigLoader.topLevelKeys)
    for (section, nested) in [
      ("backspace", ConfigLoader.backspaceKeys), ("layout", ConfigLoader.layoutKeys),
      ("expansion", ConfigLoader.expansionKeys), ("devices", ConfigLoader.deviceKeys),
      ("devices.include", ConfigLoader.deviceEntryKeys),
      ("apps", ConfigLoader.appRuleKeys), ("apps.backspace", ConfigLoader.appRuleBackspaceKeys),
      ("picker", ConfigLoader.pickerKeys),
    ] {
      for key in nested { keys.insert("\(section).\(key)") }
    }
    return keys
  }

  @Test func everyConfigKeyIsInVkbdYaml5AndNothingElse() throws {
    let page = try Self.page("vkbd.yaml.5")
    let keysSection = try #require(page.range(of: ".Sh KEYS")).upperBound
    let keysEnd = page[keysSection...].range(of: "\n.Sh ")?.lowerBound ?? page.endIndex
    let documented = Self.arguments(of: "Ic", in: String(page[keysSection..<keysEnd]))
    #expect(
      Self.configKeys.subtracting(documented).isEmpty,
      "undocumented: \(Self.configKeys.subtracting(documented).sorted())")
    #expect(
      documented.subtracting(Self.configKeys).isEmpty,
      "no such key: \(documented.subtracting(Self.configKeys).sorted())")
  }

  /// The built-in app rules are listed in vkbd.yaml(5), every name of them.
  @Test func everyBuiltInNameIsInVkbdYaml5() throws {
    let page = try Self.page("vkbd.yaml.5")
    let section = try #require(page.range(of: ".Ss Built-in rules")).upperBound
    let listed = Self.arguments(of: "Li", in: String(page[section...])).map {
      $0.replacingOccurrences(of: "\"", with: "")
    }
    let quoted = try NSRegularExpression(pattern: "\\.Li \"([^\"]+)\"")
    let text = String(page[section...])
    let names = Set(
      quoted.matches(in: text, range: NSRange(text.startIndex..., in: text)).map {
        String(text[Range($0.range(at: 1), in: text)!])
      } + listed)
    for name in BuiltInRules.terminals + BuiltInRules.editors + BuiltInRules.editorPrefixes {
      #expect(names.contains(name), "vkbd.yaml.5 does not list \(name)")
    }
  }

  /// THE EMBEDDED DEFAULT of vkbd.yaml(5) is what `vkbd config
  /// --print-default` prints.
  @Test func theEmbeddedDefaultInVkbdYaml5IsTheRealOne() throws {
    let page = try Self.page("vkbd.yaml.5")
    let section = try #require(page.range(of: ".Sh THE EMBEDDED DEFAULT")).upperBound
    let start = try #require(page[section...].range(of: ".Bd -literal\n")).upperBound
    let end = try #require(page[start...].range(of: "\n.Ed\n")).lowerBound
    var text = String(page[start..<end]).replacingOccurrences(of: "\\-", with: "-")
      .replacingOccurrences(of: "\\&", with: "")
    let unicode = try NSRegularExpression(pattern: "\\\\\\[u([0-9A-F]{4})\\]")
    for match in unicode.matches(in: text, range: NSRange(text.startIndex..., in: text)).reversed() {
      let range = Range(match.range, in: text)!
      let scalar = Unicode.Scalar(UInt32(text[Range(match.range(at: 1), in: text)!], radix: 16)!)!
      text.replaceSubrange(range, with: String(scalar))
    }
    text = text.replacingOccurrences(of: "\\e", with: "\\")
    #expect(text + "\n" == Configuration.embeddedDefaultText)
  }

  @Test(arguments: ["vkbd.8", "vkbd.yaml.5", "vkbd-agent.1"])
  func mandocFindsNothingToWarnAbout(page: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/mandoc")
    process.arguments = ["-T", "lint", "-W", "warning", Self.man.appendingPathComponent(page).path]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    process.waitUntilExit()
    #expect(process.terminationStatus == 0 && text.isEmpty, "\(text)")
  }
}
