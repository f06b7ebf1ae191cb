import Glibc
import KeyboardEngine

/// Reads espanso match files (and inline `matches:`) into snippets, as
/// espanso does, file by file: a file that is not YAML is reported and left
/// out, a match that is invalid or uses what vkbd does not support is
/// reported and skipped, and the rest loads. Every problem has its file:line.
struct SnippetLoader {
  /// The snippets, once ``finish()`` resolved their variables. A match
  /// with no variable goes in as it is read; one with variables waits in
  /// ``pending``, in its place here.
  private(set) var snippets = SnippetTable()
  /// Matches read, waiting for every file's `global_vars` (they are global,
  /// as in espanso: a file may use one that a later file defines), with
  /// their places in ``snippets``.
  private var pending: [(place: Int, match: PendingMatch)] = []
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
  /// The snippets took all the memory they may: nothing more is read.
  private var isFull = false
  private let store: any MatchFileStore

  /// False in a fuzzing build: names of files are checked, the files not read.
  nonisolated(unsafe) static var readsFiles = true

  /// The most bytes the snippets may take (``SnippetTable/storageBytes``).
  let maximumStorage: Int

  init(store: any MatchFileStore = DiskFiles(), maximumStorage: Int = Self.maximumStorage) {
    self.store = store
    self.maximumStorage = maximumStorage
  }

  // Limits, stated in vkbd.yaml(5). The snippets are bound by the memory
  // they take, not by their number.
  static let maximumStorage = 512 << 20
  static let maximumImportDepth = 16

  /// Top-level keys of espanso's legacy format, which it ignores now.
  static let legacyFileKeys = ["name", "parent", "exclude_default_entries"]

  // MARK: - Files

  /// Loads the `snippets:` entries, in order: each a file, a directory of
  /// match files (every `.yml`/`.yaml` below it, except those named `_…`,
  /// which are for imports, as in espanso), or a glob (`**` for any depth),
  /// relative to `directory`.
  mutating func load(
    entries: [(pattern: String, node: YAMLNode)], relativeTo directory: String, reader: inout YAMLReader
  ) {
    guard Self.readsFiles else { return }
    var files: [(path: String, node: YAMLNode?)] = []
    for (pattern, node) in entries {
      let path = MatchPaths.join(directory, pattern)
      guard MatchPaths.isPattern(pattern) else {
        guard store.kind(of: path) != nil else {
          reader.report("snippets: \(path): no such file or directory", at: node, kind: .missingFile)
          continue
        }
        files += filesAt(path).map { ($0, node) }
        continue
      }
      let matches = MatchPaths.glob(path, in: store)
      if matches.isEmpty { reader.warn("snippets: \(path) matches no file", at: node, kind: .missingFile) }
      files += matches.flatMap(filesAt).map { ($0, node) }
    }
    loadFiles(files, reader: &reader)
  }

  /// The match files `path` names: the file, or those under the directory.
  private func filesAt(_ path: String) -> [String] {
    store.kind(of: path) == .directory ? MatchPaths.matchFiles(under: path, in: store) : [path]
  }

  /// Loads every match file under `directory`, as espanso reads its
  /// `match/` (a user's own, sent by the session agent).
  mutating func load(directory: String) {
    var reader = YAMLReader(file: directory)
    loadFiles(MatchPaths.matchFiles(under: directory, in: store).map { ($0, nil) }, reader: &reader)
    problems += reader.problems
    warnings += reader.warnings
  }

  /// Loads `files` in order, each where a node says it was named.
  private mutating func loadFiles(_ files: [(path: String, node: YAMLNode?)], reader: inout YAMLReader) {
    for (path, node) in files { loadFile(path, reader: &reader, at: node) }
  }

  /// Reads one match file; `reader` and `node` say where it was named.
  private mutating func loadFile(_ path: String, reader: inout YAMLReader, at node: YAMLNode?) {
    let real = store.canonical(path) ?? path
    if importChain.contains(real) {
      let cycle = (importChain.drop { $0 != real } + [real]).map(MatchPaths.fileName)
      reader.report("import cycle: \(cycle.joined(separator: " imports "))", at: node, kind: .missingFile)
      return
    }
    guard importChain.count < Self.maximumImportDepth else {
      reader.report("imports nest deeper than \(Self.maximumImportDepth) files", at: node, kind: .missingFile)
      return
    }
    guard loaded.insert(real).inserted, !isFull else { return }  // already read (a file imported twice)
    let text: String
    do {
      text = try store.read(path)
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

  /// Takes in a match file: its `global_vars` and `imports` in their
  /// order, then its `matches`.
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
          guard store.kind(of: imported) != nil else {
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

  /// Reads a list of matches (a file's `matches:` or the config's), as far
  /// as the memory the snippets take allows. A match with no variable goes
  /// in as it is; one with variables waits in its place.
  mutating func readMatches(_ node: YAMLNode, reader: inout YAMLReader) {
    guard case .sequence(let sequence) = node.content else {
      reader.report("matches must be a list", at: node)
      return
    }
    for (count, item) in sequence.enumerated() {
      if count % 64 == 0 && snippets.storageBytes > maximumStorage {
        reader.report(
          "the snippets loaded take more than \(Report.mebibytes(maximumStorage)) of memory, the most vkbd keeps: "
            + "the matches from here on and every later file are left out", at: item, kind: .tooLarge)
        isFull = true
        return
      }
      guard let match = MatchReader.read(item, reader: &reader) else { continue }
      if let snippet = match.finished {
        snippets.append(snippet, file: match.file, line: match.originLine)
      } else {
        pending.append((snippets.count, match))
        snippets.append(match.snippet, file: match.file, line: match.originLine)
      }
    }
  }

  /// Resolves the variables of every match read, now that every file's
  /// `global_vars` are known, and their nested matches, now that every
  /// trigger is.
  mutating func finish() {
    var resolver = MatchResolver(globals: globals, globalOrder: globalOrder)
    var resolved: [(snippet: Snippet, pending: Int)] = []
    var dropped = Set<Int>()  // places in `snippets`
    for (index, entry) in pending.enumerated() {
      if let snippet = resolver.resolve(entry.match) {
        resolved.append((snippet, index))
      } else {
        dropped.insert(entry.place)
      }
    }
    problems += resolver.problems
    warnings += resolver.warnings
    // A nested match must name a trigger of a snippet that loaded, with
    // nothing for the session to work out; until no more drop out.
    let byTrigger = firstPlaces(
      ofTriggers: Set(resolved.flatMap { Self.nestedTriggers(of: $0.snippet) }), except: dropped)
    var resolvedAt: [Int: Int] = [:]  // place → index in `resolved`
    for (index, entry) in resolved.enumerated() { resolvedAt[pending[entry.pending].place] = index }
    var changed = true
    while changed {
      changed = false
      for entry in resolved where !dropped.contains(pending[entry.pending].place) {
        for variable in entry.snippet.variables {
          guard case .match(let trigger) = variable.kind else { continue }
          let target = byTrigger[trigger]
          let reason: String?
          if let target, dropped.contains(target) {
            reason = "is the match '\(trigger)', which was skipped"
          } else if let target, let index = resolvedAt[target], resolved[index].snippet.needsSession {
            reason = "is the match '\(trigger)', whose own variables need the session (not supported nested)"
          } else if target == nil {
            reason = "is the match '\(trigger)', which no match has"
          } else {
            reason = nil
          }
          guard let reason else { continue }
          let match = pending[entry.pending].match
          warn(match, "match skipped: its variable '\(variable.name)' \(reason)", .dependsOnSkipped)
          dropped.insert(pending[entry.pending].place)
          changed = true
          break
        }
      }
    }
    let cycles = Self.nestingCycles(
      resolved.map(\.snippet), byTrigger: byTrigger.compactMapValues { resolvedAt[$0] },
      dropped: Set(resolved.indices.filter { dropped.contains(pending[resolved[$0].pending].place) }))
    for index in cycles {
      warn(pending[resolved[index].pending].match, "match skipped: its nested matches form a cycle", .invalidMatch)
      dropped.insert(pending[resolved[index].pending].place)
    }
    for entry in resolved where !dropped.contains(pending[entry.pending].place) {
      snippets.replace(at: pending[entry.pending].place, with: entry.snippet)
    }
    snippets.remove(at: dropped)
    snippets.compact()
    pending = []
  }

  /// The triggers a snippet's nested matches name.
  private static func nestedTriggers(of snippet: Snippet) -> [String] {
    snippet.variables.compactMap { if case .match(let trigger) = $0.kind { trigger } else { nil } }
  }

  /// The place in `snippets` of the first snippet with each trigger of
  /// `wanted`, but for the places `excluded` (only these triggers are
  /// looked for: most configs nest none).
  private func firstPlaces(ofTriggers wanted: Set<String>, except excluded: Set<Int>) -> [String: Int] {
    guard !wanted.isEmpty else { return [:] }
    let lengths = Set(wanted.map(\.utf8.count))
    var found: [String: Int] = [:]
    for place in snippets.indices where !excluded.contains(place) {
      snippets.forEachTrigger(at: place) { utf8 in
        guard lengths.contains(utf8.count) else { return }
        let trigger = String(decoding: utf8, as: UTF8.self)
        if wanted.contains(trigger) && found[trigger] == nil { found[trigger] = place }
      }
    }
    return found
  }

  /// Snippets whose nested matches lead back to themselves (`byTrigger`
  /// and `dropped` by index in `snippets`).
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
