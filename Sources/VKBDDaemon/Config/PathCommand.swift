import ArgumentParser
import Glibc
import LinuxSystem
import SessionWork

extension VKBD {
  /// `vkbd path`: where vkbd's files are, as espanso's `path` says where
  /// its are.
  struct Path: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "path",
      abstract: "Print where vkbd's files are: the config, your espanso files, your learned words.",
      discussion: """
        Without NAME, prints each place on a line: config (the file the daemon reads), espanso \
        (your espanso directory, which your session agent sends the daemon), match (your \
        match files), packages (the hub packages vkbd package installs), words (your learned \
        words) and socket (the daemon's control socket). With NAME prints that path alone, \
        for a script: cd "$(vkbd path match)".
        """)
    @Argument(help: "One of config, espanso, match, packages, words, socket.")
    var name: String?

    /// Each place, in order.
    static func places() -> [(name: String, path: String)] {
      let espanso = Programs.espansoDirectory
      return [
        ("config", ConfigLoader.defaultPath), ("espanso", espanso), ("match", espanso + "/match"),
        ("packages", PackageStore(root: espanso).directory), ("words", LearnedWordsFile.userPath),
        ("socket", Configuration().controlSocket),
      ]
    }

    func validate() throws {
      if let name, !Self.places().contains(where: { $0.name == name }) {
        throw ValidationError(
          "'\(name)' is not a place: one of \(Self.places().map(\.name).joined(separator: ", "))")
      }
    }

    func run() throws {
      let places = Self.places()
      if let name {
        print(places.first { $0.name == name }!.path)
        return
      }
      for (name, path) in places {
        let there = access(path, F_OK) == 0
        let note =
          switch (name, there) {
          case ("config", false): " (not there: the daemon runs on the embedded default)"
          case ("socket", false): " (not there: the daemon is not running)"
          case (_, false): " (not there yet)"
          default: ""
          }
        print(name.padding(9) + path + note)
      }
    }
  }
}
