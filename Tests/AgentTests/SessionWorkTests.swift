import AgentProtocol
import Foundation
import Glibc
import LinuxSystem
import SessionWork
import Testing

/// What the session agent works out for the daemon, as the user: programs
/// bounded in time and output, dialogs and the clipboard through the
/// programs a desktop has (stand-ins here, on PATH).
@Suite(.serialized) struct SessionWorkTests {
  /// One worker for the suite: a paste keeps the clipboard until the
  /// restore that follows it.
  nonisolated(unsafe) static let worker = try! SessionWorker()

  static func perform(_ request: VariableRequest) -> SessionWorker.Answer { worker.performNow(request) }

  static func request(_ kind: VariableRequest.Kind, _ arguments: [String], values: [String] = []) -> VariableRequest {
    var request = VariableRequest(id: 1, kind: kind)
    request.arguments = arguments
    request.values = values
    return request
  }

  @Test func aShellCommandSeesTheVariablesBeforeIt() {
    var shell = Self.request(.shell, [#"printf '  %s  ' "$ESPANSO_NAME""#])
    shell.environment = ["ESPANSO_NAME": "Ada"]
    #expect(Self.perform(shell) == .success(VariableValueText("Ada")))
    shell.trim = false
    #expect(Self.perform(shell) == .success(VariableValueText("  Ada  ")))
  }

  @Test(arguments: [
    (["exit 3"], "bash exited with status 3"),
    (["kill -9 $$"], "bash was killed by signal 9"),
  ])
  func aFailingCommandGivesNoValueAndSaysWhyWithoutItsOutput(arguments: [String], reason: String) {
    #expect(Self.perform(Self.request(.shell, arguments)) == .failure(AgentProtocolError(reason)))
  }

  @Test func aScriptThatWritesToStandardErrorFails() {
    let script = Self.request(.script, ["sh", "-c", "echo out; echo secret >&2"])
    #expect(Self.perform(script) == .failure(AgentProtocolError("sh wrote to its standard error")))
  }

  @Test func aProgramIsBoundedInTimeAndOutput() {
    #expect(ProgramRun.run(["sleep", "5"], timeoutMicroseconds: 200_000) == .failure(.timedOut))
    #expect(
      ProgramRun.run(["head", "-c", "3000000", "/dev/zero"], timeoutMicroseconds: 10_000_000)
        == .failure(.outputTooLong(1 << 20)))
  }

  @Test func aProgramThatIgnoresSIGTERMIsKilledAfterTheGrace() throws {
    let loop = try EventLoop()
    let pidFile = "/tmp/vkbd-stubborn-\(getpid())"
    defer { unlink(pidFile) }
    var result: Result<ProgramRun.Output, ProgramRun.Failure>?
    let started = monotonicMicroseconds()
    ProgramRun.start(
      ["sh", "-c", "trap '' TERM; echo $$ > \(pidFile); while :; do sleep 1; done"],
      timeoutMicroseconds: 300_000, on: loop
    ) { result = $0 }
    while result == nil { try loop.runOnce() }
    #expect(result == .failure(.timedOut))
    let pid = try #require(
      Int32(String(contentsOfFile: pidFile, encoding: .utf8).trimmingCharacters(in: .whitespacesAndNewlines)))
    // The loop goes on; the shell, deaf to SIGTERM, is killed and reaped.
    while kill(pid, 0) == 0 && monotonicMicroseconds() - started < 10_000_000 {
      try loop.runOnce(timeoutMilliseconds: 50)
    }
    #expect(kill(pid, 0) == -1 && errno == ESRCH, "reaped")
    #expect(monotonicMicroseconds() - started >= 300_000 + ProgramRun.killGrace)
  }

  /// Runs `body` with stand-in programs first on PATH and WAYLAND_DISPLAY
  /// set, in a directory that is removed after.
  static func withStandIns(_ programs: [String: String], _ body: (String) throws -> Void) throws {
    let directory = "/tmp/vkbd-standins-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for (name, script) in programs {
      let path = directory + "/" + name
      try ("#!/bin/sh\n" + script.replacing("$DIR", with: directory) + "\n").write(
        toFile: path, atomically: true, encoding: .utf8)
      chmod(path, 0o755)
    }
    let path = String(cString: getenv("PATH"))
    setenv("PATH", directory + ":" + path, 1)
    setenv("WAYLAND_DISPLAY", "stand-in", 1)
    defer {
      setenv("PATH", path, 1)
      unsetenv("WAYLAND_DISPLAY")
    }
    try body(directory)
  }

  @Test func aChoiceTypesTheIdOfWhatTheUserPicked() throws {
    try Self.withStandIns(["zenity": "echo Hi"]) { _ in
      let choice = Self.request(.choice, ["Hello", "Hi"], values: ["hello!", "hi!"])
      #expect(Self.perform(choice) == .success(VariableValueText("hi!")))
    }
  }

  @Test(arguments: [
    ("kill -9 $$", "zenity was killed by signal 9"),
    ("exit 1", "zenity exited with status 1"),
  ])
  func aDialogThatVanishesOrIsCancelledGivesNoValue(script: String, reason: String) throws {
    try Self.withStandIns(["zenity": script]) { _ in
      var form = Self.request(.form, ["name"], values: [""])
      form.layout = "[[name]]"
      #expect(Self.perform(form) == .failure(AgentProtocolError(reason)))
    }
  }

  @Test func aFormGivesEachFieldItsEntry() throws {
    try Self.withStandIns(["zenity": #"printf 'Ada\001Hello\n'"#]) { _ in
      var form = Self.request(.form, ["name", "greeting"], values: ["", ""])
      form.layout = "Dear [[name]], [[greeting]]"
      #expect(
        Self.perform(form) == .success(VariableValueText("", fields: ["name": "Ada", "greeting": "Hello"])))
    }
  }

  /// wl-paste and wl-copy on a file; wl-copy takes `copying` first.
  static func clipboard(copying: String = "0") -> [String: String] {
    [
      "wl-paste": #"cat "$DIR/clip" 2>/dev/null || exit 1"#,
      "wl-copy": #"sleep \#(copying); if [ "$1" = --clear ]; then rm -f "$DIR/clip"; else cat > "$DIR/clip"; fi"#,
    ]
  }

  @Test func aPasteKeepsTheClipboardAndGivesItBack() throws {
    try Self.withStandIns(Self.clipboard()) { directory in
      try "what the user copied".write(toFile: directory + "/clip", atomically: true, encoding: .utf8)
      #expect(Self.perform(Self.request(.paste, ["a long text"])) == .success(VariableValueText("")))
      #expect(try String(contentsOfFile: directory + "/clip", encoding: .utf8) == "a long text")
      #expect(Self.perform(Self.request(.restoreClipboard, [])) == .success(VariableValueText("")))
      #expect(try String(contentsOfFile: directory + "/clip", encoding: .utf8) == "what the user copied")
      // A clipboard that held nothing is empty again after.
      try FileManager.default.removeItem(atPath: directory + "/clip")
      _ = Self.perform(Self.request(.paste, ["another"]))
      _ = Self.perform(Self.request(.restoreClipboard, []))
      #expect(!FileManager.default.fileExists(atPath: directory + "/clip"))
    }
  }

  @Test func aRestoreWaitsForThePasteUnderWayAndWithoutAPasteChangesNothing() throws {
    try Self.withStandIns(Self.clipboard(copying: "0.8")) { directory in
      let clip = directory + "/clip"
      try "what the user copied".write(toFile: clip, atomically: true, encoding: .utf8)
      #expect(Self.perform(Self.request(.restoreClipboard, [])) == .success(VariableValueText("")))
      #expect(try String(contentsOfFile: clip, encoding: .utf8) == "what the user copied")
      // The daemon stopped waiting for a slow clipboard and asks for it
      // back while the paste still goes on.
      var pasted: SessionWorker.Answer?
      Self.worker.perform(Self.request(.paste, ["a long text"])) { pasted = $0 }
      #expect(Self.perform(Self.request(.restoreClipboard, [])) == .success(VariableValueText("")))
      #expect(pasted == .success(VariableValueText("")))
      #expect(try String(contentsOfFile: clip, encoding: .utf8) == "what the user copied")
    }
  }
}
