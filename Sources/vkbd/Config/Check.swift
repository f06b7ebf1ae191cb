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
        import, and compiles the layout. Prints a one-line summary and exits 0 when all \
        is well; prints every problem as file:line:column and exits 78 when not. \
        Warnings (matches skipped because vkbd does not support their kind, triggers \
        defined twice) go to standard error and do not fail the check.
        """
    )

    @Option(name: .long, help: ArgumentHelp("Check FILE instead of \(ConfigLoader.defaultPath).", valueName: "file"))
    var config: String?

    func run() throws {
      let configuration = try ConfigLoader.loadReporting(path: config, fallback: .daemonFile)
      let names: LayoutNames
      do {
        names = try configuration.makeLayout().names
      } catch {
        printError("\(configuration.source): \(error)")
        throw SysExit.config
      }
      let matcher = SnippetMatcher(configuration.snippets)
      for shadowed in matcher.shadowed {
        printError("warning: \(shadowed.lost): trigger '\(shadowed.trigger)' is already defined at \(shadowed.kept)")
      }
      let warnings = configuration.warnings.count + matcher.shadowed.count
      let files = configuration.snippetFiles.count
      print(
        "\(configuration.source): good: layout \(names), \(configuration.snippets.count) snippets,"
          + " \(files) match file\(files == 1 ? "" : "s")"
          + (warnings > 0 ? ", \(warnings) warning\(warnings == 1 ? "" : "s")" : ""))
    }
  }
}
