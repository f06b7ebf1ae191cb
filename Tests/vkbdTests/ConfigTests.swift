import CEvdev
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

  @Test func withoutTheSystemKeyboardFilesTheLayoutIsUS() {
    #expect(SystemKeyboard.layoutNames(paths: ["/nonexistent/keyboard"]) == LayoutNames())
  }

  @Test func localedsVconsoleConfServesWhenThereIsNoDebianFile() throws {
    let path = "/tmp/vkbd-vconsole-\(getpid()).conf"
    try "KEYMAP=de-latin1\nXKBLAYOUT=de\nXKBMODEL=pc105\nXKBVARIANT=neo\n".write(
      toFile: path, atomically: true, encoding: .utf8)
    defer { unlink(path) }
    #expect(
      SystemKeyboard.layoutNames(paths: ["/nonexistent/keyboard", path])
        == LayoutNames(model: "pc105", layout: "de", variant: "neo"))
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

@Suite struct DaemonConfigTests {
  @Test func readsTheToggleKeyAndTheControlSocket() throws {
    let configuration = try ConfigLoader.parse(
      """
      toggle_key: rightctrl+pause
      control_socket: /run/elsewhere/vkbd.sock
      control_group: root
      """, file: "c.yaml")
    #expect(configuration.engine.toggleChord == [UInt16(KEY_RIGHTCTRL), UInt16(KEY_PAUSE)])
    #expect(configuration.controlSocket == "/run/elsewhere/vkbd.sock")
    #expect(configuration.controlGroup == "root")
  }

  @Test(arguments: [
    ("toggle_key: rightctrl+paws\n", "toggle_key: unknown key name 'paws' (a chord like rightctrl+pause)"),
    ("control_socket: vkbd.sock\n", "control_socket must be an absolute path shorter than 108 bytes"),
    ("control_group: no-such-group-here\n", "control_group: no group named 'no-such-group-here'"),
  ])
  func rejectsBadDaemonSettings(yaml: String, message: String) throws {
    let error = try #require(throws: ConfigErrors.self) { try ConfigLoader.parse(yaml, file: "c.yaml") }
    #expect(error.problems.map(\.message) == [message])
  }
}

@Suite struct FileSafetyTests {
  @Test func filesOthersCouldEditAreRefused() throws {
    let path = "/tmp/vkbd-safety-\(getpid()).yaml"
    #expect(FileManager.default.createFile(atPath: path, contents: Data("autocapitalize: true\n".utf8)))
    defer { unlink(path) }
    chmod(path, 0o600)
    #expect(try ConfigLoader.load(path: path).filesOthersCouldEdit().isEmpty)
    chmod(path, 0o666)
    #expect(
      try ConfigLoader.load(path: path).filesOthersCouldEdit().map(\.description) == [
        "\(path):1:1: is writable by its group or others: vkbd refuses files that others could edit"
      ])
  }

  @Test func aDirectoryOthersCanWriteToIsRefusedButAStickyOneIsNot() throws {
    let directory = "/tmp/vkbd-safety-dir-\(getpid())"
    mkdir(directory, 0o755)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = "\(directory)/config.yaml"
    #expect(FileManager.default.createFile(atPath: path, contents: Data("autocapitalize: true\n".utf8)))
    chmod(path, 0o600)
    chmod(directory, 0o777)
    #expect(
      try ConfigLoader.load(path: path).filesOthersCouldEdit().map(\.message) == [
        "is in \(directory), which its group or others can write to: vkbd refuses files that others could edit"
      ])
    chmod(directory, 0o1777)
    #expect(try ConfigLoader.load(path: path).filesOthersCouldEdit().isEmpty)
  }
}

@Suite struct DeviceFilterTests {
  @Test func readsIncludeAndExclude() throws {
    let configuration = try ConfigLoader.parse(
      """
      devices:
        include: ["AT Translated Set 2 keyboard", 046d:C31C]
        exclude:
      """, file: "c.yaml")
    #expect(configuration.devices == DeviceFilter(include: ["AT Translated Set 2 keyboard", "046d:C31C"], exclude: []))
  }

  @Test(arguments: [
    ([], [], "Any Keyboard", "1234:5678", true),
    (["Any Keyboard"], [], "Any Keyboard", "1234:5678", true),
    (["Other"], [], "Any Keyboard", "1234:5678", false),
    (["1234:5678"], [], "Any Keyboard", "1234:5678", true),
    (["ABCD:5678"], [], "Any Keyboard", "abcd:5678", true),
    ([], ["1234:5678"], "Any Keyboard", "1234:5678", false),
    (["Any Keyboard"], ["Any Keyboard"], "Any Keyboard", "1234:5678", false),
  ])
  func admitsByNameOrVendorProduct(
    include: [String], exclude: [String], name: String, vendorProduct: String, admitted: Bool
  ) {
    let filter = DeviceFilter(include: include, exclude: exclude)
    #expect(filter.admits(name: name, vendorProduct: vendorProduct) == admitted)
  }
}
