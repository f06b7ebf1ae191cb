/// The edits made to the text model since the field's last report that
/// agreed with it: what a report on its way may not have seen yet. A fixed
/// ring in the model's buffer (``TextModel/record(_:)``): recording an edit
/// never allocates.
struct TextHistory {
  /// The most edits kept; a report older than that replaces the model.
  static let capacity = 64

  enum Edit: Equatable {
    case inserted(Unicode.Scalar)
    case deleted(Unicode.Scalar)

    /// As the model's buffer holds it: the code point, the top bit set for
    /// a deletion.
    init(_ stored: UInt32) {
      let character = Unicode.Scalar(stored & ~Self.deletion) ?? "\u{FFFD}"
      self = stored & Self.deletion == 0 ? .inserted(character) : .deleted(character)
    }

    var stored: UInt32 {
      switch self {
      case .inserted(let character): character.value
      case .deleted(let character): character.value | Self.deletion
      }
    }

    private static let deletion: UInt32 = 1 << 31
  }

  /// Where the next edit goes, in the ring.
  private(set) var end = 0
  private(set) var count = 0

  mutating func recorded() -> Int {
    defer {
      end = (end + 1) % Self.capacity
      count = min(count + 1, Self.capacity)
    }
    return end
  }

  /// Forgets all but the last `kept` edits.
  mutating func keepLast(_ kept: Int) { count = min(count, kept) }

  mutating func removeAll() { count = 0 }

  /// Where the edit `offset` places back (0: the last) is in the ring.
  func index(fromEnd offset: Int) -> Int { (end - 1 - offset + 2 * Self.capacity) % Self.capacity }
}

extension TextModel {
  /// Takes a session agent's report of the field's text before the cursor
  /// (`isFieldStart` when that is all of it). A report agrees with the
  /// model as it is, or as it was before the last edits of its ``history``
  /// (the report was on its way while they were made: characters typed,
  /// the engine's own edits such as the double-space period): then it only
  /// completes the model, where it knows more of the field's start, and
  /// the edits since are made again on top of it. The same text can stand
  /// at several of those states (a correction deletes letters that its
  /// undo types again): the report completes the newest, and the edits
  /// are kept back to the oldest, since the next report may be of any
  /// state after it (a slow desktop's reports lag by a dozen edits). A
  /// report that agrees with no such state replaces the model; false
  /// then: the text changed under the engine. Many applications send the
  /// paragraph around the cursor as if it were the whole field (GTK's
  /// text views, Firefox's text areas): a report that starts the field
  /// right after a newline of the model is of the paragraph, and agrees.
  mutating func reconcile(with reported: [Unicode.Scalar], isFieldStart: Bool) -> Bool {
    // The edits, last first, read before the model changes under them.
    let history = (0..<self.history.count).map { edit(fromEnd: $0) }
    // The model's last characters as it was `undone` edits ago, as far as
    // a comparison with the report needs them.
    let span = reported.count + history.count + 1
    var state = (0..<Swift.min(count, span)).reversed().map { self[fromEnd: $0] }
    var known = count
    // The newest state the report agrees with, what it knew and whether
    // the report starts the field there; the oldest.
    var newest: (undone: Int, known: Int, startsField: Bool)?
    var oldest = 0
    states: for undone in 0...history.count {
      if undone > 0 {
        switch history[undone - 1] {
        case .inserted:
          guard !state.isEmpty else { break states }  // before the model's start: unknown
          state.removeLast()
          known -= 1
        case .deleted(let character):
          state.append(character)
          known += 1
        }
      }
      guard Self.tailsAgree(state, known: known, reported) else { continue }
      // A report that starts the field with less than the state holds
      // (but a paragraph's), or a model that starts the field with less
      // than the report, disagrees.
      let startsShorter = isFieldStart && reported.count < known
      let paragraph =
        startsShorter && reported.count < state.count && state[state.count - 1 - reported.count] == "\n"
      if startsShorter && !paragraph { continue }
      if self.isFieldStart && known < reported.count { continue }
      if newest == nil { newest = (undone, known, isFieldStart && !paragraph) }
      oldest = undone
    }
    guard let newest else {
      replace(with: reported, isFieldStart: isFieldStart)
      return false
    }
    guard reported.count > newest.known || (newest.startsField && !self.isFieldStart) else {
      self.history.keepLast(oldest)
      return true
    }
    // The report knows more: it, with the edits since made again.
    replace(with: reported, isFieldStart: isFieldStart)
    for back in stride(from: newest.undone - 1, through: 0, by: -1) {
      switch history[back] {
      case .inserted(let character): append(character)
      case .deleted(let character):
        record(.deleted(character))
        removeLast()
      }
    }
    self.history.keepLast(newest.undone)
    return true
  }

  /// Whether `state` (the last characters of a text of `known` characters)
  /// and `reported` end alike, over the length both have.
  private static func tailsAgree(_ state: [Unicode.Scalar], known: Int, _ reported: [Unicode.Scalar]) -> Bool {
    let overlap = Swift.min(known, reported.count)
    guard overlap <= state.count else { return false }
    for offset in 0..<overlap where state[state.count - 1 - offset] != reported[reported.count - 1 - offset] {
      return false
    }
    return true
  }
}
