import ArgumentParser
import Glibc
import LinuxSystem
import SystemPackage

extension VKBD {
  /// `vkbd config`: where the configuration is, and the file a user starts from.
  struct Config: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "config",
      abstract: "Say where the configuration is; create it, or print the default to start from.",
      discussion: """
        Without an option, says which file the daemon reads and whether it is there. The daemon \
        runs on the embedded default when \(ConfigLoader.defaultPath) does not exist. To change \
        it: sudo vkbd config --init, edit \(ConfigLoader.defaultPath), then vkbd check and \
        sudo vkbd reload.
        """
    )

    @Flag(name: .long, help: "Print the embedded default configuration as YAML.")
    var printDefault = false

    @Flag(name: .customLong("init"), help: "Create \(ConfigLoader.defaultPath) from the default (as root; never overwrites).")
    var initialize = false

    @Option(name: .long, help: ArgumentHelp("With --init, create FILE instead.", valueName: "file"))
    var path: String?

    func validate() throws {
      guard !(printDefault && initialize) else { throw ValidationError("--print-default and --init exclude each other") }
      guard path == nil || initialize else { throw ValidationError("--path goes with --init") }
    }

    func run() throws {
      if printDefault {
        print(Configuration.embeddedDefaultText, terminator: "")
      } else if initialize {
        try create(path ?? ConfigLoader.defaultPath)
      } else {
        let path = ConfigLoader.defaultPath
        if access(path, F_OK) == 0 {
          print("the daemon reads \(path); check it with: vkbd check")
        } else {
          print("the daemon reads \(path), which is not there: it runs on the embedded default")
          print("create it with: sudo vkbd config --init")
        }
      }
    }

    /// Writes the default to `path`, its directory made if missing (0755),
    /// the file 0644, never over a file that is there.
    private func create(_ path: String) throws {
      let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
      if !directory.isEmpty && mkdir(directory, 0o755) != 0 && errno != EEXIST {
        printError("\(SystemError("mkdir", directory))")
        throw SysExit.cannotCreate
      }
      let fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
      guard fd >= 0 else {
        let error = SystemError("create", path)
        printError("\(error)")
        if error.errno == .fileExists { printError("it stays as it is: edit it, or remove it first") }
        if error.errno == .permissionDenied { printError("run it as root: sudo vkbd config --init") }
        throw SysExit.cannotCreate
      }
      let descriptor = FileDescriptor(rawValue: fd)
      defer { descriptor.closeQuietly() }
      let text = Array(Configuration.embeddedDefaultText.utf8)
      do {
        try text.withUnsafeBytes { try writeFully(descriptor, $0, to: path) }
      } catch {
        printError("\(error)")
        throw SysExit.cannotCreate
      }
      print("created \(path): edit it, then vkbd check and sudo vkbd reload")
    }
  }
}
