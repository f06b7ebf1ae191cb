/// The characters typed since the last reset, oldest first (DESIGN 3.1).
///
/// The text before the model's start is unknown, unless a session agent
/// reported that the field starts there (``isFieldStart``). The model is a
/// fixed ring of code points: appending, deleting and resetting never
/// allocate. Its rings live in one buffer, so that a copy of the model (the
/// engine's parts take one to read it) retains one object.
public struct TextModel: Sendable {
  /// How many characters the model keeps; older ones fall off the front.
  public static let capacity = 256

  /// The characters (`capacity` code points), then for each the letter the
  /// user typed where the engine capitalized it, 0 for a character as typed
  /// (`capacity` more), then the ring of ``history`` (its capacity).
  private var storage: [UInt32]
  private static let typedStart = capacity
  private static let historyStart = 2 * capacity
  private var end = 0
  public private(set) var count = 0
  /// True when older characters fell off the front, so the start of the model
  /// is certainly not the start of a field.
  public private(set) var isTruncated = false
  /// True when the model's start is known to be the start of the text field
  /// (a session agent reported the field's text).
  public private(set) var isFieldStart = false
  /// Where the edits since a report of the field last agreed with the
  /// model are (``reconcile(with:isFieldStart:)``).
  var history = TextHistory()

  /// An empty model: nothing known.
  public init() {
    storage = [UInt32](repeating: 0, count: Self.historyStart + TextHistory.capacity)
  }

  /// The characters among the last `length` typed (as ``subscript(typedFromEnd:)``
  /// gives them), as bits: what the regex prefilter asks of the text, read
  /// straight from the rings.
  public func typedCharacterBits(last length: Int) -> CharacterBits {
    var bits = CharacterBits()
    var index = end
    storage.withUnsafeBufferPointer { storage in
      for _ in 0..<min(length, count) {
        index = (index - 1) & (Self.capacity - 1)
        let typed = storage[Self.typedStart + index]
        bits.insert(value: typed == 0 ? storage[index] : typed)
      }
    }
    return bits
  }

  /// Whether nothing is known before the cursor.
  public var isEmpty: Bool { count == 0 }

  /// The character `offset` places before the cursor (0 is the last typed).
  public subscript(fromEnd offset: Int) -> Unicode.Scalar {
    precondition(offset >= 0 && offset < count)
    let index = (end - 1 - offset + Self.capacity) % Self.capacity
    return Unicode.Scalar(storage[index]) ?? "\u{FFFD}"
  }

  /// The character the user's key typed `offset` places before the cursor:
  /// the lowercase letter where the engine typed its capital.
  public subscript(typedFromEnd offset: Int) -> Unicode.Scalar {
    let typed = storage[Self.typedStart + (end - 1 - offset + Self.capacity) % Self.capacity]
    return typed == 0 ? self[fromEnd: offset] : Unicode.Scalar(typed) ?? "\u{FFFD}"
  }

  /// Whether the engine capitalized the character `offset` places back.
  public func isAutoCapitalized(fromEnd offset: Int) -> Bool {
    precondition(offset >= 0 && offset < count)
    return storage[Self.typedStart + (end - 1 - offset + Self.capacity) % Self.capacity] != 0
  }

  /// Records that the last character is the engine's capital of `typed`.
  mutating func noteAutoCapitalized(typed: Unicode.Scalar) {
    guard count > 0 else { return }
    storage[Self.typedStart + (end - 1 + Self.capacity) % Self.capacity] = typed.value
  }

  /// Adds a typed character.
  public mutating func append(_ character: Unicode.Scalar) {
    record(.inserted(character))
    storage[end] = character.value
    storage[Self.typedStart + end] = 0
    end = (end + 1) % Self.capacity
    if count == Self.capacity {
      isTruncated = true
      isFieldStart = false
    } else {
      count += 1
    }
  }

  /// Removes the character before the cursor, with the combining marks on it,
  /// as BackSpace does. Returns false when the model had nothing to remove.
  @discardableResult
  public mutating func deleteBackward() -> Bool {
    guard count > 0 else { return false }
    var removedBase = false
    while count > 0, !removedBase {
      let character = self[fromEnd: 0]
      removedBase = !Self.isCombining(character)
      record(.deleted(character))
      removeLast()
    }
    return true
  }

  /// Records an edit in the history.
  mutating func record(_ edit: TextHistory.Edit) {
    storage[Self.historyStart + history.recorded()] = edit.stored
  }

  /// The edit `offset` places back in the history (0: the last).
  func edit(fromEnd offset: Int) -> TextHistory.Edit {
    TextHistory.Edit(storage[Self.historyStart + history.index(fromEnd: offset)])
  }

  /// Removes the last code point alone (a combining mark without its
  /// base): for making recorded edits again.
  mutating func removeLast() {
    guard count > 0 else { return }
    end = (end - 1 + Self.capacity) % Self.capacity
    count -= 1
  }

  /// Forgets everything: the text before the cursor is unknown from here on.
  public mutating func reset() {
    count = 0
    isTruncated = false
    isFieldStart = false
    history.removeAll()
  }

  /// Sets the model to `characters`, as a session agent reported the field:
  /// `isFieldStart` when they are all the text before the cursor.
  public mutating func replace(with characters: some Collection<Unicode.Scalar>, isFieldStart: Bool) {
    reset()
    for character in characters.suffix(Self.capacity) { append(character) }
    isTruncated = characters.count > Self.capacity || !isFieldStart
    self.isFieldStart = isFieldStart && !isTruncated
    history.removeAll()
  }

  /// The model's text, oldest first (for tests and diagnostics; allocates).
  public var text: String {
    String(scalars: stride(from: count - 1, through: 0, by: -1).lazy.map { self[fromEnd: $0] })
  }

  /// Whether a character is a combining mark, deleted with the character before it.
  public static func isCombining(_ character: Unicode.Scalar) -> Bool {
    guard character.value >= 0x300 else { return false }  // U+0300 is the first mark
    switch character.properties.generalCategory {
    case .nonspacingMark, .enclosingMark, .spacingMark: return true
    default: return false
    }
  }
}
