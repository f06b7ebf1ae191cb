import CKeyboard

/// What the picker shows (DESIGN 8): the session agent draws it, the
/// daemon sends it. Never logged: the query and the rows are the user's.
public struct PickerView: Equatable, Sendable {
  /// One snippet offered.
  public struct Row: Equatable, Sendable {
    /// The label, else the replacement's first line, shortened.
    public var label: String
    /// The first trigger, empty when it has none.
    public var trigger: String
    /// Where it comes from: its match file, as the last two parts of its path.
    public var source: String

    public init(label: String, trigger: String, source: String) {
      self.label = label
      self.trigger = trigger
      self.source = source
    }
  }

  public var query: String
  /// The best rows, best first (at most ``Picker/maximumRows``).
  public var rows: [Row]
  /// The row Enter inserts.
  public var selected: Int
  /// How many snippets match in all.
  public var total: Int
  /// The trigger whose snippets are offered; nil for a search of all.
  public var trigger: String?

  public init(query: String, rows: [Row], selected: Int, total: Int, trigger: String?) {
    self.query = query
    self.rows = rows
    self.selected = selected
    self.total = total
    self.trigger = trigger
  }
}

/// The picker while it is open: the query typed into it (through its own
/// keymap state, dead keys and compose included), the selection, and the
/// snippets it offers. The engine routes every key to it.
final class Picker {
  /// The rows sent at most; Page Up and Page Down move by ``pageRows``.
  static let maximumRows = 50
  static let pageRows = 10

  /// The snippets of a shared trigger, or nil: every snippet.
  let scope: [Int]?
  let trigger: String?
  private(set) var query = String.UnicodeScalarView()
  private(set) var selected = 0
  private(set) var result = SnippetSearch.Result(snippets: [], total: 0)
  /// The keys typed into the query, decoded apart from the application's.
  let decoder: KeystrokeDecoder

  init(layout: Layout, group: Int, numLock: Bool, scope: [Int]?, trigger: String?) {
    self.scope = scope
    self.trigger = trigger
    decoder = KeystrokeDecoder(layout: layout)
    decoder.reset(group: group, numLock: numLock)
  }

  /// What a key press did to the picker.
  enum Action: Equatable {
    case none, queryChanged, moved, close
    case choose(Int)
  }

  /// Takes a press (or a repeat) of `code`.
  func press(_ code: UInt16, repeated: Bool) -> Action {
    let keysym = decoder.keysym(code)
    switch Int32(bitPattern: keysym) {
    case XKB_KEY_Escape: return repeated ? .none : .close
    case XKB_KEY_Return, XKB_KEY_KP_Enter, XKB_KEY_ISO_Enter:
      guard !repeated else { return .none }
      return selected < result.snippets.count ? .choose(result.snippets[selected]) : .close
    case XKB_KEY_Up, XKB_KEY_KP_Up: return move(to: selected - 1)
    case XKB_KEY_Down, XKB_KEY_KP_Down: return move(to: selected + 1)
    case XKB_KEY_Page_Up, XKB_KEY_KP_Page_Up: return move(to: selected - Self.pageRows)
    case XKB_KEY_Page_Down, XKB_KEY_KP_Page_Down: return move(to: selected + Self.pageRows)
    case XKB_KEY_Home, XKB_KEY_KP_Home: return move(to: 0)
    case XKB_KEY_End, XKB_KEY_KP_End: return move(to: result.snippets.count - 1)
    default: break
    }
    switch decoder.feed(code: code, value: repeated ? .repeat : .down, keysym: keysym) {
    case .backspace:
      guard !query.isEmpty else { return .none }
      query.removeLast()
      return .queryChanged
    case .insert(let character) where character.properties.generalCategory != .control:
      guard query.count < SnippetSearch.maximumQuery else { return .none }
      query.append(character)
      return .queryChanged
    default: return .none
    }
  }

  /// Takes a release: the modifiers' state.
  func release(_ code: UInt16) { _ = decoder.feed(code: code, value: .up) }

  private func move(to row: Int) -> Action {
    let moved = max(0, min(row, result.snippets.count - 1))
    guard moved != selected, !result.snippets.isEmpty else { return .none }
    selected = moved
    return .moved
  }

  /// Searches again after the query changed; the first row is selected.
  func search(_ index: SnippetSearch) {
    result = index.search(String(query), limit: Self.maximumRows, in: scope)
    selected = 0
  }

  /// What the agent draws.
  func view(of snippets: SnippetTable) -> PickerView {
    PickerView(
      query: String(query),
      rows: result.snippets.map { index in
        let snippet = snippets[index]
        return PickerView.Row(
          label: snippet.displayText(), trigger: snippet.triggers.first ?? "",
          source: snippet.originFile.split(separator: "/").suffix(2).joined(separator: "/"))
      },
      selected: selected, total: result.total, trigger: trigger)
  }
}
