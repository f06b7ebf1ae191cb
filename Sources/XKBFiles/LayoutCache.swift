import KeyboardEngine

extension Layout {
  /// The layout of `names`: the one compiled before while anything still
  /// holds it, else compiled now. A reload of the same config, or a desktop
  /// that reports the configured keymap, then compiles nothing: no time
  /// and none of the compiler's small blocks left in a thread's heap. A
  /// layout does not change once built, so engines on several threads
  /// share it.
  public static func shared(_ names: LayoutNames) throws(LayoutError) -> Layout {
    if let known = LayoutCache.find(names) { return known }
    let layout = try Layout(names: names)  // compiled outside the lock: the keys' turn may want it
    return LayoutCache.keep(layout)
  }
}

/// The layouts in use, by names, held weakly.
private enum LayoutCache {
  final class Entry {
    weak var layout: Layout?
    init(_ layout: Layout) { self.layout = layout }
  }

  nonisolated(unsafe) static var entries: [LayoutNames: Entry] = [:]
  static let lock = Lock()

  static func find(_ names: LayoutNames) -> Layout? {
    lock.withLock { entries[names]?.layout }
  }

  /// Keeps `layout`, or gives the one of the same names another thread
  /// kept meanwhile.
  static func keep(_ layout: Layout) -> Layout {
    lock.withLock {
      if let known = entries[layout.names]?.layout { return known }
      entries = entries.filter { $0.value.layout != nil }
      entries[layout.names] = Entry(layout)
      return layout
    }
  }
}
