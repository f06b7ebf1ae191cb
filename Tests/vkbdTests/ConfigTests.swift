import ArgumentParser
import CEvdev
import Foundation
import KeyboardEngine
import Testing

@testable import VKBDDaemon

@Suite struct ConfigTests {
  @Test func configInitCreatesTheDefaultOnceAndNeverOverwrites() throws {
    let directory = NSTemporaryDirectory() + "vkbd-init-\(UUID().uuidString)"
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let path = directory + "/config.yaml"
    try VKBD.Config.parse(["--init", "--path", path]).run()
    #expect(try String(contentsOfFile: path, encoding: .utf8) == Configuration.embeddedDefaultText)
    let mode = try FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int
    #expect(mode == 0o644 || mode == 0o600)
    try "edited: true\n".write(toFile: path, atomically: true, encoding: .utf8)
    #expect(throws: ExitCode.self) { try VKBD.Config.parse(["--init", "--path", path]).run() }
    #expect(try String(contentsOfFile: path, encoding: .utf8) == "edited: true\n")
    #expect(throws: (any Error).self) { try VKBD.Config.parse(["--path", path]) }
  }

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
      autocorrect: false
      smart_punctuation: false
      autocorrect_languages: [de_DE, en_US]
      """
    let configuration = try ConfigLoader.parse(text, file: "c.yaml")
    #expect(
      configuration.autocorrectLanguages == ["de_DE", "en_US"] && configuration.dictionaryNames == ["de_DE", "en_US"])
    var expected = EngineConfiguration()
    expected.autocorrect = false
    expected.smartPunctuation = false
    expected.quotes = .german
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
    #expect(configuration.layout == LayoutNames(layout: "de", variant: "nodeadkeys", locale: SystemLocale.name()))
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
    ("layout:\n  locale: ../../x", 2, 11, "layout.locale must name a locale"),
    ("devices:\n  include:\n    - grab: false\n", 3, 7, "needs 'device'"),
    ("devices:\n  include:\n    - device: K\n      grab: maybe\n", 4, 13, "devices.include.grab must be true or false"),
    ("devices:\n  include:\n    - device: K\n      speed: 3\n", 4, 7, "unknown key 'speed'"),
    ("devices:\n  exclude:\n    - device: K\n", 3, 7, "devices.exclude"),
    ("autocapitalize: true\nautocapitalize: false", 2, 1, "appears twice"),
    ("- a\n- b", 1, 1, "config must be a mapping"),
    ("a: [", 2, 1, "YAML"),
    ("autocorrect: maybe", 1, 14, "autocorrect must be true or false"),
    ("autocorrect_languages: [../x]", 1, 25, "'../x' is not a dictionary name"),
    ("apps:\n  - app: x\n    smart_punctuation: 1", 3, 24, "apps.smart_punctuation must be true or false"),
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

  @Test func aDictionaryThatIsNotInstalledIsAWarningAtItsLine() throws {
    let configuration = try ConfigLoader.parse("autocorrect_languages:\n  - en_US\n  - xx_NOPE\n", file: "c.yaml")
    #expect(
      configuration.warnings.map(\.description) == [
        "c.yaml:3:5: autocorrect_languages: no dictionary xx_NOPE in /usr/share/hunspell (apt install hunspell-…): "
          + "no autocorrect in it"
      ])
    #expect(configuration.dictionaryNames == ["en_US", "xx_NOPE"])
    #expect(
      Dictionaries.load(configuration.dictionaryNames).problems == [
        "/usr/share/hunspell/xx_NOPE.aff: No such file or directory: no autocorrect in xx_NOPE"
      ])
  }

  @Test func withoutNamesTheLocaleAndTheLayoutChooseTheDictionaries() {
    #expect(Dictionaries.chosen(named: nil, layout: LayoutNames(layout: "us,ru"), locale: "") == ["en_US", "ru_RU"])
    #expect(Dictionaries.chosen(named: [], layout: LayoutNames(layout: "de"), locale: "de_AT.UTF-8") == ["de_DE"])
    #expect(Dictionaries.chosen(named: nil, layout: LayoutNames(layout: "fr(bepo)"), locale: "C.UTF-8") == ["fr_FR"])
    #expect(Dictionaries.chosen(named: nil, layout: LayoutNames(layout: "jp"), locale: "") == [])
    #expect(
      Dictionaries.chosen(named: nil, layout: LayoutNames(layout: "gb,de"), locale: "en_US.UTF-8") == [
        "en_US", "de_DE",
      ])
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

  @Test func theSystemLocaleIsLCAllElseLCCtypeElseLang() throws {
    let debian = "/tmp/vkbd-locale-\(getpid())", localed = "/tmp/vkbd-locale.conf-\(getpid())"
    defer {
      unlink(debian)
      unlink(localed)
    }
    try "#  File generated by update-locale\nLANG=\"pt_BR.UTF-8\"\nLC_CTYPE=fi_FI.UTF-8\n".write(
      toFile: debian, atomically: true, encoding: .utf8)
    try "LANG=de_DE.UTF-8\n".write(toFile: localed, atomically: true, encoding: .utf8)
    #expect(SystemLocale.name(paths: [debian, localed]) == "fi_FI.UTF-8")
    #expect(SystemLocale.name(paths: ["/nonexistent/locale", localed]) == "de_DE.UTF-8")
    try "LANG=pt_BR.UTF-8\nLC_ALL='sr_RS.UTF-8@latin'\n".write(toFile: debian, atomically: true, encoding: .utf8)
    #expect(SystemLocale.name(paths: [debian]) == "sr_RS.UTF-8@latin")
    // A file that sets no locale gives way to the next; none at all: the default.
    try "# nothing\n".write(toFile: debian, atomically: true, encoding: .utf8)
    #expect(SystemLocale.name(paths: [debian, localed]) == "de_DE.UTF-8")
    #expect(SystemLocale.name(paths: ["/nonexistent/locale"]) == "")
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

  @Test func oneChordGrammarServesTheToggleThePickerAndSimulate() throws {
    // Three chords a new user wrote, each refused before by one of three
    // grammars: evdev names, short modifier names, + or -, any case.
    let configuration = try ConfigLoader.parse(
      "toggle_key: ctrl+alt+p\npicker:\n  shortcut: leftalt+space\n", file: "c.yaml")
    #expect(configuration.engine.toggleChord == [UInt16(KEY_LEFTCTRL), UInt16(KEY_LEFTALT), UInt16(KEY_P)])
    #expect(configuration.engine.pickerShortcut == Shortcut(key: UInt16(KEY_SPACE), modifiers: .alt))
    #expect(try Script.parseLine("tap alt+space", number: 1) == .tap([UInt16(KEY_LEFTALT), UInt16(KEY_SPACE)]))
    #expect(try KeyNames.shortcut("RIGHTCTRL-Shift-p") == Shortcut(key: UInt16(KEY_P), modifiers: [.control, .shift]))
    #expect(try KeyNames.shortcut("ALT+SPACE") == Shortcut(key: UInt16(KEY_SPACE), modifiers: .alt))
    #expect(try KeyNames.chord("altgr+KEY_E") == [UInt16(KEY_RIGHTALT), UInt16(KEY_E)])
    #expect(try KeyNames.shortcut("off") == nil)
  }

  @Test(arguments: [
    ("toggle_key: rightctrl+paws\n", "toggle_key: unknown key name 'paws' in 'rightctrl+paws' (\(KeyNames.grammar))"),
    ("picker: {shortcut: a+space}\n", "picker.shortcut: 'a' is not a modifier key (ctrl, alt, shift, meta, either side) in 'a+space'"),
    ("toggle_key: ctrl++\n", "toggle_key: 'ctrl++' has an empty key name (\(KeyNames.grammar))"),
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

  @Test func checkAndDoctorSayWhatTheDaemonAsRootWouldRefuseWhoeverRunsThem() throws {
    // A user's own config and match file, in a folder the user owns: good
    // for that user, refused by the daemon, which reads as root.
    let directory = "/tmp/vkbd-safety-user-\(getpid())"
    mkdir(directory, 0o755)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let base = "\(directory)/base.yml"
    let config = "\(directory)/config.yaml"
    #expect(FileManager.default.createFile(atPath: base, contents: Data("matches: [{trigger: ':espa', replace: espanso}]\n".utf8)))
    #expect(FileManager.default.createFile(atPath: config, contents: Data("snippets: [\(base)]\n".utf8)))
    for path in [directory, base, config] { chown(path, 1000, 1000) }
    let configuration = try ConfigLoader.load(path: config)
    #expect(configuration.filesOthersCouldEdit(reader: 1000).isEmpty)
    #expect(configuration.filesOthersCouldEdit().map(\.message) == [
      "is owned by uid 1000: vkbd refuses files that others could edit",
      "is owned by uid 1000: vkbd refuses files that others could edit",
    ])
    let check = try VKBDBinary.run(["check", "--config", config])
    #expect(check.status == 78)
    #expect(check.output.hasPrefix("\(config): refused by the daemon: "))
    #expect(check.error.contains("\(base):1:1: is owned by uid 1000") && check.error.contains("~/.config/espanso/match"))
    let doctor = try VKBDBinary.run(["doctor", "--config", config])
    #expect(doctor.output.contains("FAIL config         2 files the daemon refuses, first \(config):1:1: is owned by uid 1000"))
  }
}

@Suite struct DeviceFilterTests {
  @Test func anIncludeEntryMaySetGrabFalse() throws {
    let configuration = try ConfigLoader.parse(
      """
      devices:
        include:
          - AT Translated Set 2 keyboard
          - device: Logitech K400
            grab: false
          - {device: 046d:c52b, grab: true}
      """, file: "c.yaml")
    let filter = configuration.devices
    #expect(filter.include == ["AT Translated Set 2 keyboard", "046d:c52b"] && filter.readOnly == ["Logitech K400"])
    #expect(filter.readsOnly(name: "Logitech K400", vendorProduct: "046d:4024"))
    #expect(!filter.admits(name: "Logitech K400", vendorProduct: "046d:4024"))
    #expect(filter.admits(name: "AT Translated Set 2 keyboard", vendorProduct: "0001:0001"))
    // Read-only entries do not narrow include: with only them, every other keyboard is grabbed.
    let only = DeviceFilter(readOnly: ["Logitech K400"])
    #expect(only.admits(name: "AT Translated Set 2 keyboard", vendorProduct: "0001:0001"))
    // Excluded wins: not even read.
    #expect(!DeviceFilter(exclude: ["K"], readOnly: ["K"]).readsOnly(name: "K", vendorProduct: "0:0"))
  }

  @Test func keypadsAndMacroPadsAreReadMediaKeysAndPowerButtonsAreNot() {
    let keypad = Set([KEY_NUMLOCK, KEY_KP1, KEY_KP2, KEY_KPENTER, KEY_KPPLUS])
    let macroPad = Set([KEY_F13, KEY_F14, KEY_LEFTCTRL, KEY_C, KEY_V])  // sends Ctrl+C and Ctrl+V
    let presenter = Set([KEY_PAGEUP, KEY_PAGEDOWN, KEY_B])
    let media = Set([KEY_VOLUMEUP, KEY_VOLUMEDOWN, KEY_MUTE, KEY_PLAYPAUSE, KEY_BRIGHTNESSUP])
    let power = Set([KEY_POWER, KEY_SLEEP])
    for (keys, types) in [(keypad, true), (macroPad, true), (presenter, true), (media, false), (power, false)] {
      #expect(EvdevDevice.typesKeys(hasKey: keys.contains) == types, "\(keys.sorted())")
      #expect(!EvdevDevice.isKeyboard(hasKey: keys.contains))
    }
  }

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
