import Foundation
import KeyboardEngine

@testable import VKBDDaemon
import XKBFiles

/// Runs scripts the way `vkbd simulate` does, for scenario tests.
enum Simulation {
  nonisolated(unsafe) private static var layouts: [String: Layout] = [:]
  private static let lock = NSLock()

  /// The layout for `name` (`de`, `us(dvorak)`), compiled once.
  static func layout(_ name: String, options: String = "") -> Layout {
    lock.lock()
    defer { lock.unlock() }
    let key = name + "/" + options
    if let layout = layouts[key] { return layout }
    let layout = try! Layout(names: LayoutNames(parsing: name, options: options)!)
    layouts[key] = layout
    return layout
  }

  /// `script` run with the config `yaml` (snippets and all) on `layout`.
  static func run(
    _ script: String, layout: String = "us", config yaml: String, spelling: Spelling? = nil,
    programs: Set<String> = []
  ) throws -> SimulationResult {
    var configuration = try ConfigLoader.parse(yaml, file: "test.yaml")
    if let spelling { configuration.engine.quotes = QuoteStyle(language: spelling.languages[0].name) }
    return try SimulationResult(
      script: script, layout: Simulation.layout(layout), configuration: configuration.engine,
      snippets: SnippetMatcher(configuration.snippets), rules: configuration.apps, spelling: spelling,
      programs: programs)
  }

  /// The text a field shows after `script`.
  static func text(
    _ script: String, layout: String = "us", configuration: EngineConfiguration = EngineConfiguration()
  ) throws -> String {
    try SimulationResult(script: script, layout: Simulation.layout(layout), configuration: configuration).text
  }

  /// The emitted events after `script`, as `KEY_A 1` lines.
  static func events(
    _ script: String, layout: String = "us", configuration: EngineConfiguration = EngineConfiguration()
  ) throws -> [String] {
    try SimulationResult(script: script, layout: Simulation.layout(layout), configuration: configuration)
      .transcript.map { "\(KeyNames.name(of: $0.key.code)) \($0.key.value.rawValue)" }
  }
}

/// Runs the built `vkbd` binary, which sits beside the test bundle.
enum VKBDBinary {
  static var url: URL {
    URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent().appendingPathComponent("vkbd")
  }

  /// Runs `vkbd` with `arguments`, `input` on stdin and `environment`
  /// over the test's own, in which the espanso files of whoever runs the
  /// tests are not there (unless `environment` says where they are).
  static func run(_ arguments: [String], input: String = "", environment: [String: String] = [:]) throws -> (
    status: Int32, output: String, error: String
  ) {
    let process = Process()
    process.executableURL = url
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(
      ["XDG_CONFIG_HOME": "/nonexistent"].merging(environment) { $1 }
    ) { $1 }
    let stdin = Pipe(), stdout = Pipe(), stderr = Pipe()
    process.standardInput = stdin
    process.standardOutput = stdout
    process.standardError = stderr
    try process.run()
    stdin.fileHandleForWriting.write(Data(input.utf8))
    try stdin.fileHandleForWriting.close()
    let output = stdout.fileHandleForReading.readDataToEndOfFile()
    let error = stderr.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return (process.terminationStatus, String(decoding: output, as: UTF8.self), String(decoding: error, as: UTF8.self))
  }
}
