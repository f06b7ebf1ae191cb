import Foundation
import KeyboardEngine
import Testing

@testable import vkbd

@Suite struct ConfigTests {
  @Test func anEmptyFileMeansTheDefaults() throws {
    let configuration = try ConfigLoader.parse("", file: "c.yaml")
    #expect(configuration.engine == EngineConfiguration())
    #expect(configuration.layout == nil)
  }

  @Test func everyKeyIsRead() throws {
    let text = """
      autocapitalize: false
      autocapitalize_after_reset: true
      double_space_period: false
      double_space_timeout_ms: 900
      backspace:
        accelerate: false
        repeat_delay_ms: 300
        repeat_interval_ms: 40
        words_after: 10
        word_interval_ms: 200
      layout:
        layout: de
        variant: nodeadkeys
        options: ""
      """
    let configuration = try ConfigLoader.parse(text, file: "c.yaml")
    var expected = EngineConfiguration()
    expected.autocapitalize = false
    expected.capitalizeAfterReset = true
    expected.doubleSpacePeriod = false
    expected.doubleSpaceTimeoutMilliseconds = 900
    expected.backspace.accelerate = false
    expected.backspace.repeatDelayMilliseconds = 300
    expected.backspace.repeatIntervalMilliseconds = 40
    expected.backspace.wordsAfter = 10
    expected.backspace.wordIntervalMilliseconds = 200
    #expect(configuration.engine == expected)
    #expect(configuration.layout == LayoutNames(layout: "de", variant: "nodeadkeys"))
  }

  @Test(arguments: [
    ("autocapitalise: true", 1, 1, "unknown key 'autocapitalise'"),
    ("autocapitalize: 3", 1, 17, "autocapitalize must be true or false"),
    ("double_space_timeout_ms: soon", 1, 26, "must be a whole number"),
    ("double_space_timeout_ms: 0", 1, 26, "between 1 and 60000"),
    ("backspace:\n  words_after: -1", 2, 16, "backspace.words_after must be between"),
    ("backspace:\n  speed: 3", 2, 3, "unknown key 'speed'"),
    ("backspace: fast", 1, 12, "backspace must be a mapping"),
    ("layout:\n  layout: xx-nonexistent", 2, 3, "no keymap for layout"),
    ("autocapitalize: true\nautocapitalize: false", 2, 1, "appears twice"),
    ("- a\n- b", 1, 1, "config must be a mapping"),
    ("a: [", 2, 1, "YAML"),
  ])
  func aBadConfigNamesFileLineAndProblem(text: String, line: Int, column: Int, message: String) {
    do {
      _ = try ConfigLoader.parse(text, file: "bad.yaml")
      Issue.record("config was accepted")
    } catch {
      #expect(error.problems.count == 1)
      let problem = error.problems[0]
      #expect(problem.file == "bad.yaml")
      #expect(problem.line == line)
      #expect(problem.column == column)
      #expect(problem.message.contains(message), "\(problem.message)")
    }
  }

  @Test func everyProblemIsReportedNotJustTheFirst() {
    do {
      _ = try ConfigLoader.parse("autocapitalize: 1\ndouble_space_period: 2\nnope: 3", file: "bad.yaml")
      Issue.record("config was accepted")
    } catch {
      #expect(error.problems.map(\.line) == [1, 2, 3])
    }
  }

  @Test func theSystemKeyboardFileGivesTheDefaultLayout() {
    let names = SystemKeyboard.layoutNames(
      fromShellAssignments:
        "# KEYBOARD CONFIGURATION FILE\nXKBMODEL=\"pc105\"\nXKBLAYOUT=\"de\"\nXKBVARIANT=\"nodeadkeys\"\nXKBOPTIONS=\"\"\nBACKSPACE=\"guess\"\n"
    )
    #expect(names == LayoutNames(layout: "de", variant: "nodeadkeys"))
  }

  @Test func withoutTheSystemKeyboardFileTheLayoutIsUS() {
    #expect(SystemKeyboard.layoutNames(path: "/nonexistent/keyboard") == LayoutNames())
  }

  @Test func theBinaryExits78OnABadConfig() throws {
    let path = "/tmp/vkbd-test-bad-config-\(getpid()).yaml"
    try "double_space_period: maybe\n".write(toFile: path, atomically: true, encoding: .utf8)
    defer { unlink(path) }
    let result = try VKBDBinary.run(["simulate", "--config", path], input: "type hi\n")
    #expect(result.status == 78)
    #expect(result.error.contains("\(path):1:22: double_space_period must be true or false"))
  }
}
