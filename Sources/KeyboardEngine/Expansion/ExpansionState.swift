/// The last expansion, while the user types plain characters after it: a
/// trigger that starts before its end (`my` expanded, then `self` typed
/// completes `myself`) is matched on what the user typed, not on the
/// replacement. espanso fires the first complete trigger, so there `my`
/// shadows `myself`; here the longer one takes the shorter one's place.
struct ExpansionChain {
  /// The trigger as the user typed it.
  var typed: [Unicode.Scalar]
  /// The replacement's characters in the text model.
  var shown: Int
  /// Characters typed since, at the end of the model.
  var suffix = 0
}

/// The text model with the last expansion's replacement seen as the trigger
/// the user typed (see ``ExpansionChain``).
struct TextBeforeExpansion: MatchableText {
  let text: TextModel
  let chain: ExpansionChain

  var count: Int { text.count - chain.shown + chain.typed.count }
  var isTruncated: Bool { text.isTruncated }

  /// Where `offset` falls: in the model (its offset there), or in the trigger.
  private func place(_ offset: Int) -> (model: Int?, typed: Int) {
    if offset < chain.suffix { return (offset, 0) }
    let intoTrigger = offset - chain.suffix
    if intoTrigger < chain.typed.count { return (nil, chain.typed.count - 1 - intoTrigger) }
    return (offset - chain.typed.count + chain.shown, 0)
  }

  subscript(fromEnd offset: Int) -> Unicode.Scalar {
    let place = place(offset)
    return place.model.map { text[fromEnd: $0] } ?? chain.typed[place.typed]
  }

  subscript(typedFromEnd offset: Int) -> Unicode.Scalar {
    let place = place(offset)
    return place.model.map { text[typedFromEnd: $0] } ?? chain.typed[place.typed]
  }

  func isAutoCapitalized(fromEnd offset: Int) -> Bool {
    place(offset).model.map { text.isAutoCapitalized(fromEnd: $0) } ?? false
  }
}

/// What Backspace as the very next key after an expansion undoes.
struct ExpansionUndo {
  /// Characters of the replacement before the cursor, and after it.
  var before: Int
  var after: Int
  /// What the user had typed: the trigger, and the separator of a right-word one.
  var typed: [Unicode.Scalar]
  /// The word an autocorrection replaced: its undo teaches it.
  var learns: [Unicode.Scalar]? = nil
}

/// An expansion whose snippet waits for a session variable's value.
struct WaitingExpansion {
  var request: UInt32 = 0
  /// The variable asked for.
  var variable = 0
  var match: SnippetMatcher.Match
  var inputs: VariableInputs
  /// The trigger as typed, the key being pressed included.
  var typed: [Unicode.Scalar]
  /// Characters of the model the trigger covers.
  var modelLength: Int
  /// Whether the trigger's first letter was capitalized at a sentence start.
  var capitalized: Bool
  /// The trigger's last key, swallowed until the expansion is typed.
  var key: UInt16
  var next: Unicode.Scalar
  var deadline: Instant
  /// A dialog asks the user: until its window has the keyboard the keys
  /// wait, as for any variable; then they go to it (``passesKeys``), and the
  /// trigger is deleted by its length, the text model having moved on.
  var isDialog = false
  var passesKeys = false
  /// Characters on the screen the trigger covers, as Backspace deletes them.
  var screenLength = 0
  /// The expansion waits for the clipboard to hold its text: it is pasted
  /// (the characters to delete first, and what is pasted) once it does.
  var paste: (deleted: Int, text: RenderedSnippet)?
  /// The clipboard could not take the text: it is typed.
  var typesInstead = false
  /// Chosen in the picker's search: nothing to delete, and given up, it
  /// leaves nothing (no trigger key to give back).
  var fromPicker = false
  /// Several snippets share the trigger: the picker offers them, and
  /// until it closes the trigger's last key is held back.
  var inMenu = false

  /// How long a dialog may stay open before the expansion is given up.
  static let dialogTimeoutMilliseconds: Int64 = 10 * 60_000
}
