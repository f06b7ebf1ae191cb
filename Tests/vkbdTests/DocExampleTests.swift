import Foundation
import Testing

/// Every doc sentence that shows a command and its output is run and
/// compared (issue 40): the `$` examples of vkbd(8) and of README, and
/// vkbd.yaml(5)'s example config and match files, which `vkbd check`
/// must find good. A `#` example (root's) or one with no output shown is
/// read, not run.
@Suite struct DocExampleTests {
  static let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
    .deletingLastPathComponent().deletingLastPathComponent()

  static func text(_ path: String) throws -> String {
    try String(contentsOf: repository.appendingPathComponent(path), encoding: .utf8)
  }

  /// The literal blocks (`.Bd -literal` … `.Ed`) of a man page after
  /// `section`, with roff's escapes undone.
  static func literalBlocks(of page: String, after section: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in page.components(separatedBy: "\n").drop(while: { $0 != section }) {
      if line.hasPrefix(".Bd -literal") {
        current = []
      } else if line == ".Ed", let block = current {
        blocks.append(block)
        current = nil
      } else if current != nil && !line.hasPrefix(".") {
        current!.append(line.replacingOccurrences(of: "\\-", with: "-").replacingOccurrences(of: "\\e", with: "\\"))
      }
    }
    return blocks
  }

  /// The fenced `sh` blocks of a Markdown file.
  static func shellBlocks(of markdown: String) -> [[String]] {
    var blocks: [[String]] = []
    var current: [String]?
    for line in markdown.components(separatedBy: "\n") {
      if line == "```sh" {
        current = []
      } else if line == "```", let block = current {
        blocks.append(block)
        current = nil
      } else if current != nil {
        current!.append(line)
      }
    }
    return blocks
  }

  /// A command shown after `$ ` (continued over lines after a `|` or a
  /// `\`) and the output shown below it.
  struct Example {
    var command: String
    var output: [String]
  }

  static func examples(in blocks: [[String]]) -> [Example] {
    var examples: [Example] = []
    for block in blocks {
      var index = 0
      while index < block.count {
        guard block[index].hasPrefix("$ ") else {
          index += 1
          continue
        }
        var command = String(block[index].dropFirst(2))
        index += 1
        while command.hasSuffix("|") || command.hasSuffix("\\"), index < block.count {
          command += "\n" + block[index]
          index += 1
        }
        var output: [String] = []
        while index < block.count && !block[index].hasPrefix("$ ") && !block[index].hasPrefix("# ") {
          output.append(block[index])
          index += 1
        }
        while output.last == "" { output.removeLast() }
        examples.append(Example(command: command, output: output))
      }
    }
    return examples
  }

  /// Runs `command` in sh with this build's vkbd first on PATH, no
  /// config of the machine's and no espanso files of the tester's.
  static func run(_ command: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/bin/sh")
    process.arguments = ["-c", command]
    var environment = ProcessInfo.processInfo.environment
    environment["PATH"] = VKBDBinary.url.deletingLastPathComponent().path + ":" + (environment["PATH"] ?? "/usr/bin:/bin")
    environment["XDG_CONFIG_HOME"] = "/nonexistent"
    process.environment = environment
    let output = Pipe()
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self)
  }

  /// The output shown, with a date (2026-11-23) standing for today's.
  static func expected(_ output: [String]) -> String {
    let today = ISO8601DateFormatter.string(
      from: Date(), timeZone: .current, formatOptions: [.withFullDate, .withDashSeparatorInDate])
    return output.joined(separator: "\n").replacingOccurrences(
      of: "[0-9]{4}-[0-9]{2}-[0-9]{2}", with: today, options: .regularExpression)
  }

  static func check(_ examples: [Example], from document: String) throws {
    let shown = examples.filter { !$0.output.isEmpty }
    #expect(!shown.isEmpty, "\(document) shows no command with its output")
    for example in shown {
      let output = try run(example.command)
      // simulate prints no newline after the text; echo's lines do.
      #expect(
        output.hasSuffix("\n") ? String(output.dropLast()) == expected(example.output) : output == expected(example.output),
        "\(document): \(example.command)")
    }
  }

  @Test func vkbd8sExamplesPrintWhatTheySay() throws {
    let blocks = Self.literalBlocks(of: try Self.text("man/vkbd.8"), after: ".Sh EXAMPLES")
    try Self.check(Self.examples(in: blocks), from: "vkbd(8)")
  }

  @Test func readmesExamplesPrintWhatTheySay() throws {
    let examples = Self.examples(in: Self.shellBlocks(of: try Self.text("README.md")))
    #expect(examples.filter { !$0.output.isEmpty }.count >= 6)
    try Self.check(examples, from: "README.md")
  }

  /// vkbd.yaml(5)'s example: the config, base.yml and the file it
  /// imports, put where the example says, check good and expand.
  @Test func vkbdYaml5sExampleConfigChecksGood() throws {
    let blocks = Self.literalBlocks(of: try Self.text("man/vkbd.yaml.5"), after: ".Sh EXAMPLES")
    #expect(blocks.count == 4)
    let directory = "/tmp/vkbd-doc-example-\(getpid())"
    try FileManager.default.createDirectory(atPath: directory + "/match", withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for (block, path) in zip(blocks, ["config.yaml", "match/base.yml", "match/_signatures.yml"]) {
      try (block.joined(separator: "\n") + "\n").write(
        toFile: directory + "/" + path, atomically: true, encoding: .utf8)
    }
    let checked = try VKBDBinary.run(["check", "--config", directory + "/config.yaml", "--no-user"])
    #expect(checked.status == 0 && checked.error.isEmpty, "\(checked.error)")
    #expect(checked.output.hasPrefix("\(directory)/config.yaml: good: layout de,ru"))
    let signature = try VKBDBinary.run(["expand", "--config", directory + "/config.yaml", "--no-user", ";sig"])
    #expect(signature.output == "Best regards,\nAlice Example\n")
    #expect(blocks[3] == ["$ vkbd check", "$ sudo vkbd reload"])
  }
}
