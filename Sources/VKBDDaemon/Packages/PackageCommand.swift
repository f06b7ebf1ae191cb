import ArgumentParser
import Glibc
import LinuxSystem

extension VKBD {
  /// `vkbd package`: espanso hub packages, installed where espanso keeps them.
  struct Package: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "package",
      abstract: "Install, update, remove and list espanso hub packages (run as yourself).",
      discussion: """
        Packages go where espanso keeps them, $XDG_CONFIG_HOME/espanso/match/packages/NAME \
        (~/.config/espanso/…), so both tools share one set; your session agent loads a package \
        as soon as it is there. Each archive is checked against the SHA-256 the hub gives and \
        unpacked and loaded aside first: a package whose match files do not load is not \
        installed, and nothing is ever installed in part. Downloads and archives are handled \
        by vkbd-fetch, run as you; the daemon never touches the network.
        """,
      subcommands: [Install.self, Update.self, Remove.self, List.self])
  }

  /// Where the hub is and how long to wait for it.
  struct HubOptions: ParsableArguments {
    @Option(name: .long, help: ArgumentHelp("The hub's package index (default: espanso's hub).", valueName: "url"))
    var hub = HubIndex.espansoHub

    @Option(
      name: .long,
      help: ArgumentHelp("Seconds a download may take to start, or stall, before it is given up.", valueName: "seconds")
    )
    var timeout = 30

    @Flag(name: .long, help: "Fetch the index again even if the one fetched within the hour is kept.")
    var refresh = false

    func validate() throws {
      guard hub.hasPrefix("http://") || hub.hasPrefix("https://") else {
        throw ValidationError("--hub must be an http:// or https:// URL")
      }
      guard (1...3600).contains(timeout) else { throw ValidationError("--timeout must be 1 to 3600 seconds") }
    }

    var client: Hub { Hub(url: hub, timeout: timeout, refresh: refresh) }
  }

  static func checkPackageName(_ name: String) throws {
    guard PackageStore.isValidName(name) else {
      throw ValidationError("'\(name)' is no package name: lowercase letters, digits and '-' only")
    }
  }

  /// Prints a failure and its problems; the exit status.
  static func failed(_ what: String, _ error: PackageError) -> ExitCode {
    for problem in error.problems { printError(problem) }
    printError("\(what): \(error)")
    return ExitCode(error.status.rawValue)
  }

  struct Install: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "install",
      abstract: "Install a package from the hub, or from a git repository (its highest version unless one is named).")
    @Argument(help: "The package's name, as the hub lists it (or its _manifest.yml names it).") var name: String
    @Option(name: .long, help: ArgumentHelp("The version to install.", valueName: "version")) var version: String?
    @Flag(name: .long, help: "Install it again if it is already installed.") var force = false
    @Option(
      name: .long,
      help: ArgumentHelp(
        "Clone the package from the git repository URL (https://, http:// or file://) instead.", valueName: "url"))
    var git: String?
    @Option(name: .long, help: ArgumentHelp("With --git, clone BRANCH.", valueName: "branch"))
    var gitBranch: String?
    @Flag(name: .long, help: "Accepted as espanso requires it with --git; vkbd asks nothing more than --git.")
    var external = false
    @OptionGroup var hub: HubOptions

    func validate() throws {
      try VKBD.checkPackageName(name)
      if let git, let refusal = GitPackage.refusal(of: git) { throw ValidationError(refusal) }
      if git == nil && (gitBranch != nil || external) { throw ValidationError("--git-branch and --external go with --git") }
      if let gitBranch, gitBranch.isEmpty || gitBranch.hasPrefix("-") || gitBranch.contains(where: \.isWhitespace) {
        throw ValidationError("'\(gitBranch)' is no branch name")
      }
    }

    func run() throws {
      let store = PackageStore.ofTheUser()
      if !force, let installed = store.installed().packages.first(where: { $0.name == name }) {
        printError(
          "\(name) \(installed.version ?? "") is already installed; vkbd package update \(name) updates it, "
            + "--force installs it again")
        throw ExitCode.failure
      }
      do {
        let done: PackageStore.Installation
        if let git {
          let repository = GitPackage(url: git, branch: gitBranch, timeout: hub.timeout)
          switch try repository.install(name, version: version, into: store) {
          case .installed(let installation): done = installation
          case .alreadyThere: return  // only asked for with `unless`
          }
        } else {
          let client = hub.client
          guard let entry = try client.index().entry(name, version: version) else {
            printError("the hub at \(hub.hub) has no package \(name)\(version.map { " of version \($0)" } ?? "")")
            throw ExitCode.failure
          }
          done = try client.install(entry, into: store)
        }
        for warning in done.warnings { printError("warning: \(warning)") }
        print(
          "installed \(name) \(done.manifest.version) (\(plural(done.snippets, "snippet"))) "
            + "in \(store.directory)/\(name)")
      } catch let error as PackageError {
        throw VKBD.failed("\(name) was not installed", error)
      }
    }
  }

  struct Update: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "update",
      abstract: "Update one package, or every package installed from a hub, to its highest version.")
    @Argument(help: "The package to update; none: every one.") var name: String?
    @OptionGroup var hub: HubOptions

    func validate() throws { if let name { try VKBD.checkPackageName(name) } }

    func run() throws {
      let store = PackageStore.ofTheUser()
      let installed = store.installed().packages.filter { name == nil || $0.name == name }
      guard !installed.isEmpty else {
        if let name {
          printError("\(name) is not installed")
          throw ExitCode.failure
        }
        print("no package is installed")
        return
      }
      let client = hub.client
      // The hub's index, fetched once and only for a hub's package.
      var index: Result<HubIndex, PackageError>?
      var failures = 0
      for package in installed {
        let done: PackageStore.Installation
        do {
          if package.source == "git" {
            let record = (try? Files.readText(package.path + "/_pkgsource.yml", limit: 4096)) ?? ""
            guard let repository = GitPackage.recorded(in: record, timeout: hub.timeout) else {
              print("\(package.name): its _pkgsource.yml names no repository vkbd clones: left as it is")
              continue
            }
            // Cloned to learn its version: installed only when it differs.
            switch try repository.install(package.name, version: nil, into: store, unless: package.version) {
            case .installed(let installation):
              done = installation
            case .alreadyThere(let version):
              print("\(package.name): \(version) is the newest")
              continue
            }
          } else if package.source == "hub" || package.source == "legacy" {
            if index == nil { index = Result { () throws(PackageError) in try client.index() } }
            guard let entry = try index!.get().entry(package.name, version: nil) else {
              print("\(package.name): the hub has it no more: left as it is")
              continue
            }
            guard entry.version != package.version else {
              print("\(package.name): \(entry.version) is the newest")
              continue
            }
            done = try client.install(entry, into: store)
          } else {
            print("\(package.name): installed from \(package.source), not from a hub or git: left as it is")
            continue
          }
        } catch {
          _ = VKBD.failed("\(package.name) was not updated (\(package.version ?? "?") stays)", error)
          failures += 1
          continue
        }
        for warning in done.warnings { printError("warning: \(warning)") }
        print("\(package.name): \(package.version ?? "?") → \(done.manifest.version)")
      }
      if failures > 0 { throw ExitCode(PackageError.Status.failure.rawValue) }
    }
  }

  struct Remove: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "remove", abstract: "Remove an installed package.")
    @Argument(help: "The package's name.") var name: String

    func validate() throws { try VKBD.checkPackageName(name) }

    func run() throws {
      let store = PackageStore.ofTheUser()
      do {
        guard try store.remove(name) else {
          printError("\(name) is not installed (in \(store.directory))")
          throw ExitCode.failure
        }
      } catch let error as PackageError {
        throw VKBD.failed("\(name) was not removed", error)
      }
      print("removed \(name)")
    }
  }

  struct List: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "list", abstract: "List the packages installed: name, version, where from.")
    @OptionGroup var output: JSONOption

    func run() throws {
      let store = PackageStore.ofTheUser()
      let (packages, problems) = store.installed()
      for problem in problems { printError(problem) }
      output.print(packages) {
        packages.isEmpty
          ? "no package is installed in \(store.directory)\n"
          : packages.map { "\($0.name)  \($0.version ?? "-")  \($0.source)\($0.title.map { "  \($0)" } ?? "")\n" }
            .joined()
      }
    }
  }
}
