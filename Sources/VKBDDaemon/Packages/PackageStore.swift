import Glibc
import LinuxSystem
import SessionWork

/// Why a package command failed, and its exit status.
struct PackageError: Error, CustomStringConvertible {
  enum Status: Int32 {
    case failure = 1
    /// EX_DATAERR: the hub's index, archive or package is wrong.
    case dataError = 65
    /// EX_UNAVAILABLE: the hub cannot be reached, or answers an error.
    case unavailable = 69
    /// EX_CANTCREAT: the package cannot be written.
    case cannotCreate = 73
  }

  var description: String
  var status: Status
  /// Each problem of a package that does not load, as file:line:column.
  var problems: [String] = []

  init(_ description: String, status: Status = .failure, problems: [String] = []) {
    self.description = description
    self.status = status
    self.problems = problems
  }
}

/// A package's `_manifest.yml`: the five fields espanso requires.
struct PackageManifest: Equatable, Codable {
  var name: String
  var title: String
  var description: String
  var version: String
  var author: String

  /// Reads a manifest; `file` names it in the problems.
  static func parse(_ text: String, file: String) throws(PackageError) -> PackageManifest {
    var reader = YAMLReader(file: file)
    var fields: [String: String] = [:]
    let keys = ["name", "title", "description", "version", "author"]
    if let root = reader.compose(text) {
      if case .mapping(let entries) = root.content {
        for (key, value) in entries {
          guard case .scalar(let name, _) = key.content, keys.contains(name) else { continue }
          if let text = reader.text(value, key: name) { fields[name] = text }
        }
        for key in keys where fields[key] == nil {
          reader.report("_manifest.yml needs '\(key)'", at: root)
        }
      } else {
        reader.report("_manifest.yml must be a mapping of name, title, description, version and author", at: root)
      }
    }
    guard reader.problems.isEmpty, let name = fields["name"], let title = fields["title"],
      let description = fields["description"], let version = fields["version"], let author = fields["author"]
    else {
      throw PackageError(
        "the package's manifest does not load", status: .dataError,
        problems: reader.problems.map(\.description)
          + (fields.isEmpty && reader.problems.isEmpty ? ["\(file): empty"] : []))
    }
    return PackageManifest(name: name, title: title, description: description, version: version, author: author)
  }
}

/// The packages installed for this user, where espanso keeps them:
/// `$XDG_CONFIG_HOME/espanso/match/packages/NAME/`, so that both tools
/// share one set and the session agent (which watches that folder) loads
/// each at once.
struct PackageStore {
  /// espanso's folder, `~/.config/espanso`.
  let root: String
  var directory: String { root + "/match/packages" }

  init(root: String = Programs.espansoDirectory) { self.root = root }

  /// The store of the user running `vkbd package`, said so under sudo
  /// (root's is not the user's).
  static func ofTheUser() -> PackageStore {
    let store = PackageStore()
    warnUnderSudo("package", on: store.root)
    return store
  }

  /// Names as espanso's hub allows them: lowercase letters, digits and `-`.
  static func isValidName(_ name: String) -> Bool {
    !name.isEmpty && name.utf8.count <= 100
      && name.utf8.allSatisfy { ($0 >= 0x61 && $0 <= 0x7a) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2d }
  }

  /// One installed package.
  struct Installed: Equatable, Codable {
    var name: String
    /// Nil for a package without a manifest (espanso's "legacy" ones).
    var version: String?
    var title: String?
    /// `hub`, `git`, `legacy`, or `unknown`.
    var source: String
    var path: String
  }

  /// The packages installed, by name; the problems of those that do not read.
  func installed() -> (packages: [Installed], problems: [String]) {
    var packages: [Installed] = []
    var problems: [String] = []
    for name in Files.names(in: directory) ?? [] where !name.hasPrefix(".") {
      let path = directory + "/" + name
      guard Files.kind(of: path) == .directory else { continue }
      let manifestPath = path + "/_manifest.yml"
      guard let text = try? Files.readText(manifestPath) else {
        packages.append(Installed(name: name, source: "legacy", path: path))
        continue
      }
      do {
        let manifest = try PackageManifest.parse(text, file: manifestPath)
        packages.append(
          Installed(
            name: name, version: manifest.version, title: manifest.title, source: source(of: path), path: path))
      } catch {
        problems += error.problems.isEmpty ? ["\(manifestPath): \(error)"] : error.problems
      }
    }
    return (packages, problems)
  }

  /// Where an installed package came from, as espanso's `_pkgsource.yml` says.
  private func source(of path: String) -> String {
    guard let text = try? Files.readText(path + "/_pkgsource.yml", limit: 4096) else { return "unknown" }
    if text.contains("hub") && !text.contains("git:") { return "hub" }
    return text.contains("git:") ? "git" : "unknown"
  }

  /// What espanso writes in `_pkgsource.yml` for a hub package.
  static let hubSource = "---\nhub\n"

  /// Makes a folder to unpack into, in espanso's folder (so that the
  /// package moves into place by a rename) but outside `match/`, where
  /// neither tool loads it while it is checked.
  func makeStaging() throws(PackageError) -> String {
    do {
      try Files.makeDirectories(directory)
    } catch {
      throw PackageError("cannot make \(directory): \(error)", status: .cannotCreate)
    }
    var template = Array((root + "/.vkbd-staging-XXXXXX").utf8CString)
    guard let made = mkdtemp(&template) else {
      throw PackageError("cannot make a folder in \(root): \(String(cString: strerror(errno)))", status: .cannotCreate)
    }
    return String(cString: made)
  }

  /// Puts the checked package at `staged` in place as `name`: a new one by
  /// a rename, a replaced one by swapping it with the old one in one step
  /// (the old one is then at `staged`, for the caller to remove).
  func place(_ staged: String, as name: String) throws(PackageError) {
    let target = directory + "/" + name
    do {
      if Files.kind(of: target) != nil {
        try Files.exchange(staged, target)
      } else if rename(staged, target) != 0 {
        throw SystemError("rename", target)
      }
    } catch {
      throw PackageError("cannot install \(target): \(error)", status: .cannotCreate)
    }
  }

  /// What an installation did.
  struct Installation {
    var manifest: PackageManifest
    var snippets: Int
    var warnings: [String]
  }

  /// Checks the package unpacked at `root` (in a staging folder of this
  /// store) and only then puts it in place as `name`, replacing what is
  /// there: its `_manifest.yml` must name it `name` (and `version`, when
  /// `expected` gives one), it must have a `package.yml`, and its match
  /// files must load without an error. `source` goes in `_pkgsource.yml`,
  /// as espanso records where a package came from; `expected` says what
  /// named the package (the hub's index, the repository).
  func install(
    _ root: String, as name: String, version: String?, from expected: String, source: String
  ) throws(PackageError) -> Installation {
    let shown = { (text: String) in text.replacing(root + "/", with: name + "/") }
    let manifest: PackageManifest
    do {
      manifest = try PackageManifest.parse(try Files.readText(root + "/_manifest.yml"), file: root + "/_manifest.yml")
    } catch let error as PackageError {
      throw PackageError(error.description, status: error.status, problems: error.problems.map(shown))
    } catch {
      throw PackageError("cannot read its _manifest.yml: \(error)", status: .dataError)
    }
    guard manifest.name == name, version == nil || manifest.version == version else {
      throw PackageError(
        "the package is \(manifest.name) \(manifest.version), \(expected) says \(name)\(version.map { " \($0)" } ?? "")",
        status: .dataError)
    }
    guard Files.kind(of: root + "/package.yml") != nil else {
      throw PackageError("the package has no package.yml", status: .dataError)
    }
    var loader = SnippetLoader()
    loader.load(directory: root)
    loader.finish()
    guard loader.problems.isEmpty else {
      throw PackageError(
        "its match files do not load", status: .dataError, problems: loader.problems.map { shown($0.description) })
    }
    do {
      try Files.writeAtomically(source, to: root + "/_pkgsource.yml")
    } catch {
      throw PackageError("cannot write \(root)/_pkgsource.yml: \(error)", status: .cannotCreate)
    }
    chmod(root, 0o755)
    try place(root, as: name)
    return Installation(
      manifest: manifest, snippets: loader.snippets.count, warnings: loader.warnings.map { shown($0.description) })
  }

  /// Removes the package `name`; false when it is not installed.
  func remove(_ name: String) throws(PackageError) -> Bool {
    let target = directory + "/" + name
    guard Files.kind(of: target) == .directory else { return false }
    // Moved out of match/ first: the agent sees it go in one change.
    let staging = try makeStaging()
    do {
      guard rename(target, staging + "/" + name) == 0 else { throw SystemError("rename", target) }
      try Files.removeTree(staging)
    } catch {
      try? Files.removeTree(staging)
      throw PackageError("cannot remove \(target): \(error)", status: .cannotCreate)
    }
    return true
  }
}
