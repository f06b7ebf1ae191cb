import KeyboardEngine

/// A match read, waiting for every file's `global_vars` (they are global,
/// as in espanso: a file may use one that a later file defines).
struct PendingMatch {
  var snippet: Snippet
  var replace: String
  /// The regex's named groups, which are variables.
  var captures: [String]
  var locals: [(name: String, definition: VariableDefinition)]
  /// Where `replace:` is, for problems.
  var file: String
  var line: Int
  var column: Int
  /// The line where the match starts: the snippet's origin.
  var originLine: Int

  /// The snippet as it is, when there is nothing to work out once every
  /// file is read: no variable, no regex group, no reference in the
  /// replacement (``MatchResolver`` would leave it as it is).
  var finished: Snippet? {
    guard locals.isEmpty, captures.isEmpty, !Templates.mayHaveReferences(replace) else { return nil }
    var finished = snippet
    finished.replacement = Template(replace)
    return finished
  }

  /// A problem of the match, at its `replace:`.
  func problem(_ message: String, _ kind: ConfigProblem.Kind) -> ConfigProblem {
    ConfigProblem(file: file, line: line, column: column, message: message, kind: kind)
  }
}

/// Reads the matches of espanso's match files (and the config's inline
/// `matches:`), in its vocabulary: triggers, regex, replace or form, the
/// word options, case, label and variables.
enum MatchReader {
  static let maximumReplacementLength = 65_536
  static let matchKeys: Set<String> = [
    "trigger", "triggers", "regex", "replace", "form", "form_fields", "word", "left_word", "right_word",
    "propagate_case", "uppercase_style", "label", "vars", "search_terms", "force_clipboard", "force_mode",
    "paragraph",
  ]
  /// espanso's match kinds that vkbd does not type: skipped with a warning.
  static let unsupportedMatchKeys: Set<String> = ["image_path", "html", "markdown", "passive_only"]

  /// One match of a list; nil, with what is wrong reported, when it is
  /// left out.
  static func read(_ node: YAMLNode, reader: inout YAMLReader) -> PendingMatch? {
    guard case .mapping(let mapping) = node.content else {
      reader.report("a match must be a mapping of keys to values", at: node, kind: .invalidMatch)
      return nil
    }
    var entries: [(key: String, value: YAMLNode)] = []
    entries.reserveCapacity(mapping.count)
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
    var variables: [(name: String, definition: VariableDefinition)] = []
    var snippet = Snippet(triggers: [], replacement: Template(""), origin: "")  // the table keeps the origin
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
      case "vars": variables += VariableReader.read(value, key: key, reader: &reader)
      case "force_clipboard", "paragraph": _ = reader.bool(value, key: key)
      case "force_mode": _ = reader.string(value, key: key)
      case "search_terms":
        for item in reader.list(value, key: key) ?? [] {
          if let term = reader.string(item, key: key) { snippet.searchTerms.append(term) }
        }
      default: preconditionFailure("key \(key) is allowed but not read")
      }
    }
    // A specific key wins over `word`.
    snippet.leftWord = leftWord ?? word ?? false
    snippet.rightWord = rightWord ?? word ?? false
    if let form, replace == nil {
      // espanso's shorthand: a form variable `form1` of the layout, and a
      // replacement that is the layout with each [[field]] its value.
      let fields = formFields.map { VariableReader.formFields($0, reader: &reader) } ?? [:]
      let names = Templates.formFieldNames(form.text)
      let raw = RawVariable.form(
        layout: form.text, fields: names.map { fields[$0] ?? SessionCall.FormField(name: $0) })
      variables.append(("form1", .ready(raw, injects: true)))
      replace = (Templates.formReplacement(form.text, variable: "form1"), form.node)
    }
    // A match with no trigger and no regex is found in the picker only
    // (as espanso's search bar finds it).
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
      // Its UTF-8 bytes are enough when few: as many as its characters or more.
      let bytes = trigger.utf8.count
      let length = bytes <= SnippetMatcher.maximumTriggerLength ? bytes : trigger.unicodeScalars.count
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
    if replace.text.utf8.count > Self.maximumReplacementLength
      && replace.text.unicodeScalars.count > Self.maximumReplacementLength
    {
      reader.report(
        "replace is longer than \(Self.maximumReplacementLength) characters", at: replace.node, kind: .invalidMatch)
    }
    guard reader.problems.count == problemsBefore else { return nil }
    snippet.triggers = triggers
    return PendingMatch(
      snippet: snippet, replace: replace.text, captures: captures, locals: variables, file: reader.file,
      line: replace.node.line, column: replace.node.column, originLine: node.line)
  }

  /// The members of a YAML set (`{a, b}`: a mapping whose values are all
  /// null); nil when `node` is not one.
  static func setMembers(_ node: YAMLNode) -> [YAMLNode]? {
    guard case .mapping(let mapping) = node.content, mapping.allSatisfy({ isEmpty($0.value) }) else { return nil }
    return mapping.map(\.key)
  }

  static func isEmpty(_ node: YAMLNode) -> Bool {
    if case .scalar(let text, plain: true) = node.content { return text.isEmpty || text == "null" }
    return false
  }
}
