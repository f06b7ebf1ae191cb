import Glibc
import KeyboardEngine

/// Reads espanso match files (and inline `matches:`) into snippets, as
/// espanso does, file by file: a file that is not YAML is reported and left
/// out, a match that is invalid or uses what vkbd does not support is
/// reported and skipped, and the rest loads. Every problem has its file:line.
struct SnippetLoader {
  /// The snippets, once ``finish()`` resolved their variables.
  private(set) var snippets: [Snippet] = []
  /// Matches read, waiting for every file's `global_vars` (they are global,
  /// as in espanso: a file may use one that a later file defines).
  private var pending: [PendingMatch] = []
  private var globals: [String: VariableDefinition] = [:]
  private var globalOrder: [String] = []
  /// The match files read, in order.
  private(set) var files: [String] = []
  /// Errors: the match (or file) they are in is left out.
  private(set) var problems: [ConfigProblem] = []
  /// What was skipped or ignored but is no mistake of the file's.
  private(set) var warnings: [ConfigProblem] = []
  /// The real paths of the files being read, innermost last (import cycles).
  private var importChain: [String] = []
  private var loaded: Set<String> = []
  private let source: any MatchFileSource

  /// False in a fuzzing build: names of files are checked, the files not read.
  nonisolated(unsafe) static var readsFiles = true

  init(source: any MatchFileSource = DiskFiles()) { self.source = source }

  // Limits, stated in vkbd.yaml(5).
  static let maximumSnippets = 100_000
  static let maximumImportDepth = 16

  /// Top-level keys of espanso's legacy format, which it ignores now.
  static let legacyFileKeys = ["name", "parent", "exclude_default_entries"]

  // MARK: - Files

  /// Loads a `snippets:` entry: a file, a directory of match files (every
  /// `.yml`/`.yaml` below it, except those named `_…`, which are for imports,
  /// as in espanso), or a glob (`**` for any depth). Relative to `directory`.
  mutating func load(entry pattern: String, relativeTo directory: String, reader: inout YAMLReader, at node: YAMLNode) {
    let path = MatchPaths.join(directory, pattern)
    guard Self.readsFiles else { return }
    guard MatchPaths.isPattern(pattern) else {
      guard source.kind(of: path) != nil else {
        reader.report("snippets: \(path): no such file or directory", at: node, kind: .missingFile)
        return
      }
      load(path: path, reader: &reader, at: node)
      return
    }
    let matches = MatchPaths.glob(path, in: source)
    if matches.isEmpty { reader.warn("snippets: \(path) matches no file", at: node, kind: .missingFile) }
    for match in matches { load(path: match, reader: &reader, at: node) }
  }

  private mutating func load(path: String, reader: inout YAMLReader, at node: YAMLNode) {
    if source.kind(of: path) == .directory {
      for file in MatchPaths.matchFiles(under: path, in: source) { loadFile(file, reader: &reader, at: node) }
    } else {
      loadFile(path, reader: &reader, at: node)
    }
  }

  /// Loads every match file under `directory`, as espanso reads its
  /// `match/` (a user's own, sent by the session agent).
  mutating func load(directory: String) {
    var reader = YAMLReader(file: directory)
    for file in MatchPaths.matchFiles(under: directory, in: source) { loadFile(file, reader: &reader, at: nil) }
    problems += reader.problems
    warnings += reader.warnings
  }

  /// Reads one match file; `reader` and `node` say where it was named.
  private mutating func loadFile(_ path: String, reader: inout YAMLReader, at node: YAMLNode?) {
    let real = source.canonical(path) ?? path
    if importChain.contains(real) {
      let cycle = (importChain.drop { $0 != real } + [real]).map(MatchPaths.fileName)
      reader.report("import cycle: \(cycle.joined(separator: " imports "))", at: node, kind: .missingFile)
      return
    }
    guard importChain.count < Self.maximumImportDepth else {
      reader.report("imports nest deeper than \(Self.maximumImportDepth) files", at: node, kind: .missingFile)
      return
    }
    guard loaded.insert(real).inserted else { return }  // already read (a file imported twice)
    let text: String
    do {
      text = try source.read(path)
    } catch {
      reader.report(error.description, at: node, kind: .missingFile)
      return
    }
    files.append(path)
    importChain.append(real)
    defer { importChain.removeLast() }
    var fileReader = YAMLReader(file: path)
    if let root = fileReader.compose(text) { readMatchFile(root, path: path, reader: &fileReader) }
    problems += fileReader.problems
    warnings += fileReader.warnings
  }

  private mutating func readMatchFile(_ root: YAMLNode, path: String, reader: inout YAMLReader) {
    if case .scalar(let text, _) = root.content, text.isEmpty || text == "null" { return }  // empty file
    guard case .mapping(let mapping) = root.content else {
      reader.report("a match file must be a mapping (matches:, global_vars:, imports:)", at: root)
      return
    }
    var matches: YAMLNode?
    for (keyNode, value) in mapping {
      guard case .scalar(let key, _) = keyNode.content else {
        reader.warn("a key that is not a plain name is ignored", at: keyNode, kind: .unknownKey)
        continue
      }
      switch key {
      case "global_vars":
        for (name, definition) in VariableReader.read(value, key: key, reader: &reader) where globals[name] == nil {
          globals[name] = definition
          globalOrder.append(name)
        }
      case "matches": matches = value
      case "imports":
        let directory = MatchPaths.directory(of: path)
        for item in reader.list(value, key: key) ?? [] {
          guard let name = reader.string(item, key: "imports") else { continue }
          let imported = MatchPaths.join(directory, name)
          guard source.kind(of: imported) != nil else {
            reader.report("imports: \(imported): no such file", at: item, kind: .missingFile)
            continue
          }
          loadFile(imported, reader: &reader, at: item)
        }
      case "anchors": break  // a place for YAML anchors, as espanso users keep them
      case _ where Self.legacyFileKeys.contains(key): break  // espanso ignores them too
      default:
        reader.warn("unknown key '\(key)' ignored", at: keyNode, kind: .unknownKey)
      }
    }
    if let matches { readMatches(matches, reader: &reader) }
  }

  // MARK: - Matches

  /// Reads a list of matches (a file's `matches:` or the config's).
  mutating func readMatches(_ node: YAMLNode, reader: inout YAMLReader) {
    guard case .sequence(let sequence) = node.content else {
      reader.report("matches must be a list", at: node)
      return
    }
    for item in sequence {
      guard pending.count < Self.maximumSnippets else {
        reader.report("more than \(Self.maximumSnippets) snippets", at: item)
        return
      }
      if let match = MatchReader.read(item, reader: &reader) { pending.append(match) }
    }
  }

  /// Resolves the variables of every match read, now that every file's
  /// `global_vars` are known, and their nested matches, now that every
  /// trigger is.
  mutating func finish() {
    var resolver = MatchResolver(globals: globals, globalOrder: globalOrder)
    var resolved: [(snippet: Snippet, pending: Int)] = []
    for (index, match) in pending.enumerated() {
      if let snippet = resolver.resolve(match) { resolved.append((snippet, index)) }
    }
    problems += resolver.problems
    warnings += resolver.warnings
    // A nested match must name a trigger of a snippet that loaded, with
    // nothing for the session to work out; until no more drop out.
    var byTrigger: [String: Int] = [:]
    for (index, entry) in resolved.enumerated() {
      for trigger in entry.snippet.triggers where byTrigger[trigger] == nil { byTrigger[trigger] = index }
    }
    var dropped = Set<Int>()
    var changed = true
    while changed {
      changed = false
      for (index, entry) in resolved.enumerated() where !dropped.contains(index) {
        for variable in entry.snippet.variables {
          guard case .match(let trigger) = variable.kind else { continue }
          let target = byTrigger[trigger]
          let reason: String?
          if let target, dropped.contains(target) {
            reason = "is the match '\(trigger)', which was skipped"
          } else if let target, resolved[target].snippet.needsSession {
            reason = "is the match '\(trigger)', whose own variables need the session (not supported nested)"
          } else if target == nil {
            reason = "is the match '\(trigger)', which no match has"
          } else {
            reason = nil
          }
          guard let reason else { continue }
          warn(pending[entry.pending], "match skipped: its variable '\(variable.name)' \(reason)", .dependsOnSkipped)
          dropped.insert(index)
          changed = true
          break
        }
      }
    }
    let cycles = Self.nestingCycles(resolved.map(\.snippet), byTrigger: byTrigger, dropped: dropped)
    for index in cycles {
      warn(pending[resolved[index].pending], "match skipped: its nested matches form a cycle", .invalidMatch)
    }
    snippets += resolved.enumerated().filter { !dropped.contains($0.offset) && !cycles.contains($0.offset) }.map(
      \.element.snippet)
    pending = []
  }

  /// Snippets whose nested matches lead back to themselves.
  private static func nestingCycles(_ snippets: [Snippet], byTrigger: [String: Int], dropped: Set<Int>) -> Set<Int> {
    var state = [UInt8](repeating: 0, count: snippets.count)  // 0 new, 1 on the path, 2 done
    var cyclic = Set<Int>()
    func visit(_ index: Int) -> Bool {
      if state[index] == 1 { return true }
      if state[index] == 2 { return cyclic.contains(index) }
      state[index] = 1
      var found = false
      for variable in snippets[index].variables {
        if case .match(let trigger) = variable.kind, let target = byTrigger[trigger], !dropped.contains(target),
          visit(target)
        {
          found = true
        }
      }
      state[index] = 2
      if found { cyclic.insert(index) }
      return found
    }
    for index in snippets.indices where !dropped.contains(index) { _ = visit(index) }
    return cyclic
  }

  private mutating func warn(_ match: PendingMatch, _ message: String, _ kind: ConfigProblem.Kind) {
    warnings.append(match.problem(message, kind))
  }

}
