/// Snippet expansion (DESIGN 3.5), owned by the engine: it matches the
/// triggers a key completes, works out the snippet's variables (asking the
/// user's session for those only it can give), types the replacement in
/// bursts with timer waits between them, and undoes it on the next
/// Backspace. Its state is its own; it reaches the keyboard and the text
/// through the engine (``KeyboardHost``).
final class Expander {
  /// The snippets and their trigger trie.
  let snippets: SnippetMatcher
  /// Whether each match file (by the table's number) is left out here;
  /// empty when none is.
  private var fileOff: [Bool] = []
  /// The working memory of regex trigger searches.
  private let regexScratch = RegexScratch()
  /// Text the engine is typing itself, burst by burst.
  var typing = TypingQueue()
  /// The expansion waiting for the session's answer.
  var waiting: WaitingExpansion? {
    didSet {
      waitingDeadline = waiting?.deadline
      keysWait = waiting.map { !$0.passesKeys } ?? false
    }
  }
  /// Of ``waiting``, read on every key: kept apart, as reading the optional
  /// struct itself copies it (its arrays retained and released).
  private(set) var waitingDeadline: Instant?
  /// Whether keys wait for the session's answer (they go to a dialog once
  /// it has the keyboard).
  private(set) var keysWait = false
  /// The expansion of a trigger several snippets share, while the picker
  /// offers them.
  private var menu: WaitingExpansion?
  /// What Backspace undoes when it is the very next key after an expansion.
  var undo: ExpansionUndo?
  /// The last expansion, while plain characters follow it.
  var chain: ExpansionChain?
  /// Snippets whose refusal was already reported.
  private var refused: Set<Int> = []
  /// The id of the last question to the session.
  private var lastRequest: UInt32 = 0

  init(snippets: SnippetMatcher, filesOff: Set<String>) {
    self.snippets = snippets
    leaveOut(filesOff)
  }

  /// The snippets of the files `filesOff` do not fire.
  func leaveOut(_ filesOff: Set<String>) {
    fileOff = filesOff.isEmpty ? [] : snippets.snippets.files.map { filesOff.contains($0) }
  }

  /// Whether the snippet at `index` comes from a match file left out here.
  private func isOff(_ index: Int) -> Bool {
    !fileOff.isEmpty && fileOff[snippets.snippets.fileNumber(at: index)]
  }

  /// Whether planned keys are still to go out, or an expansion waits.
  var isTyping: Bool { typing.isActive }
  var isWaiting: Bool { waiting != nil }
  var typingDeadline: Instant? { typing.deadline }

  /// Forgets the undo and the chain: another key or a reset came.
  func cancelAids() {
    undo = nil
    chain = nil
  }

  /// Takes the undo the next key may make, which only that key may make.
  func takeUndo() -> ExpansionUndo? {
    defer { undo = nil }
    return undo
  }

  /// Stops typing and waiting (release-all, shutdown).
  func cancelAll() {
    typing.cancel()
    waiting = nil
    menu = nil
  }

  /// Follows an edit of the application's text: characters typed after
  /// the last expansion keep its chain, any other edit ends it.
  func noteEdit(_ edit: TextEdit) {
    guard chain != nil else { return }
    if case .insert = edit { chain!.suffix += 1 } else if edit != .none { chain = nil }
  }

  func nextRequest() -> UInt32 {
    lastRequest &+= 1
    return lastRequest
  }

  // MARK: - Firing

  /// Expands the longest trigger that `next` completes, on the text model or
  /// through the last expansion (``ExpansionChain``). False when none fires.
  func expand(
    _ code: UInt16, next: Unicode.Scalar, at time: Instant, host: some KeyboardHost, into output: inout KeyOutput
  ) -> Bool {
    guard snippets.mayComplete(with: next) else { return false }  // the text is not even copied
    let text = host.text
    let plain = snippets.match(next: next, after: text)
    if let chain, text.count >= chain.suffix + chain.shown {
      let view = TextBeforeExpansion(text: text, chain: chain)
      if let longer = snippets.match(next: next, after: view),
        longer.typedLength >= chain.suffix + chain.typed.count,
        longer.typedLength > plain?.typedLength ?? -1
      {
        let modelLength = longer.typedLength - chain.typed.count + chain.shown
        return start(longer, in: view, modelLength: modelLength, key: code, next: next, at: time, host, &output)
      }
    }
    if let plain {
      return start(plain, in: text, modelLength: plain.typedLength, key: code, next: next, at: time, host, &output)
    }
    guard snippets.hasRegexes, snippets.mayMatchRegex(endingWith: next) else { return false }
    // The prefilters read the text in place; a search takes a copy of it.
    var present = text.typedCharacterBits(last: SnippetMatcher.regexWindow - 1)
    present.insert(next)
    guard snippets.mayMatchRegex(endingWith: next, present: present),
      let found = snippets.matchRegex(next: next, after: text, present: present, scratch: regexScratch)
    else {
      return false
    }
    return start(found, in: text, modelLength: found.typedLength, key: code, next: next, at: time, host, &output)
  }

  /// Starts the expansion of `match`, whose last key `code` is going down.
  /// False, with nothing emitted, when the replacement cannot be typed.
  /// `view` is what the trigger was matched on; the last `modelLength`
  /// characters of the text model are what it covers on the screen.
  private func start(
    _ match: SnippetMatcher.Match, in view: some MatchableText, modelLength: Int, key code: UInt16,
    next: Unicode.Scalar, at time: Instant, _ host: some KeyboardHost, _ output: inout KeyOutput
  ) -> Bool {
    // A snippet of a match file left out here does not fire (a shorter
    // trigger it stands over does not either: a rare case, left as it is).
    if isOff(match.snippet) { return false }
    var typed: [Unicode.Scalar] = []
    for offset in stride(from: match.typedLength - 1, through: 0, by: -1) {
      typed.append(view[typedFromEnd: offset])
    }
    if !match.endsWithSeparator { typed.append(next) }
    var inputs = host.world.variableInputs()
    inputs.captures = snippets.captures(of: match, scratch: regexScratch)
    let expansion = WaitingExpansion(
      match: match, inputs: inputs, typed: typed, modelLength: modelLength,
      capitalized: match.typedLength > 0 && view.isAutoCapitalized(fromEnd: match.typedLength - 1),
      key: code, next: next,
      deadline: time.adding(milliseconds: host.configuration.expansion.sessionTimeoutMilliseconds))
    // espanso's search_trigger: the trigger goes, then the picker opens
    // on every snippet (where it cannot be shown, the trigger just goes).
    if snippets.snippets.flags(at: match.snippet).contains(.opensSearch) {
      guard case .typed = proceed(expansion, at: time, host, &output) else { return false }
      host.swallowRelease(of: code, true)
      _ = host.openSearch(into: &output)
      return true
    }
    // A trigger several snippets share opens the picker on them, when it
    // can be shown; else the first fires.
    if let shared = snippets.sharing(match) {
      let offered = fileOff.isEmpty ? shared : shared.filter { !isOff($0) }
      if offered.count > 1 && host.openMenu(offered, trigger: String(scalars: typed), into: &output) {
        var offering = expansion
        offering.inMenu = true
        menu = offering
        host.swallowRelease(of: code, true)
        return true
      }
    }
    switch proceed(expansion, at: time, host, &output) {
    case .typed, .waiting:
      host.swallowRelease(of: code, true)
      return true
    case .failed:
      return false
    }
  }

  /// The picker closed on the trigger's menu: `chosen` fires in place of
  /// the trigger, or with none the trigger stays as typed.
  func closeMenu(choosing chosen: Int?, at now: Instant, host: some KeyboardHost, into output: inout KeyOutput) {
    guard var expansion = menu.take() else { return }
    guard let chosen else { return giveUp(expansion, at: now, host, &output) }
    expansion.match.snippet = chosen
    expansion.deadline = now.adding(milliseconds: host.configuration.expansion.sessionTimeoutMilliseconds)
    finish(expansion, at: now, host, &output)
  }

  /// Expands snippet `index`, chosen in the picker's search, at the cursor:
  /// as its trigger would, with nothing to delete. `code` is the key that
  /// chose it (its release is the picker's).
  func insert(_ index: Int, key code: UInt16, at now: Instant, host: some KeyboardHost, into output: inout KeyOutput) {
    var expansion = WaitingExpansion(
      match: SnippetMatcher.Match(snippet: index, typedLength: 0, endsWithSeparator: false),
      inputs: host.world.variableInputs(), typed: [],
      modelLength: 0, capitalized: false, key: code, next: "\n",
      deadline: now.adding(milliseconds: host.configuration.expansion.sessionTimeoutMilliseconds))
    expansion.fromPicker = true
    finish(expansion, at: now, host, &output)
  }

  /// Works out and types `expansion` outside a key's handling: the keys that
  /// waited go after it, and when it cannot be typed it is given up.
  func finish(
    _ expansion: WaitingExpansion, at now: Instant, _ host: some KeyboardHost, _ output: inout KeyOutput
  ) {
    switch proceed(expansion, at: now, host, &output) {
    case .waiting: return
    case .typed: if !typing.isActive { host.keysMayGo(at: now, into: &output) }
    case .failed: giveUp(expansion, at: now, host, &output)
    }
  }

  private enum Step { case typed, waiting, failed }

  /// Works out the snippet's variables: asks the session for the next one
  /// it needs, or types the expansion when all are known.
  private func proceed(
    _ expansion: WaitingExpansion, at time: Instant, _ host: some KeyboardHost, _ output: inout KeyOutput
  ) -> Step {
    let snippet = snippets.snippets[expansion.match.snippet]
    let (values, needed) = snippet.evaluate(expansion.inputs, nested: { self.snippets.snippet(forTrigger: $0) })
    if let needed, let call = snippet.sessionCall(needed, values: values) {
      return ask(call, for: expansion, variable: needed, values: values, at: time, host)
    }
    var rendered = snippet.render(typed: expansion.typed, values: values)
    // The trigger's first letter was capitalized at a sentence start: so is
    // the replacement's.
    if expansion.capitalized,
      let first = rendered.text.firstIndex(where: { $0.properties.isAlphabetic }),
      rendered.text[first].properties.isLowercase,
      case let capital = rendered.text[first].properties.uppercaseMapping.unicodeScalars,
      capital.count == 1
    {
      rendered.text[first] = capital[capital.startIndex]
    }
    var typed = expansion.typed
    if expansion.match.endsWithSeparator {
      typed.append(expansion.next)
      rendered.text.append(expansion.next)
      if rendered.charactersAfterCursor > 0 { rendered.charactersAfterCursor += 1 }
    }
    let text = host.text
    // What is on the screen already and starts the replacement stays.
    let kept =
      expansion.passesKeys ? 0 : EditPlanner.sharedStart(of: rendered, withLast: expansion.modelLength, of: text)
    let deleted =
      expansion.passesKeys
      ? expansion.screenLength : EditPlanner.graphemeCount(typedLengthOf: expansion.modelLength - kept, in: text)
    let remaining = RenderedSnippet(
      text: Array(rendered.text[kept...]), charactersAfterCursor: rendered.charactersAfterCursor)
    let chainable = !expansion.match.endsWithSeparator && rendered.charactersAfterCursor == 0 && !expansion.fromPicker
    let undoLength = rendered.text.count - rendered.charactersAfterCursor
    // A long text goes through the clipboard, when the session can put it
    // there: the keys wait until it does.
    let threshold = host.configuration.expansion.clipboardThreshold
    if threshold > 0, remaining.text.count > threshold, !expansion.typesInstead, expansion.paste == nil {
      var pasting = expansion
      pasting.request = nextRequest()
      pasting.paste = (deleted, remaining)
      pasting.isDialog = false
      pasting.passesKeys = false
      pasting.deadline = time.adding(milliseconds: host.configuration.expansion.sessionTimeoutMilliseconds)
      waiting = pasting
      let text = { String(scalars: remaining.text) }  // made only when an agent is there to take it
      if host.ask(SessionRequest(id: pasting.request, call: .paste(text()), environment: [:])) { return .waiting }
      waiting = nil  // no agent: typed
    }
    chain = nil
    let edit = expansion.paste ?? (deleted, remaining)
    let planner = host.editPlanner()
    guard
      let plan = expansion.paste != nil
        ? planner.pasting(deleting: edit.deleted, edit.text)
        : planner.typing(deleting: edit.deleted, forward: 0, edit.text)
    else {
      if refused.insert(expansion.match.snippet).inserted {
        host.notice(.expansionRefused(origin: snippet.origin, layout: host.layout.names.description))
      }
      return .failed
    }
    host.planned(deleting: edit.deleted, inserting: edit.text.text.dropLast(edit.text.charactersAfterCursor))
    undo = ExpansionUndo(before: undoLength, after: rendered.charactersAfterCursor, typed: typed)
    // Typing on may complete a longer trigger that runs through this one.
    if chainable && host.text.count >= undoLength {
      chain = ExpansionChain(typed: typed, shown: undoLength)
    }
    startTyping(plan, at: time, host, &output)
    if expansion.paste != nil {
      _ = host.ask(SessionRequest(id: nextRequest(), call: .restoreClipboard, environment: [:]))
    }
    return .typed
  }

  /// Asks the session for a variable's value; the expansion waits. A dialog
  /// gets the keys once its window has the keyboard (``dialogShown(_:at:host:into:)``).
  private func ask(
    _ call: SessionCall, for expansion: WaitingExpansion, variable: Int, values: [VariableValue?], at time: Instant,
    _ host: some KeyboardHost
  ) -> Step {
    let snippet = snippets.snippets[expansion.match.snippet]
    var asking = expansion
    asking.request = nextRequest()
    asking.variable = variable
    switch call {
    case .choice, .form:
      if !asking.isDialog {
        asking.isDialog = true
        asking.screenLength = EditPlanner.graphemeCount(typedLengthOf: expansion.modelLength, in: host.text)
      }
      // Until its window has the keyboard, the keys wait for it.
      asking.passesKeys = false
      asking.deadline = time.adding(milliseconds: host.configuration.expansion.sessionTimeoutMilliseconds)
    default: break
    }
    waiting = asking
    var environment: [String: String] = [:]
    for (index, variable) in snippet.variables.enumerated() {
      guard let value = values[index] else { continue }
      let name = "ESPANSO_" + variable.name.uppercased()
      environment[name] = value.text
      for (field, text) in value.fields { environment[name + "_" + field.uppercased()] = text }
    }
    guard host.ask(SessionRequest(id: asking.request, call: call, environment: environment)) else {
      waiting = nil
      host.notice(.sessionVariableFailed(origin: snippet.origin, reason: .noAgent))
      return .failed
    }
    return .waiting
  }
}
