import ArgumentParser
import Glibc
import KeyboardEngine

extension VKBD {
  /// `vkbd check`: validates a config and its snippet files, running nothing.
  struct Check: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "check",
      abstract: "Check a config file and every snippet file it names.",
      discussion: """
        Reads the config (by default \(ConfigLoader.defaultPath), or the embedded default \
        when that file does not exist), every match file it names and every file those \
        import, and compiles the layout. Prints every problem as file:line:column, then a \
        summary with the count of each kind of problem. Exits 0 when nothing was an \
        error, 78 when something was. Errors in the config file itself refuse it whole; \
        an error in a match file leaves out that match (a file that is not YAML, that \
        file), and the rest loads. A file someone other than root could edit (owned by \
        another user, or writable by others) is an error: the daemon, which runs as root, \
        refuses it whoever runs the check. Your own espanso files ($XDG_CONFIG_HOME/espanso, \
        else ~/.config/espanso: match/ and config/) are read as your session agent sends them \
        to the daemon and checked with the rest; --no-user leaves them out, --no-system the \
        config's own snippets. Warnings (matches skipped because vkbd does not \
        support their kind, keys ignored) do not fail the check. A trigger that several \
        matches share is no mistake: typing it opens the picker on them, as espanso's menu does.
        """
    )

    @Option(name: .long, help: ArgumentHelp("Check FILE instead of \(ConfigLoader.defaultPath).", valueName: "file"))
    var config: String?
    @OptionGroup var user: UserFilesOptions

    func run() throws {
      let configuration = try ConfigLoader.loadReporting(
        path: config, fallback: .daemonFile, joining: user, command: "check")
      let names: LayoutNames
      do {
        names = try configuration.makeLayout().names
      } catch {
        printError("\(configuration.source): \(error)")
        throw SysExit.config
      }
      let matcher = SnippetMatcher(configuration.snippets)
      let warnings = configuration.warnings
      // What the daemon, reading as root, would refuse, whoever checks.
      let refused = configuration.filesOthersCouldEdit()
      for problem in refused { printError(problem.description) }
      if !refused.isEmpty { printError("  → \(Configuration.othersCouldEditFix)") }
      let errors = configuration.snippetProblems + refused
      let files = configuration.snippetFiles.count + configuration.userFiles.count
      let regexes = configuration.snippets.indices.count { configuration.snippets.flags(at: $0).contains(.regex) }
      let shared = matcher.sharedTriggerCount
      print(
        "\(configuration.source): \(!refused.isEmpty ? "refused by the daemon" : errors.isEmpty ? "good" : "loaded in part"): "
          + "layout \(names), "
          + "\(plural(configuration.snippets.count, "snippet"))\(regexes > 0 ? " (\(regexes) regex)" : ""),"
          + " \(plural(files, "match file"))"
          + (configuration.userFiles.isEmpty ? "" : " (\(configuration.userFiles.count) of them yours)")
          + (shared > 0 ? ", \(plural(shared, "trigger")) shared (offered in the picker)" : ""))
      if !errors.isEmpty { print(Self.summary(errors, noun: "error")) }
      if !warnings.isEmpty { print(Self.summary(warnings, noun: "warning")) }
      if !errors.isEmpty { throw SysExit.config }
    }

    /// `3 errors: 2 invalid match, 1 YAML syntax`: the count of each kind,
    /// most first.
    static func summary(_ problems: [ConfigProblem], noun: String) -> String {
      var counts: [ConfigProblem.Kind: Int] = [:]
      for problem in problems { counts[problem.kind, default: 0] += 1 }
      let kinds = ConfigProblem.Kind.allCases.filter { counts[$0] != nil }.sorted { counts[$0]! > counts[$1]! }
      let parts = kinds.map { "\(counts[$0]!) \($0.rawValue)" }
      return "\(plural(problems.count, noun)): \(parts.joined(separator: ", "))"
    }
  }
}
