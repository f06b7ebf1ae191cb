import AgentProtocol

#if canImport(Glibc)
  import Glibc
#endif

/// Works out a snippet variable in the user's session: what the session
/// agent does for the daemon, and `vkbd simulate` for itself.
public enum SessionWork {
  /// The longest a program may run, whatever the daemon waits.
  public static let programTimeoutMilliseconds = 10_000

  /// The value `request` asks for, or why there is none.
  public static func perform(_ request: VariableRequest) -> Result<VariableValueText, AgentProtocolError> {
    do {
      let value = try value(for: request)
      guard value.text.unicodeScalars.count <= AgentProtocol.maximumValue else {
        return .failure(AgentProtocolError("the value is longer than \(AgentProtocol.maximumValue) characters"))
      }
      return .success(value)
    } catch {
      return .failure(AgentProtocolError(error.description))
    }
  }

  private static func value(for request: VariableRequest) throws(ProgramRun.Failure) -> VariableValueText {
    let environment = request.environment + [("CONFIG", espansoDirectory)]
    func output(_ arguments: [String], strict: Bool = false) throws(ProgramRun.Failure) -> String {
      let text = try ProgramRun.run(
        arguments, environment: environment, timeoutMilliseconds: programTimeoutMilliseconds,
        failOnStandardError: strict)
      return request.trim ? ProgramRun.trimmed(text) : text
    }
    switch request.kind {
    case .shell:
      guard let command = request.arguments.first else {
        throw ProgramRun.Failure("a shell variable without a command")
      }
      return VariableValueText(try output(ProgramRun.shellArguments(request.shell, command: command)))
    case .script:
      let home = environmentVariable("HOME", or: "/")
      let arguments = request.arguments.map {
        ProgramRun.expandingPlaceholders($0, home: home, config: espansoDirectory)
      }
      return VariableValueText(try output(arguments, strict: true))
    case .clipboard:
      let text = try ProgramRun.run(
        clipboardReader, timeoutMilliseconds: 2000)
      guard !text.isEmpty else { throw ProgramRun.Failure("the clipboard holds no text") }
      return VariableValueText(text)
    case .choice:
      guard let zenity = dialogProgram else { throw ProgramRun.Failure("no dialog program (zenity) is installed") }
      let picked = try output(
        [zenity, "--list", "--title=vkbd", "--text=Choose", "--column=Choice", "--hide-header"] + request.arguments)
      guard let index = request.arguments.firstIndex(of: picked) else { throw ProgramRun.Failure("nothing was chosen") }
      return VariableValueText(index < request.values.count ? request.values[index] : picked)
    case .paste:
      // What the clipboard held is kept (nothing, when it held no text);
      // the answer goes once the clipboard gives the new text back.
      kept = try? ProgramRun.run(clipboardReader, timeoutMilliseconds: 2000)
      let text = request.arguments.first ?? ""
      _ = try ProgramRun.run(clipboardWriter, timeoutMilliseconds: 2000, input: text, discardingOutput: true)
      for _ in 0..<50 {
        if (try? ProgramRun.run(clipboardReader, timeoutMilliseconds: 2000)) == text { return VariableValueText("") }
        usleep(20_000)
      }
      throw ProgramRun.Failure("the clipboard did not take the text")
    case .restoreClipboard:
      usleep(UInt32(restoreDelayMilliseconds * 1000))  // the application takes its paste first
      if let kept {
        _ = try ProgramRun.run(clipboardWriter, timeoutMilliseconds: 2000, input: kept, discardingOutput: true)
      } else {
        _ = try? ProgramRun.run(clipboardClearer, timeoutMilliseconds: 2000, discardingOutput: true)
      }
      kept = nil
      return VariableValueText("")
    case .form:
      guard let zenity = dialogProgram else { throw ProgramRun.Failure("no dialog program (zenity) is installed") }
      let entries = request.arguments.map { "--add-entry=\($0)" }
      let text = try ProgramRun.run(
        [zenity, "--forms", "--title=vkbd", "--text=\(request.layout ?? "")", "--separator=\u{1}"] + entries,
        timeoutMilliseconds: 10 * 60_000)
      let answers = (text.hasSuffix("\n") ? text.dropLast() : Substring(text)).split(
        separator: "\u{1}", omittingEmptySubsequences: false)
      let fields = request.arguments.enumerated().map { ($1, $0 < answers.count ? String(answers[$0]) : "") }
      return VariableValueText("", fields: fields)
    }
  }

  /// espanso's directory: `$XDG_CONFIG_HOME/espanso`, else `~/.config/espanso`.
  public static var espansoDirectory: String {
    let config = environmentVariable("XDG_CONFIG_HOME", or: "")
    return (config.isEmpty ? environmentVariable("HOME", or: "/") + "/.config" : config) + "/espanso"
  }

  /// The environment variable `name`, or `fallback` when it is not set.
  private static func environmentVariable(_ name: String, or fallback: String) -> String {
    getenv(name).map { String(cString: $0) } ?? fallback
  }

  /// Whether the session is Wayland's (else X11's): which clipboard tools.
  private static var isWayland: Bool { getenv("WAYLAND_DISPLAY") != nil }

  /// What the clipboard held before a paste, until it is put back.
  nonisolated(unsafe) static var kept: String?
  /// How long after the paste chord the clipboard gets its content back
  /// (espanso waits 300 ms; a slow application needs longer).
  public static let restoreDelayMilliseconds = 500

  /// Sets the clipboard's text for good (until something else does).
  static var clipboardWriter: [String] {
    isWayland
      ? ["wl-copy", "--type", "text/plain;charset=utf-8"] : ["xclip", "-selection", "clipboard", "-i"]
  }

  static var clipboardClearer: [String] {
    isWayland
      ? ["wl-copy", "--clear"] : ["xclip", "-selection", "clipboard", "-i", "/dev/null"]
  }

  /// How the clipboard's text is read: wl-clipboard on Wayland, xclip on X11.
  static var clipboardReader: [String] {
    isWayland
      ? ["wl-paste", "--no-newline", "--type", "text"] : ["xclip", "-selection", "clipboard", "-o"]
  }

  /// zenity, when it is on PATH.
  static var dialogProgram: String? {
    let path = environmentVariable("PATH", or: "/usr/bin:/bin")
    for directory in path.split(separator: ":") where access("\(directory)/zenity", X_OK) == 0 {
      return "\(directory)/zenity"
    }
    return nil
  }
}
