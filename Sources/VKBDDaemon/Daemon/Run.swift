import ArgumentParser
import Glibc
import LinuxSystem
import LogOptions
import Logging

extension VKBD {
  /// `vkbd run`: the daemon, in the foreground.
  struct Run: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "run",
      abstract: "Run the daemon: grab the keyboards and type through the engine.",
      discussion: """
        Grabs every keyboard (and those plugged in later), runs their key events through \
        the engine and types the result on the uinput device "vkbd virtual keyboard". \
        Needs root (or access to /dev/input and /dev/uinput). Logs to standard error, \
        never typed text. Without --config it reads \(ConfigLoader.defaultPath), or runs \
        on the embedded default when that file does not exist.

        SIGNALS: SIGTERM and SIGINT release every key and exit 0; SIGHUP reloads the \
        config (on any problem the old one keeps running). Holding Backspace, Escape \
        and Enter together releases every key and exits \(Daemon.panicStatus).
        """
    )

    @Option(name: .long, help: ArgumentHelp("Read FILE instead of \(ConfigLoader.defaultPath).", valueName: "file"))
    var config: String?

    @OptionGroup var log: LogOptions

    func run() throws {
      Heap.mapBlocks(over: 256 << 10)  // a reload's old engine gives its memory back as it goes
      Heap.forbidHugePages()  // no 2 MiB page cleared in a key's turn
      let logger = log.bootstrap(label: "vkbd")
      let configuration = try ConfigLoader.loadReporting(path: config, fallback: .daemonFile)
      let unsafe = configuration.filesOthersCouldEdit(reader: geteuid())
      guard unsafe.isEmpty else {
        for problem in unsafe { printError(problem.description) }
        throw SysExit.config
      }
      let status: Int32
      do {
        let daemon = try Daemon(configuration: configuration, configPath: config, logger: logger)
        status = daemon.run()
      } catch {
        throw Self.exit(for: error)
      }
      if status != 0 { throw ExitCode(status) }
    }

    /// Prints why the daemon could not start and picks the exit status.
    private static func exit(for error: SystemError) -> ExitCode {
      printError(error.description)
      if error.subject == "/dev/uinput"
        && [.noSuchFileOrDirectory, .operationNotSupportedByDevice, .noSuchAddressOrDevice].contains(error.errno)
      {
        printError("the kernel has no uinput device: load the module with `modprobe uinput`")
        return SysExit.unavailable
      }
      switch error.errno {
      case .permissionDenied, .notPermitted:
        printError("permission denied: run vkbd as root")
        return SysExit.noPermission
      case .invalidArgument where error.operation == "compile keymap":
        return SysExit.config
      default:
        return SysExit.unavailable
      }
    }
  }
}
