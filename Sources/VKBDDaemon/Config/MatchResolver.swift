import KeyboardEngine

/// Works out each match's variables once every file's `global_vars` are
/// known: the order they are worked out in (a regex's groups, the globals
/// the match reaches, its own), each text split at its references, and
/// what leaves a match out (a variable it uses that is skipped, unsupported
/// or undefined), reported at the match.
struct MatchResolver {
  let globals: [String: VariableDefinition]
  let globalOrder: [String]
  /// Errors and warnings, each at its match.
  private(set) var problems: [ConfigProblem] = []
  private(set) var warnings: [ConfigProblem] = []

  init(globals: [String: VariableDefinition], globalOrder: [String]) {
    self.globals = globals
    self.globalOrder = globalOrder
  }

  /// The snippet of a match: its variables in the order they are worked out
  /// (a regex's groups, the globals it reaches, its own), each reference
  /// split out. Nil, with a problem or a warning, when it cannot be.
  mutating func resolve(_ match: PendingMatch) -> Snippet? {
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
    var queue = Templates.references(in: match.replace).map(\.name) + pulled
    for (_, definition) in match.locals { queue += Self.references(of: definition) }
    while let name = queue.popLast() {
      guard globals[name] != nil, !needed.contains(name), !match.captures.contains(name) else { continue }
      if locals.contains(name) && !pulled.contains(name) { continue }  // a local of that name stands over it
      needed.insert(name)
      queue += Self.references(of: globals[name]!)
    }
    var used = Set(Templates.references(in: match.replace).map(\.name))
    for (_, definition) in match.locals { used.formUnion(Self.references(of: definition)) }
    func define(_ name: String, _ definition: VariableDefinition, global: Bool) -> Bool {
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
  private static func references(of definition: VariableDefinition) -> [String] {
    guard case .ready(let raw, let injects) = definition, injects else { return [] }
    return VariableReader.texts(of: raw).flatMap { Templates.references(in: $0).map(\.name) }
  }

  private mutating func variable(
    _ raw: RawVariable, injects: Bool, scope: [String: Int], match: PendingMatch
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

  /// ``Templates/split(_:scope:strict:)``, a reference to no variable in
  /// the replacement reported (espanso loads such a match and fails it
  /// when it fires).
  private mutating func template(
    _ text: String, scope: [String: Int], match: PendingMatch, strict: Bool
  ) -> Template? {
    switch Templates.split(text, scope: scope, strict: strict) {
    case .success(let template): return template
    case .failure(let undefined):
      warn(match, "match skipped: replace uses {{\(undefined.name)}}, which no vars entry defines", .undefinedVariable)
      return nil
    }
  }

  private mutating func warn(_ match: PendingMatch, _ message: String, _ kind: ConfigProblem.Kind) {
    warnings.append(match.problem(message, kind))
  }

  private mutating func fail(_ match: PendingMatch, _ message: String) {
    problems.append(match.problem(message, .invalidMatch))
  }
}
