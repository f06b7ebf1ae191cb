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
  private var pending: [Pending] = []
  private var globals: [String: Definition] = [:]
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
  static let maximumReplacementLength = 65_536
  static let maximumImportDepth = 16

  /// Top-level keys of espanso's legacy format, which it ignores now.
  static let legacyFileKeys = ["name", "parent", "exclude_default_entries"]
  static let matchKeys = [
    "trigger", "triggers", "regex", "replace", "form", "form_fields", "word", "left_word", "right_word",
    "propagate_case", "uppercase_style", "label", "vars", "search_terms", "force_clipboard", "force_mode",
    "paragraph",
  ]
  /// espanso's match kinds that vkbd does not type: skipped with a warning.
  static let unsupportedMatchKeys = ["image_path", "html", "markdown", "passive_only"]
  static let variableKeys = ["name", "type", "params", "inject_vars", "depends_on"]
  /// The shells a `shell` variable may name that run on Linux.
  static let shells = ["bash", "sh", "zsh", "nu", "pwsh"]

  private struct Pending {
    var snippet: Snippet
    var replace: String
    /// The regex's named groups, which are variables.
    var captures: [String]
    var locals: [(name: String, definition: Definition)]
    /// Where `replace:` is, for problems.
    var file: String
    var line: Int
    var column: Int
  }

  /// A variable as defined.
  private enum Definition {
    case ready(Raw, injects: Bool)
    /// A kind vkbd does not have.
    case unsupported(type: String, origin: String)
    /// It had an error, already reported.
    case invalid(origin: String)
    /// espanso's `type: global`: the global variable of that name, here.
    case global
  }

  /// A variable's parameters, their text not yet split at references.
  private enum Raw {
    case date(format: String?, offset: Int64, locale: String?)
    case echo(String)
    case random([String])
    case match(trigger: String)
    case shell(command: String, shell: String?, trim: Bool, debug: Bool)
    case script(arguments: [String], trim: Bool)
    case clipboard
    case choice([SessionCall.Choice])
    case form(layout: String, fields: [SessionCall.FormField])
  }

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
        for (name, definition) in readVariables(value, key: key, reader: &reader) where globals[name] == nil {
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
      if let match = readMatch(item, reader: &reader) { pending.append(match) }
    }
  }

  private func readMatch(_ node: YAMLNode, reader: inout YAMLReader) -> Pending? {
    let origin = "\(reader.file):\(node.line)"
    guard case .mapping(let mapping) = node.content else {
      reader.report("a match must be a mapping of keys to values", at: node, kind: .invalidMatch)
      return nil
    }
    var entries: [(key: String, value: YAMLNode)] = []
    for (keyNode, value) in mapping {
      guard case .scalar(let key, _) = keyNode.content else { continue }
      if Self.matchKeys.contains(key) {
        entries.append((key, value))
      } else if Self.unsupportedMatchKeys.contains(key) {
        reader.warn("match skipped: vkbd does not support '\(key)'", at: value, kind: .unsupported)
        return nil
      } else {
        reader.warn("match: unknown key '\(key)' ignored", at: keyNode, kind: .unknownKey)
      }
    }
    let problemsBefore = reader.problems.count
    var triggers: [String] = []
    var regex: (text: String, node: YAMLNode)?
    var replace: (text: String, node: YAMLNode)?
    var hasReplace = false
    var form: (text: String, node: YAMLNode)?
    var formFields: YAMLNode?
    var variables: [(name: String, definition: Definition)] = []
    var snippet = Snippet(triggers: [], replacement: Template(""), origin: origin)
    var word: Bool?
    var leftWord: Bool?
    var rightWord: Bool?
    for (key, value) in entries {
      switch key {
      case "trigger":
        if let trigger = reader.string(value, key: key) { triggers.append(trigger) }
      case "triggers":
        for item in Self.setMembers(value) ?? reader.list(value, key: key) ?? [] {
          if let trigger = reader.string(item, key: key) { triggers.append(trigger) }
        }
      case "regex": if let text = reader.string(value, key: key) { regex = (text, value) }
      case "replace":
        hasReplace = true
        if let text = reader.string(value, key: key) { replace = (text, value) }
      case "form": if let text = reader.string(value, key: key) { form = (text, value) }
      case "form_fields": formFields = value
      case "word": word = reader.bool(value, key: key)
      case "left_word": leftWord = reader.bool(value, key: key)
      case "right_word": rightWord = reader.bool(value, key: key)
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
      case "vars": variables += readVariables(value, key: key, reader: &reader)
      case "force_clipboard", "paragraph": _ = reader.bool(value, key: key)
      case "force_mode": _ = reader.string(value, key: key)
      case "search_terms": break  // for espanso's search bar
      default: preconditionFailure("key \(key) is allowed but not read")
      }
    }
    // A specific key wins over `word`.
    snippet.leftWord = leftWord ?? word ?? false
    snippet.rightWord = rightWord ?? word ?? false
    if let form, replace == nil {
      // espanso's shorthand: a form variable `form1` of the layout, and a
      // replacement that is the layout with each [[field]] its value.
      let fields = formFields.map { readFormFields($0, reader: &reader) } ?? [:]
      let names = Self.formFieldNames(form.text)
      let raw = Raw.form(
        layout: form.text, fields: names.map { fields[$0] ?? SessionCall.FormField(name: $0) })
      variables.append(("form1", .ready(raw, injects: true)))
      replace = (Self.formReplacement(form.text, variable: "form1"), form.node)
    }
    if triggers.isEmpty && regex == nil {
      reader.report("match has no trigger (trigger:, triggers: or regex:)", at: node, kind: .invalidMatch)
    }
    var captures: [String] = []
    if let regex {
      if !triggers.isEmpty {
        reader.warn("regex: ignored, the match has a trigger (as in espanso)", at: regex.node, kind: .unknownKey)
      } else {
        do {
          let compiled = try TriggerRegex(regex.text)
          snippet.regex = compiled
          captures = compiled.groupNames.compactMap { $0 }
        } catch {
          if error.isUnsupported {
            reader.warn("match skipped: regex: \(error)", at: regex.node, kind: .unsupported)
          } else {
            reader.report("regex: \(error)", at: regex.node, kind: .invalidMatch)
          }
          return nil
        }
      }
    }
    for trigger in triggers {
      let length = trigger.unicodeScalars.count
      if length == 0 {
        reader.report("a trigger is empty", at: node, kind: .invalidMatch)
      } else if length > SnippetMatcher.maximumTriggerLength {
        reader.report(
          "a trigger is longer than \(SnippetMatcher.maximumTriggerLength) characters", at: node, kind: .invalidMatch)
      } else if snippet.leftWord || snippet.rightWord, trigger.unicodeScalars.allSatisfy(SnippetMatcher.isSeparator) {
        reader.warn("match skipped: a word trigger made only of separators never fires", at: node, kind: .invalidMatch)
        return nil
      }
    }
    guard let replace else {
      if !hasReplace { reader.report("match has no replace: (nor form:)", at: node, kind: .invalidMatch) }
      return nil
    }
    if replace.text.unicodeScalars.count > Self.maximumReplacementLength {
      reader.report(
        "replace is longer than \(Self.maximumReplacementLength) characters", at: replace.node, kind: .invalidMatch)
    }
    guard reader.problems.count == problemsBefore else { return nil }
    snippet.triggers = triggers
    return Pending(
      snippet: snippet, replace: replace.text, captures: captures, locals: variables, file: reader.file,
      line: replace.node.line, column: replace.node.column)
  }

  /// Resolves the variables of every match read, now that every file's
  /// `global_vars` are known, and their nested matches, now that every
  /// trigger is.
  mutating func finish() {
    var resolved: [(snippet: Snippet, pending: Int)] = []
    for (index, match) in pending.enumerated() {
      if let snippet = resolve(match) { resolved.append((snippet, index)) }
    }
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

  private mutating func warn(_ match: Pending, _ message: String, _ kind: ConfigProblem.Kind) {
    warnings.append(
      ConfigProblem(file: match.file, line: match.line, column: match.column, message: message, kind: kind))
  }

  private mutating func fail(_ match: Pending, _ message: String) {
    problems.append(
      ConfigProblem(file: match.file, line: match.line, column: match.column, message: message, kind: .invalidMatch))
  }

  /// The snippet of a match: its variables in the order they are worked out
  /// (a regex's groups, the globals it reaches, its own), each reference
  /// split out. Nil, with a problem or a warning, when it cannot be.
  private mutating func resolve(_ match: Pending) -> Snippet? {
    var snippet = match.snippet
    var scope: [String: Int] = [:]
    func add(_ name: String, _ kind: SnippetVariable.Kind) {
      scope[name] = snippet.variables.count
      snippet.variables.append(SnippetVariable(name: name, kind: kind))
    }
    for name in match.captures { add(name, .capture) }
    // The globals, in the order they were defined, that the match reaches.
    let locals = Set(match.locals.map(\.name))
    let pulled = Set(match.locals.filter { if case .global = $0.definition { true } else { false } }.map(\.name))
    var needed = Set<String>()
    var queue = Self.references(in: match.replace).map(\.name) + pulled
    for (_, definition) in match.locals { queue += Self.references(of: definition) }
    while let name = queue.popLast() {
      guard globals[name] != nil, !needed.contains(name), !match.captures.contains(name) else { continue }
      if locals.contains(name) && !pulled.contains(name) { continue }  // a local of that name stands over it
      needed.insert(name)
      queue += Self.references(of: globals[name]!)
    }
    var used = Set(Self.references(in: match.replace).map(\.name))
    for (_, definition) in match.locals { used.formUnion(Self.references(of: definition)) }
    func define(_ name: String, _ definition: Definition, global: Bool) -> Bool {
      switch definition {
      case .global:
        guard let definition = globals[name] else {
          fail(match, "variable '\(name)' is of type global, but no global_vars entry defines it")
          return false
        }
        return define(name, definition, global: true)
      case .invalid(let origin):
        guard global || used.contains(name) || needed.contains(name) else { return true }
        if global {
          warn(
            match, "match skipped: it uses the global variable '\(name)', which was skipped (\(origin))",
            .dependsOnSkipped)
        }
        return false
      case .unsupported(let type, let origin):
        guard used.contains(name) || needed.contains(name) else {
          if !global {
            warn(match, "variable '\(name)' skipped: vkbd does not support type '\(type)'", .unsupported)
          }
          return true
        }
        let whose = global ? "the global variable '\(name)' (\(origin))" : "the variable '\(name)'"
        warn(
          match, "match skipped: it uses \(whose), of type '\(type)', which vkbd does not support", .dependsOnSkipped)
        return false
      case .ready(let raw, let injects):
        guard let kind = variable(raw, injects: injects, scope: scope, match: match) else { return false }
        add(name, kind)
        return true
      }
    }
    for name in globalOrder where needed.contains(name) && !locals.contains(name) {
      guard define(name, globals[name]!, global: true) else { return nil }
    }
    for (name, definition) in match.locals {
      guard define(name, definition, global: false) else { return nil }
    }
    guard let replacement = template(match.replace, scope: scope, match: match, strict: true) else { return nil }
    snippet.replacement = replacement
    return snippet
  }

  /// The names a definition's text parameters refer to (when it injects).
  private static func references(of definition: Definition) -> [String] {
    guard case .ready(let raw, let injects) = definition, injects else { return [] }
    return texts(of: raw).flatMap { references(in: $0).map(\.name) }
  }

  private mutating func variable(
    _ raw: Raw, injects: Bool, scope: [String: Int], match: Pending
  ) -> SnippetVariable.Kind? {
    func split(_ text: String) -> Template? {
      injects ? template(text, scope: scope, match: match, strict: false) : Template(text)
    }
    switch raw {
    case .date(let format, let offset, let locale):
      guard let format = split(format ?? "%a, %d %b %Y %H:%M:%S %z") else { return nil }
      return .date(format: format, offsetSeconds: offset, locale: locale)
    case .echo(let text): return split(text).map { .echo($0) }
    case .random(let choices):
      let templates = choices.compactMap(split)
      return templates.count == choices.count ? .random(templates) : nil
    case .match(let trigger): return .match(trigger: trigger)
    case .shell(let command, let shell, let trim, let debug):
      return split(command).map { .session(.shell(command: $0, shell: shell, trim: trim, debug: debug)) }
    case .script(let arguments, let trim):
      let templates = arguments.compactMap(split)
      return templates.count == arguments.count ? .session(.script(arguments: templates, trim: trim)) : nil
    case .clipboard: return .session(.clipboard)
    case .choice(let choices): return .session(.choice(choices))
    case .form(let layout, let fields):
      return split(layout).map { .session(.form(layout: $0, fields: fields)) }
    }
  }

  /// A reference in a text: `{{name}}` or `{{name.field}}`, with word
  /// characters and optional spaces inside the braces (espanso's rule; any
  /// other `{{…}}` is text).
  struct Reference: Equatable {
    var range: Range<String.Index>
    var name: String
    var field: String?
  }

  /// The references in `text`, in order.
  static func references(in text: String) -> [Reference] {
    var result: [Reference] = []
    var rest = Substring(text)
    while let open = firstRange(of: "{{", in: rest) {
      guard let close = firstRange(of: "}}", in: rest[open.upperBound...]) else { break }
      let inside = rest[open.upperBound..<close.lowerBound].trimmingSpaces
      let parts = inside.split(separator: ".", omittingEmptySubsequences: false)
      if (1...2).contains(parts.count),
        parts.allSatisfy({ !$0.isEmpty && $0.unicodeScalars.allSatisfy(isWordCharacter) })
      {
        result.append(
          Reference(
            range: open.lowerBound..<close.upperBound, name: String(parts[0]),
            field: parts.count == 2 ? String(parts[1]) : nil))
        rest = rest[close.upperBound...]
      } else {
        rest = rest[rest.index(after: open.lowerBound)...]  // `{{{x}}`: the reference may start one brace later
      }
    }
    return result
  }

  static func isWordCharacter(_ character: Unicode.Scalar) -> Bool {
    character == "_" || character.properties.isAlphabetic || character.properties.numericType == .decimal
  }

  /// Splits a text at its references to the variables in `scope`. In the
  /// replacement (`strict`), a reference to no variable is an error; in a
  /// parameter it stays as text. espanso's escapes `\{\{` and `\}\}` are
  /// braces. A text with no reference is not unescaped (as in espanso).
  private mutating func template(
    _ text: String, scope: [String: Int], match: Pending, strict: Bool
  ) -> Template? {
    let references = Self.references(in: text)
    guard !references.isEmpty else { return Template(text) }
    var parts: [Template.Part] = []
    var position = text.startIndex
    func literal(_ text: Substring) {
      guard !text.isEmpty else { return }
      let unescaped = String(text).replacing("\\{\\{", with: "{{").replacing("\\}\\}", with: "}}")
      if case .text(let before)? = parts.last {
        parts[parts.count - 1] = .text(before + unescaped)
      } else {
        parts.append(.text(unescaped))
      }
    }
    for reference in references {
      literal(text[position..<reference.range.lowerBound])
      position = reference.range.upperBound
      guard let index = scope[reference.name] else {
        if strict {
          // espanso loads it and fails it when it fires.
          warn(
            match, "match skipped: replace uses {{\(reference.name)}}, which no vars entry defines", .undefinedVariable)
          return nil
        }
        literal(text[reference.range])
        continue
      }
      parts.append(.value(index, field: reference.field))
    }
    literal(text[position...])
    return Template(parts: parts)
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

  // MARK: - Forms

  /// The `[[field]]` names of a form's layout, in order, once each.
  static func formFieldNames(_ layout: String) -> [String] {
    var names: [String] = []
    for hole in formHoles(layout) where !names.contains(hole.name) { names.append(hole.name) }
    return names
  }

  private static func formHoles(_ layout: String) -> [(range: Range<String.Index>, name: String)] {
    var result: [(Range<String.Index>, String)] = []
    var rest = Substring(layout)
    while let open = firstRange(of: "[[", in: rest), let close = firstRange(of: "]]", in: rest[open.upperBound...]) {
      let name = rest[open.upperBound..<close.lowerBound].trimmingSpaces
      if !name.isEmpty && name.unicodeScalars.allSatisfy(isWordCharacter) {
        result.append((open.lowerBound..<close.upperBound, String(name)))
        rest = rest[close.upperBound...]
      } else {
        rest = rest[rest.index(after: open.lowerBound)...]
      }
    }
    return result
  }

  /// The replacement of a `form:` match: its layout with each `[[field]]`
  /// the form variable's field.
  static func formReplacement(_ layout: String, variable: String) -> String {
    var result = ""
    var position = layout.startIndex
    for hole in formHoles(layout) {
      result += layout[position..<hole.range.lowerBound]
      result += "{{\(variable).\(hole.name)}}"
      position = hole.range.upperBound
    }
    return result + layout[position...]
  }

  private func readFormFields(_ node: YAMLNode, reader: inout YAMLReader) -> [String: SessionCall.FormField] {
    guard case .mapping(let mapping) = node.content else {
      reader.report("form fields must be a mapping of field names to their settings", at: node)
      return [:]
    }
    var fields: [String: SessionCall.FormField] = [:]
    for (keyNode, value) in mapping {
      guard let name = reader.string(keyNode, key: "form field") else { continue }
      var field = SessionCall.FormField(name: name)
      if Self.isEmpty(value) {  // `title:`: a text field with no settings
        fields[name] = field
        continue
      }
      guard case .mapping = value.content else {
        reader.warn("form field '\(name)' ignored: its settings must be a mapping", at: value, kind: .unknownKey)
        continue
      }
      guard
        let entries = reader.entries(
          of: value, named: "form field \(name)",
          allowed: ["type", "values", "default", "multiline", "trim_string_values"])
      else { continue }
      for (key, setting) in entries {
        switch key {
        case "values": field.choices = readChoices(setting, key: "values", reader: &reader).map(\.id)
        case "default": field.defaultValue = reader.string(setting, key: "default") ?? ""
        case "type": _ = reader.string(setting, key: "type")
        default: _ = reader.bool(setting, key: key)
        }
      }
      fields[name] = field
    }
    return fields
  }

  // MARK: - Variables

  private func readVariables(
    _ node: YAMLNode, key: String, reader: inout YAMLReader
  ) -> [(name: String, definition: Definition)] {
    guard case .sequence(let sequence) = node.content else {
      reader.report("\(key) must be a list", at: node)
      return []
    }
    var result: [(name: String, definition: Definition)] = []
    for item in sequence {
      guard let entries = reader.entries(of: item, named: key, allowed: Self.variableKeys) else { continue }
      var name: String?
      var type: String?
      var params: YAMLNode?
      var injects = true
      for (field, value) in entries {
        switch field {
        case "name": name = reader.string(value, key: "\(key).name")
        case "type": type = reader.string(value, key: "\(key).type")
        case "params": params = value
        case "inject_vars": injects = reader.bool(value, key: "\(key).inject_vars") ?? true
        default: break  // depends_on: vkbd works variables out in order
        }
      }
      guard let name, let type else {
        reader.report("a variable needs name: and type:", at: item)
        continue
      }
      let origin = "\(reader.file):\(item.line)"
      let problemsBefore = reader.problems.count
      let definition = readVariable(type: type, params: params, reader: &reader, at: item)
      if reader.problems.count > problemsBefore || definition == nil {
        result.append((name, .invalid(origin: origin)))
      } else if let definition {
        switch definition {
        case .ready(let raw, _): result.append((name, .ready(raw, injects: injects)))
        case .unsupported(let type, _): result.append((name, .unsupported(type: type, origin: origin)))
        default: result.append((name, definition))
        }
      }
    }
    return result
  }

  private func readVariable(type: String, params: YAMLNode?, reader: inout YAMLReader, at node: YAMLNode) -> Definition?
  {
    let allowed: [String]
    switch type {
    case "date": allowed = ["format", "offset", "locale", "tz"]
    case "echo", "dummy": allowed = ["echo"]
    case "random": allowed = ["choices"]
    case "match": allowed = ["trigger"]
    case "shell": allowed = ["cmd", "shell", "trim", "debug", "macos_override_path"]
    case "script": allowed = ["args", "trim", "debug", "ignore_error"]
    case "clipboard": allowed = []
    case "choice": allowed = ["values"]
    case "form": allowed = ["layout", "fields"]
    case "global": return .global
    default: return .unsupported(type: type, origin: "")
    }
    var values: [String: YAMLNode] = [:]
    if let params, !Self.isEmpty(params) {
      guard case .mapping(let mapping) = params.content else {
        reader.report("params must be a mapping of keys to values", at: params)
        return nil
      }
      for (keyNode, value) in mapping {
        guard case .scalar(let key, _) = keyNode.content else { continue }
        if allowed.contains(key) {
          values[key] = value
        } else {  // espanso ignores what a variable does not read
          reader.warn("params: unknown key '\(key)' of a \(type) variable ignored", at: keyNode, kind: .unknownKey)
        }
      }
    }
    func text(_ key: String) -> String? { values[key].flatMap { reader.text($0, key: "params.\(key)") } }
    func flag(_ key: String, _ otherwise: Bool) -> Bool {
      values[key].flatMap { reader.bool($0, key: "params.\(key)") } ?? otherwise
    }
    func required(_ key: String) -> String? {
      guard values[key] != nil else {
        reader.report("a \(type) variable needs params.\(key)", at: node)
        return nil
      }
      return text(key)
    }
    switch type {
    case "date":
      let offset = values["offset"].flatMap {
        reader.integer($0, key: "params.offset", in: -3_153_600_000...3_153_600_000)
      }
      if values["tz"] != nil {
        return .unsupported(type: "date with tz", origin: "")
      }
      let locale = text("locale")
      if let locale, !DateLocale.isInstalled(locale) {
        reader.warn(
          "date locale '\(locale)' is not installed on this system (package locales-all): English names are used",
          at: values["locale"], kind: .unsupported)
      }
      return .ready(.date(format: text("format"), offset: offset ?? 0, locale: locale), injects: true)
    case "echo", "dummy":
      return required("echo").map { .ready(.echo($0), injects: true) }
    case "random":
      let choices = (values["choices"].flatMap { reader.list($0, key: "params.choices") } ?? []).compactMap {
        reader.string($0, key: "params.choices")
      }
      guard !choices.isEmpty else {
        reader.report("a random variable needs params.choices", at: node)
        return nil
      }
      return .ready(.random(choices), injects: true)
    case "match":
      return required("trigger").map { .ready(.match(trigger: $0), injects: true) }
    case "shell":
      guard let command = required("cmd") else { return nil }
      let shell = text("shell")
      if let shell, !Self.shells.contains(shell) {
        return .unsupported(type: "shell with shell '\(shell)'", origin: "")
      }
      return .ready(
        .shell(command: command, shell: shell, trim: flag("trim", true), debug: flag("debug", false)), injects: true)
    case "script":
      let arguments = (values["args"].flatMap { reader.list($0, key: "params.args") } ?? []).compactMap {
        reader.string($0, key: "params.args")
      }
      guard !arguments.isEmpty else {
        reader.report("a script variable needs params.args (the program and its arguments)", at: node)
        return nil
      }
      _ = flag("debug", false)
      _ = flag("ignore_error", false)
      return .ready(.script(arguments: arguments, trim: flag("trim", true)), injects: true)
    case "clipboard":
      return .ready(.clipboard, injects: true)
    case "choice":
      guard let node = values["values"] else {
        reader.report("a choice variable needs params.values", at: node)
        return nil
      }
      let choices = readChoices(node, key: "params.values", reader: &reader)
      return choices.isEmpty ? nil : .ready(.choice(choices), injects: true)
    default:  // form
      guard let layout = required("layout") else { return nil }
      let fields = values["fields"].map { readFormFields($0, reader: &reader) } ?? [:]
      let names = Self.formFieldNames(layout)
      return .ready(
        .form(layout: layout, fields: names.map { fields[$0] ?? SessionCall.FormField(name: $0) }), injects: true)
    }
  }

  /// A choice's values: lines of a text, a list of texts, or a list of
  /// `{label, id}`.
  private func readChoices(_ node: YAMLNode, key: String, reader: inout YAMLReader) -> [SessionCall.Choice] {
    if case .scalar(let text, _) = node.content {
      return text.split(separator: "\n").map { $0.trimmingSpaces }.filter { !$0.isEmpty }.map {
        SessionCall.Choice(label: String($0), id: String($0))
      }
    }
    var choices: [SessionCall.Choice] = []
    for item in reader.list(node, key: key) ?? [] {
      if case .mapping = item.content {
        guard let entries = reader.entries(of: item, named: key, allowed: ["label", "id"]) else { continue }
        var label: String?
        var id: String?
        for (field, value) in entries {
          if field == "label" {
            label = reader.string(value, key: "\(key).label")
          } else {
            id = reader.string(value, key: "\(key).id")
          }
        }
        guard let label, let id else {
          reader.report("a choice needs both label: and id:", at: item)
          continue
        }
        choices.append(SessionCall.Choice(label: label, id: id))
      } else if let text = reader.string(item, key: key) {
        choices.append(SessionCall.Choice(label: text, id: text))
      }
    }
    return choices
  }

  /// The parameters that are text, where references may stand.
  private static func texts(of raw: Raw) -> [String] {
    switch raw {
    case .date(let format, _, _): return format.map { [$0] } ?? []
    case .echo(let text): return [text]
    case .random(let choices): return choices
    case .match, .clipboard, .choice: return []
    case .shell(let command, _, _, _): return [command]
    case .script(let arguments, _): return arguments
    case .form(let layout, _): return [layout]
    }
  }

  /// The members of a YAML set (`{a, b}`: a mapping whose values are all
  /// null); nil when `node` is not one.
  static func setMembers(_ node: YAMLNode) -> [YAMLNode]? {
    guard case .mapping(let mapping) = node.content, mapping.allSatisfy({ isEmpty($0.value) }) else { return nil }
    return mapping.map(\.key)
  }

  private static func isEmpty(_ node: YAMLNode) -> Bool {
    if case .scalar(let text, plain: true) = node.content { return text.isEmpty || text == "null" }
    return false
  }
}
