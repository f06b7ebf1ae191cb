import Glibc
import KeyboardEngine

/// Reads espanso match files (and inline `matches:`) into snippets, with every
/// problem at its file:line. Kinds vkbd cannot type (forms, shell, regex…)
/// are warnings: the match is skipped and the rest loads.
struct SnippetLoader {
  /// The snippets, once ``finish()`` resolved their variables.
  private(set) var snippets: [Snippet] = []
  /// Matches read, waiting for every file's `global_vars` (they are global,
  /// as in espanso: a file may use one that a later file defines).
  private var pending: [Pending] = []
  private var globals: [String: Definition] = [:]
  /// The match files read, in order.
  private(set) var files: [String] = []
  private(set) var problems: [ConfigProblem] = []
  private(set) var warnings: [ConfigProblem] = []
  /// The real paths of the files being read, innermost last (import cycles).
  private var importChain: [String] = []
  private var loaded: Set<String> = []

  /// False in a fuzzing build: names of files are checked, the files not read.
  nonisolated(unsafe) static var readsFiles = true

  // Limits, stated in vkbd.yaml(5).
  static let maximumSnippets = 100_000
  static let maximumReplacementLength = 65_536
  static let maximumImportDepth = 16

  static let fileKeys = ["matches", "global_vars", "imports", "anchors"]
  static let matchKeys = [
    "trigger", "triggers", "replace", "word", "left_word", "right_word", "propagate_case", "uppercase_style",
    "label", "vars", "search_terms",
  ]
  /// espanso's match kinds that vkbd does not type: skipped with a warning.
  static let unsupportedMatchKeys = [
    "regex", "form", "form_fields", "image_path", "html", "markdown", "force_clipboard", "force_mode",
    "paragraph", "passive_only",
  ]
  static let variableKeys = ["name", "type", "params", "inject_vars", "depends_on"]

  private struct Pending {
    var snippet: Snippet
    var replace: String
    var locals: [String: Definition]
    /// Where `replace:` is, for problems.
    var file: String
    var line: Int
    var column: Int
  }

  /// A variable as defined: one vkbd renders, or a kind it does not.
  private enum Definition {
    case supported(SnippetVariable)
    case unsupported(type: String)
  }

  // MARK: - Files

  /// Loads a `snippets:` entry: a file, a directory of match files (every
  /// `.yml`/`.yaml` below it, except those named `_…`, which are for imports,
  /// as in espanso), or a glob. Relative to `directory`.
  mutating func load(entry pattern: String, relativeTo directory: String, reader: inout YAMLReader, at node: YAMLNode) {
    let path = Self.join(directory, pattern)
    guard Self.readsFiles else { return }
    guard pattern.contains(where: { "*?[".contains($0) }) else {
      guard Self.exists(path) else {
        reader.report("snippets: \(path): no such file or directory", at: node)
        return
      }
      load(path: path, reader: &reader, at: node)
      return
    }
    let matches = Self.glob(path)
    if matches.isEmpty { reader.warn("snippets: \(path) matches no file", at: node) }
    for match in matches { load(path: match, reader: &reader, at: node) }
  }

  private mutating func load(path: String, reader: inout YAMLReader, at node: YAMLNode) {
    if Self.isDirectory(path) {
      for file in Self.matchFiles(under: path) { loadFile(file, reader: &reader, at: node) }
    } else {
      loadFile(path, reader: &reader, at: node)
    }
  }

  /// Reads one match file; `reader` and `node` say where it was named.
  private mutating func loadFile(_ path: String, reader: inout YAMLReader, at node: YAMLNode) {
    let real = Self.realPath(path) ?? path
    if importChain.contains(real) {
      let cycle = (importChain.drop { $0 != real } + [real]).map(Self.fileName)
      reader.report("import cycle: \(cycle.joined(separator: " imports "))", at: node)
      return
    }
    guard importChain.count < Self.maximumImportDepth else {
      reader.report("imports nest deeper than \(Self.maximumImportDepth) files", at: node)
      return
    }
    guard loaded.insert(real).inserted else { return }  // already read (a file imported twice)
    let text: String
    do {
      text = try readFile(path)
    } catch {
      reader.report(error.description, at: node)
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
    guard let entries = reader.entries(of: root, named: "match file", allowed: Self.fileKeys) else { return }
    var matches: YAMLNode?
    for (key, value) in entries {
      switch key {
      case "global_vars":
        for (name, definition) in readVariables(value, key: key, reader: &reader) where globals[name] == nil {
          globals[name] = definition
        }
      case "matches": matches = value
      case "imports":
        let directory = Self.directory(of: path)
        for item in reader.list(value, key: key) ?? [] {
          guard let name = reader.string(item, key: "imports") else { continue }
          let imported = Self.join(directory, name)
          guard Self.exists(imported) else {
            reader.report("imports: \(imported): no such file", at: item)
            continue
          }
          loadFile(imported, reader: &reader, at: item)
        }
      case "anchors": break  // a place for YAML anchors, as espanso users keep them
      default: preconditionFailure("key \(key) is allowed but not read")
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
      if let match = readMatch(item, reader: &reader) { pending.append(match) }
    }
  }

  private func readMatch(_ node: YAMLNode, reader: inout YAMLReader) -> Pending? {
    let origin = "\(reader.file):\(node.line)"
    guard
      let entries = reader.entries(
        of: node, named: "match", allowed: Self.matchKeys + Self.unsupportedMatchKeys, known: Self.matchKeys)
    else { return nil }
    if let unsupported = entries.first(where: { Self.unsupportedMatchKeys.contains($0.key) }) {
      reader.warn("match skipped: vkbd does not support '\(unsupported.key)'", at: unsupported.value)
      return nil
    }
    let problemsBefore = reader.problems.count
    var triggers: [String] = []
    var replace: (text: String, node: YAMLNode)?
    var hasReplace = false
    var variables: [String: Definition] = [:]
    var snippet = Snippet(triggers: [], replacement: [], origin: origin)
    var word = false
    for (key, value) in entries {
      switch key {
      case "trigger":
        if let trigger = reader.string(value, key: key) { triggers.append(trigger) }
      case "triggers":
        for item in reader.list(value, key: key) ?? [] {
          if let trigger = reader.string(item, key: key) { triggers.append(trigger) }
        }
      case "replace":
        hasReplace = true
        if let text = reader.string(value, key: key) { replace = (text, value) }
      case "word": word = reader.bool(value, key: key) ?? false
      case "left_word": snippet.leftWord = reader.bool(value, key: key) ?? false
      case "right_word": snippet.rightWord = reader.bool(value, key: key) ?? false
      case "propagate_case": snippet.propagateCase = reader.bool(value, key: key) ?? false
      case "uppercase_style":
        guard let text = reader.string(value, key: key) else { break }
        guard let style = UppercaseStyle(rawValue: text) else {
          let known = UppercaseStyle.allCases.map(\.rawValue).joined(separator: ", ")
          reader.report("uppercase_style must be one of \(known), not '\(text)'", at: value)
          break
        }
        snippet.uppercaseStyle = style
      case "label": snippet.label = reader.string(value, key: key)
      case "vars":
        for (name, definition) in readVariables(value, key: key, reader: &reader) { variables[name] = definition }
      case "search_terms": break  // for espanso's search bar
      default: preconditionFailure("key \(key) is allowed but not read")
      }
    }
    if word {
      snippet.leftWord = true
      snippet.rightWord = true
    }
    if triggers.isEmpty { reader.report("match has no trigger (trigger: or triggers:)", at: node) }
    for trigger in triggers {
      let length = trigger.unicodeScalars.count
      if length == 0 {
        reader.report("a trigger is empty", at: node)
      } else if length > SnippetMatcher.maximumTriggerLength {
        reader.report("a trigger is longer than \(SnippetMatcher.maximumTriggerLength) characters", at: node)
      } else if snippet.leftWord || snippet.rightWord, trigger.unicodeScalars.allSatisfy(SnippetMatcher.isSeparator) {
        reader.report("a word trigger made only of separators never fires", at: node)
      }
    }
    guard let replace else {
      if !hasReplace { reader.report("match has no replace:", at: node) }
      return nil
    }
    if replace.text.unicodeScalars.count > Self.maximumReplacementLength {
      reader.report("replace is longer than \(Self.maximumReplacementLength) characters", at: replace.node)
    }
    guard reader.problems.count == problemsBefore else { return nil }
    snippet.triggers = triggers
    return Pending(
      snippet: snippet, replace: replace.text, locals: variables, file: reader.file,
      line: replace.node.line, column: replace.node.column)
  }

  /// Resolves the variables of every match read, now that every file's
  /// `global_vars` are known (a match's own `vars` come first).
  mutating func finish() {
    for match in pending {
      let variables = globals.merging(match.locals) { _, local in local }
      guard let parts = replacementParts(match, variables: variables) else { continue }
      var snippet = match.snippet
      snippet.replacement = parts
      snippets.append(snippet)
    }
    pending = []
  }

  /// Splits a replacement at its `{{name}}` references. Nil (with a warning)
  /// when it uses a variable of a kind vkbd does not render.
  private mutating func replacementParts(_ match: Pending, variables: [String: Definition]) -> [ReplacementPart]? {
    func problem(_ message: String) -> ConfigProblem {
      ConfigProblem(file: match.file, line: match.line, column: match.column, message: message)
    }
    let text = match.replace
    var parts: [ReplacementPart] = []
    var rest = Substring(text)
    while let open = Self.firstRange(of: "{{", in: rest),
      let close = Self.firstRange(of: "}}", in: rest[open.upperBound...])
    {
      if open.lowerBound > rest.startIndex { parts.append(.text(String(rest[..<open.lowerBound]))) }
      let name = String(rest[open.upperBound..<close.lowerBound].trimmingSpaces)
      switch variables[name] {
      case .supported(let variable): parts.append(.variable(variable))
      case .unsupported(let type):
        warnings.append(problem("match skipped: variable '\(name)' is of type '\(type)', which vkbd does not support"))
        return nil
      case nil:
        problems.append(problem("replace uses {{\(name)}}, which no vars entry defines"))
        return nil
      }
      rest = rest[close.upperBound...]
    }
    if !rest.isEmpty { parts.append(.text(String(rest))) }
    return parts
  }

  /// Where the two ASCII characters `marker` first stand in `text`: a plain
  /// walk over its UTF-8, where the generic `firstRange(of:)` costs some
  /// thousands of instructions a call (a third of loading 1,000 snippets).
  static func firstRange(of marker: StaticString, in text: Substring) -> Range<String.Index>? {
    precondition(marker.utf8CodeUnitCount == 2 && marker.isASCII)
    let (first, second) = (marker.utf8Start[0], marker.utf8Start[1])
    let utf8 = text.utf8
    var index = utf8.startIndex
    while index < utf8.endIndex {
      let next = utf8.index(after: index)
      if utf8[index] == first && next < utf8.endIndex && utf8[next] == second {
        return index..<utf8.index(after: next)
      }
      index = next
    }
    return nil
  }

  // MARK: - Variables

  private func readVariables(_ node: YAMLNode, key: String, reader: inout YAMLReader) -> [String: Definition] {
    guard case .sequence(let sequence) = node.content else {
      reader.report("\(key) must be a list", at: node)
      return [:]
    }
    var result: [String: Definition] = [:]
    for item in sequence {
      guard let entries = reader.entries(of: item, named: key, allowed: Self.variableKeys) else { continue }
      var name: String?
      var type: String?
      var params: YAMLNode?
      for (field, value) in entries {
        switch field {
        case "name": name = reader.string(value, key: "\(key).name")
        case "type": type = reader.string(value, key: "\(key).type")
        case "params": params = value
        default: break  // inject_vars, depends_on: ordering hints vkbd does not need
        }
      }
      guard let name, let type else {
        reader.report("a variable needs name: and type:", at: item)
        continue
      }
      if let definition = readVariable(type: type, params: params, reader: &reader, at: item) {
        result[name] = definition
      }
    }
    return result
  }

  private func readVariable(type: String, params: YAMLNode?, reader: inout YAMLReader, at node: YAMLNode) -> Definition?
  {
    let allowed: [String]
    switch type {
    case "date": allowed = ["format", "offset", "locale", "tz"]
    case "echo": allowed = ["echo"]
    case "random": allowed = ["choices"]
    default: return .unsupported(type: type)
    }
    var values: [String: YAMLNode] = [:]
    if let params {
      guard let entries = reader.entries(of: params, named: "params", allowed: allowed) else { return nil }
      for (key, value) in entries { values[key] = value }
    }
    switch type {
    case "date":
      guard let formatNode = values["format"], let format = reader.string(formatNode, key: "params.format") else {
        reader.report("a date variable needs params.format", at: node)
        return nil
      }
      let offset = values["offset"].flatMap {
        reader.integer($0, key: "params.offset", in: -3_153_600_000...3_153_600_000)
      }
      return .supported(.date(format: format, offsetSeconds: offset ?? 0))
    case "echo":
      guard let echoNode = values["echo"], let text = reader.string(echoNode, key: "params.echo") else {
        reader.report("an echo variable needs params.echo", at: node)
        return nil
      }
      return .supported(.echo(text))
    default:
      let choices = (values["choices"].flatMap { reader.list($0, key: "params.choices") } ?? []).compactMap {
        reader.string($0, key: "params.choices")
      }
      guard !choices.isEmpty else {
        reader.report("a random variable needs params.choices", at: node)
        return nil
      }
      return .supported(.random(choices))
    }
  }

  // MARK: - Paths

  static func directory(of path: String) -> String {
    guard let slash = path.lastIndex(of: "/") else { return "." }
    return slash == path.startIndex ? "/" : String(path[..<slash])
  }

  static func fileName(_ path: String) -> String {
    path.lastIndex(of: "/").map { String(path[path.index(after: $0)...]) } ?? path
  }

  static func join(_ directory: String, _ path: String) -> String {
    var path = path
    while path.count > 1 && path.hasSuffix("/") { path.removeLast() }
    return path.hasPrefix("/") ? path : directory == "." ? path : "\(directory)/\(path)"
  }

  private static func exists(_ path: String) -> Bool { access(path, F_OK) == 0 }

  private static func isDirectory(_ path: String) -> Bool {
    var info = stat()
    return stat(path, &info) == 0 && info.st_mode & S_IFMT == S_IFDIR
  }

  private static func realPath(_ path: String) -> String? {
    guard let resolved = realpath(path, nil) else { return nil }
    defer { free(resolved) }
    return String(cString: resolved)
  }

  /// `glob(3)`, sorted.
  private static func glob(_ pattern: String) -> [String] {
    var result = glob_t()
    defer { globfree(&result) }
    guard Glibc.glob(pattern, 0, nil, &result) == 0 else { return [] }
    return (0..<Int(result.gl_pathc)).compactMap { result.gl_pathv[$0].map { String(cString: $0) } }
  }

  /// The match files under a directory, sorted, as espanso reads its `match/`.
  private static func matchFiles(under directory: String) -> [String] {
    guard let stream = opendir(directory) else { return [] }
    defer { closedir(stream) }
    var files: [String] = []
    while let entry = readdir(stream) {
      let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
      if name.hasPrefix(".") || name.hasPrefix("_") { continue }
      let path = "\(directory)/\(name)"
      if isDirectory(path) {
        files += matchFiles(under: path)
      } else if name.hasSuffix(".yml") || name.hasSuffix(".yaml") {
        files.append(path)
      }
    }
    return files.sorted()
  }
}
