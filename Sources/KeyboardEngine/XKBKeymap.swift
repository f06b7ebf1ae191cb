import CKeyboard
import Glibc

/// The XKB names (RMLVO) that select a keymap, as in /etc/default/keyboard.
public struct LayoutNames: Hashable, Sendable, CustomStringConvertible {
  public var rules: String
  public var model: String
  public var layout: String
  public var variant: String
  public var options: String
  /// The locale whose Compose file applications read for dead keys and the
  /// Compose key (`pt_BR.UTF-8`: a dead acute and c make ç there); empty
  /// for that of en_US.UTF-8, which most UTF-8 locales share.
  public var locale: String

  /// Makes names; the defaults are those of a PC keyboard with the US layout.
  public init(
    rules: String = "evdev", model: String = "pc105", layout: String = "us",
    variant: String = "", options: String = "", locale: String = ""
  ) {
    self.rules = rules
    self.model = model
    self.layout = layout
    self.variant = variant
    self.options = options
    self.locale = locale
  }

  /// Reads `layout` or `layout(variant)`, several joined by commas:
  /// `us(dvorak)`, `us,ru`, `de(nodeadkeys),fr`. Returns nil for a malformed name.
  public init?(parsing text: String, options: String = "") {
    var layouts: [Substring] = []
    var variants: [Substring] = []
    for part in text.split(separator: ",", omittingEmptySubsequences: false) {
      if let open = part.firstIndex(of: "(") {
        guard part.last == ")", open != part.startIndex else { return nil }
        layouts.append(part[..<open])
        variants.append(part[part.index(after: open)..<part.index(before: part.endIndex)])
      } else {
        layouts.append(part)
        variants.append("")
      }
    }
    let valid = layouts.allSatisfy { name in
      !name.isEmpty && name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" || $0 == "-" }
    }
    guard valid else { return nil }
    self.init(
      layout: layouts.joined(separator: ","),
      variant: variants.allSatisfy(\.isEmpty) ? "" : variants.joined(separator: ","),
      options: options)
  }

  /// `layout(variant)` form, with the options in brackets when there are
  /// any (the locale, which chooses no keys, is left out).
  public var description: String {
    let layouts = layout.split(separator: ",", omittingEmptySubsequences: false)
    let variants = variant.split(separator: ",", omittingEmptySubsequences: false)
    let named = layouts.enumerated().map { index, name in
      index < variants.count && !variants[index].isEmpty ? "\(name)(\(variants[index]))" : String(name)
    }.joined(separator: ",")
    return options.isEmpty ? named : "\(named) [\(options)]"
  }
}

/// Why a keymap could not be made.
public struct LayoutError: Error, Equatable, CustomStringConvertible {
  public var names: LayoutNames

  public init(names: LayoutNames) { self.names = names }

  public var description: String {
    "xkb_keymap_new_from_names: no keymap for layout \(names) (is xkb-data installed?)"
  }
}

/// An XKB keymap and its compose table: wraps `xkb_context`, `xkb_keymap`
/// and `xkb_compose_table` from libxkbcommon, as the daemon compiled and
/// read them from the system's XKB files (XKBFiles): the engine reads no
/// file. XKB key codes are evdev codes + 8.
package final class XKBKeymap {
  let context: OpaquePointer
  let keymap: OpaquePointer
  /// The compose table, when a key of the keymap types a keysym it knows.
  let composeTable: OpaquePointer?

  /// Takes `keymap` and its `context`, which it frees, and `table`, the
  /// locale's compose table (kept by whoever read it), when a key of the
  /// keymap types a keysym the table knows.
  package init(context: OpaquePointer, keymap: OpaquePointer, composeTable table: OpaquePointer?) {
    self.context = context
    self.keymap = keymap
    composeTable = table.flatMap { Self.usesCompose(keymap, table: $0) ? $0 : nil }
  }

  /// Whether a key types a keysym `table` knows: a dead key or Multi_key,
  /// which start sequences, or a keysym that is a sequence of its own (the
  /// Arabic lam-alef ligatures type two letters). Without one the table
  /// would never change what a key types.
  private static func usesCompose(_ keymap: OpaquePointer, table: OpaquePointer) -> Bool {
    let compose = XKBReferences.withLock { xkb_compose_state_new(table, XKB_COMPOSE_STATE_NO_FLAGS) }
    guard let compose else { return false }
    defer { XKBReferences.withLock { xkb_compose_state_unref(compose) } }
    for code in xkb_keymap_min_keycode(keymap)...xkb_keymap_max_keycode(keymap) {
      for layout in 0..<xkb_keymap_num_layouts_for_key(keymap, code) {
        for level in 0..<xkb_keymap_num_levels_for_key(keymap, code, layout) {
          var symbols: UnsafePointer<xkb_keysym_t>?
          let count = Int(xkb_keymap_key_get_syms_by_level(keymap, code, layout, level, &symbols))
          for index in 0..<count {
            xkb_compose_state_reset(compose)
            xkb_compose_state_feed(compose, symbols![index])
            if xkb_compose_state_get_status(compose) != XKB_COMPOSE_NOTHING { return true }
          }
        }
      }
    }
    return false
  }

  /// The dead keysyms, dead_grave (0xfe50) to the end of their block.
  static func isDeadKey(_ keysym: xkb_keysym_t) -> Bool { (0xfe50...0xfe9f).contains(keysym) }

  deinit {
    xkb_keymap_unref(keymap)
    xkb_context_unref(context)
  }

  /// Number of groups (XKB "layouts") in the keymap.
  var groupCount: Int { Int(xkb_keymap_num_layouts(keymap)) }

  /// The modifier mask of a named modifier (`xkb_keymap_mod_get_index`), 0 if absent.
  func mask(ofModifier name: String) -> UInt32 {
    let index = xkb_keymap_mod_get_index(keymap, name)
    return index == XKB_MOD_INVALID ? 0 : 1 << index
  }
}

/// libxkbcommon counts references to a keymap and a compose table without
/// atomics (its issue #300), and a ``Layout`` may serve engines on several
/// threads: states are made and freed under this lock. Keys never take it.
package enum XKBReferences {
  static let lock = Lock()

  package static func withLock<Result>(_ body: () -> Result) -> Result { lock.withLock(body) }
}

/// The state of a keyboard as an application sees it: `xkb_state` (modifiers,
/// groups, locks) plus `xkb_compose_state` (dead keys).
final class XKBState {
  let keymap: XKBKeymap
  fileprivate let state: OpaquePointer
  private let compose: OpaquePointer?

  /// Makes a state with nothing pressed (`xkb_state_new`, `xkb_compose_state_new`).
  init(keymap: XKBKeymap) {
    self.keymap = keymap
    let (state, compose) = XKBReferences.withLock {
      (
        xkb_state_new(keymap.keymap),
        keymap.composeTable.flatMap { xkb_compose_state_new($0, XKB_COMPOSE_STATE_NO_FLAGS) }
      )
    }
    guard let state else { preconditionFailure("xkb_state_new failed: out of memory") }
    self.state = state
    self.compose = compose
  }

  deinit {
    XKBReferences.withLock {
      if let compose { xkb_compose_state_unref(compose) }
      xkb_state_unref(state)
    }
  }

  /// The keysym `code` produces now (`xkb_state_key_get_one_sym`).
  func keysym(_ code: UInt16) -> xkb_keysym_t {
    xkb_state_key_get_one_sym(state, xkb_keycode_t(code) + 8)
  }

  /// The character `code` produces now, or 0 (`xkb_state_key_get_utf32`).
  func character(_ code: UInt16) -> UInt32 {
    xkb_state_key_get_utf32(state, xkb_keycode_t(code) + 8)
  }

  /// Applies a press or release (`xkb_state_update_key`).
  func update(_ code: UInt16, down: Bool) {
    let changed = xkb_state_update_key(state, xkb_keycode_t(code) + 8, down ? XKB_KEY_DOWN : XKB_KEY_UP)
    if changed.rawValue & XKB_STATE_MODS_EFFECTIVE.rawValue != 0 {
      effectiveModifiers = xkb_state_serialize_mods(state, XKB_STATE_MODS_EFFECTIVE)
    }
    if changed.rawValue & XKB_STATE_LAYOUT_EFFECTIVE.rawValue != 0 {
      effectiveGroup = Int(xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_EFFECTIVE))
    }
  }

  /// Whether a press of `code` changes nothing in the state (a letter, not a
  /// modifier, lock or group key): tried on this state, which is then reset.
  func pressChangesNothing(_ code: UInt16) -> Bool {
    let changed = xkb_state_update_key(state, xkb_keycode_t(code) + 8, XKB_KEY_DOWN)
    xkb_state_update_key(state, xkb_keycode_t(code) + 8, XKB_KEY_UP)
    return changed.rawValue == 0
  }

  /// The modifiers in effect (`xkb_state_serialize_mods`), kept up to date
  /// by ``update(_:down:)``: read on every key, changed by few.
  private(set) var effectiveModifiers: UInt32 = 0

  /// The modifiers held down right now, without latches and locks.
  var depressedModifiers: UInt32 { xkb_state_serialize_mods(state, XKB_STATE_MODS_DEPRESSED) }

  /// The modifiers locked (Caps Lock, Num Lock).
  var lockedModifiers: UInt32 { xkb_state_serialize_mods(state, XKB_STATE_MODS_LOCKED) }

  /// The group in effect (`xkb_state_serialize_layout`).
  private(set) var effectiveGroup = 0

  /// What feeding `keysym` to the compose state gives.
  enum ComposeStep: Equatable {
    /// Not part of a sequence: use the key's own character.
    case passThrough
    /// A dead key or the middle of a sequence: nothing typed yet.
    case composing
    /// The sequence finished and typed this character (0: text of several).
    case composed(UInt32)
    /// The sequence was broken: nothing typed.
    case cancelled
  }

  /// Whether a dead-key sequence is half typed.
  private(set) var isComposing = false

  /// Feeds a pressed key's keysym to the compose state (`xkb_compose_state_feed`).
  func compose(_ keysym: xkb_keysym_t) -> ComposeStep {
    guard let compose, xkb_compose_state_feed(compose, keysym) == XKB_COMPOSE_FEED_ACCEPTED else {
      return .passThrough
    }
    isComposing = false
    switch xkb_compose_state_get_status(compose) {
    case XKB_COMPOSE_COMPOSING:
      isComposing = true
      return .composing
    case XKB_COMPOSE_COMPOSED:
      let result = Self.composedCharacter(compose)
      xkb_compose_state_reset(compose)
      return .composed(result)
    case XKB_COMPOSE_CANCELLED:
      xkb_compose_state_reset(compose)
      return .cancelled
    default:
      return .passThrough
    }
  }

  /// The one character a finished sequence typed: its keysym's, or its text
  /// when that is a single character (a sequence may give text and no
  /// keysym); 0 otherwise.
  static func composedCharacter(_ compose: OpaquePointer) -> UInt32 {
    let character = xkb_keysym_to_utf32(xkb_compose_state_get_one_sym(compose))
    if character != 0 { return character }
    var buffer: (UInt64, UInt64) = (0, 0)
    return withUnsafeMutableBytes(of: &buffer) { bytes in
      let base = bytes.baseAddress!.assumingMemoryBound(to: CChar.self)
      let length = Int(xkb_compose_state_get_utf8(compose, base, bytes.count))
      guard length > 0, length < bytes.count else { return 0 }
      let scalars = String(decoding: UnsafeRawBufferPointer(start: bytes.baseAddress, count: length), as: UTF8.self)
        .unicodeScalars
      return scalars.count == 1 ? scalars.first!.value : 0
    }
  }

  /// Forgets a half-typed dead-key sequence (`xkb_compose_state_reset`).
  func resetCompose() {
    isComposing = false
    if let compose { xkb_compose_state_reset(compose) }
  }
}

extension XKBState {
  /// Locks `group` and the `locked` modifiers, with nothing else set, on a
  /// state with no key down (`xkb_state_update_mask`).
  func lockGroup(_ group: Int, lockedModifiers locked: UInt32 = 0) {
    xkb_state_update_mask(state, 0, 0, locked, 0, 0, xkb_layout_index_t(group))
    effectiveModifiers = xkb_state_serialize_mods(state, XKB_STATE_MODS_EFFECTIVE)
    effectiveGroup = Int(xkb_state_serialize_layout(state, XKB_STATE_LAYOUT_EFFECTIVE))
  }
}
