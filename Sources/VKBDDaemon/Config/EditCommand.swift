import ArgumentParser
import Glibc
import LinuxSystem
import SessionWork

extension VKBD {
  /// `vkbd edit`: a match file of the user's own in their editor, then
  /// checked as the daemon will load it.
  struct Edit: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "edit",
      abstract: "Edit one of your match files (match/base.yml by default) in your editor, then check them.",
      discussion: """
        Opens a file of your espanso directory ($XDG_CONFIG_HOME/espanso, else \
        ~/.config/espanso) in $VISUAL, else $EDITOR, else Debian's editor (sensible-editor): \
        without NAME match/base.yml, with config config/default.yml, else match/NAME.yml. The \
        directory and the file are made if missing. When the editor ends, your files are \
        checked as the daemon will load them (as vkbd check does), and your session agent \
        sends them to the daemon on its own: no reload is needed. Exits 69 when no editor \
        is found, 78 when your files have errors, and with the editor's status when it fails.
        """)
    @Argument(help: "config, or a match file's name without .yml (default: base).")
    var name = "base"

    /// The file `name` stands for under `directory`.
    static func file(_ name: String, in directory: String) -> String? {
      if name == "config" { return directory + "/config/default.yml" }
      guard !name.isEmpty, !name.hasPrefix("."), !name.contains("/") else { return nil }
      return directory + "/match/" + (name.hasSuffix(".yml") || name.hasSuffix(".yaml") ? name : name + ".yml")
    }

    /// The editor's command: $VISUAL, $EDITOR, else Debian's
    /// `sensible-editor` when it is on PATH.
    static func editor(environment: (String) -> String? = { getenv($0).map { String(cString: $0) } }) -> String? {
      for name in ["VISUAL", "EDITOR"] {
        if let command = environment(name), !command.allSatisfy(\.isWhitespace) { return command }
      }
      let path = environment("PATH") ?? "/usr/bin:/bin"
      for directory in path.split(separator: ":") where access("\(directory)/sensible-editor", X_OK) == 0 {
        return "\(directory)/sensible-editor"
      }
      return nil
    }

    func validate() throws {
      guard Self.file(name, in: "") != nil else {
        throw ValidationError("'\(name)' is not a match file's name: config, or a name without '/'")
      }
    }

    func run() throws {
      let directory = Programs.espansoDirectory
      let file = Self.file(name, in: directory)!
      warnUnderSudo("edit", on: directory)
      guard let editor = Self.editor() else {
        printError("no editor: set VISUAL or EDITOR (export EDITOR=nano), or install one (apt install nano)")
        throw SysExit.unavailable
      }
      do {
        try Files.makeDirectories(MatchPaths.directory(of: file), mode: 0o755)
        if access(file, F_OK) != 0 {
          let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
          guard fd >= 0 else { throw SystemError("create", file) }
          let text = name == "config" ? "" : "matches:\n"
          _ = text.withCString { write(fd, $0, strlen($0)) }
          close(fd)
        }
      } catch {
        printError("\(error)")
        throw SysExit.cannotCreate
      }
      // The editor's command may carry arguments (code --wait): the shell
      // splits it, the file goes as one argument.
      let status = try Self.runInForeground(["/bin/sh", "-c", editor + " \"$1\"", "sh", file])
      guard status == 0 else {
        printError("the editor (\(editor)) ended with status \(status); not checked")
        throw ExitCode(status)
      }
      let (user, errors, warnings) = UserSnippets.read(directory: directory)
      for problem in errors { printError(problem.description) }
      for warning in warnings { printError("warning: \(warning)") }
      print(
        "\(directory): \(errors.isEmpty ? "good" : "loaded in part"): \(plural(user.snippets.count, "snippet")), "
          + "\(plural(user.files.count, "match file")); your session agent sends them to the daemon")
      if !errors.isEmpty { throw SysExit.config }
    }

    /// Runs `arguments` on this terminal and waits: its exit status (128
    /// and the signal when a signal ended it).
    static func runInForeground(_ arguments: [String]) throws -> Int32 {
      var pid: pid_t = 0
      let argv = arguments.map { strdup($0) } + [nil]
      defer { for argument in argv { free(argument) } }
      let started = posix_spawn(&pid, arguments[0], nil, nil, argv, environ)
      guard started == 0 else {
        printError("\(SystemError("posix_spawn", arguments[0], errno: .init(rawValue: started)))")
        throw SysExit.unavailable
      }
      let status = waitForChild(pid)?.status ?? 0
      let signal = status & 0x7f
      return signal == 0 ? (status >> 8) & 0xff : 128 + signal
    }
  }
}
