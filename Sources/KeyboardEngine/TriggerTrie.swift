/// The trie of the triggers, each stored reversed, so that a match walks
/// back from the cursor (``SnippetMatcher``). A node is a number; its edge
/// (parent and character) is found by an open-addressing table of the
/// nodes, so a step costs a probe or two whatever the number of triggers,
/// and a node takes about 20 bytes: the whole espanso hub's 1.1 million
/// nodes fit in 22 MB.
struct TriggerTrie: Sendable {
  /// For each node, the snippet whose trigger ends there, or -1.
  var terminals: [Int32] = [-1]
  /// The edge into each node: its parent and character as one key
  /// (``edgeKey(_:_:)``; the root's is unused), which the slots find.
  private var edges: [UInt64] = [0]
  /// The nodes but the root, by the hash of their edge (open addressing),
  /// 0 where free.
  private var slots = [Int32](repeating: 0, count: 64)
  private var slotMask = 63

  /// Whether it holds no trigger.
  var isEmpty: Bool { terminals.count == 1 }

  /// Adds `trigger` (when new) and returns the node where it ends.
  mutating func insert(_ trigger: [Unicode.Scalar]) -> Int32 {
    var node: Int32 = 0
    var isNew = false  // past the first node made, every node is new: none to look for
    for character in trigger.reversed() {
      if !isNew {
        let existing = child(of: node, character.value)
        if existing > 0 {
          node = existing
          continue
        }
        isNew = true
      }
      node = addNode(under: node, character.value)
    }
    return node
  }

  /// The node reached from `node` by `character`, 0 when there is none: the
  /// first node in the probe sequence whose edge it is.
  func child(of node: Int32, _ character: UInt32) -> Int32 {
    let key = Self.edgeKey(node, character)
    var index = slot(key)
    while true {
      let candidate = slots[index]
      if candidate == 0 || edges[Int(candidate)] == key { return candidate }
      index = (index + 1) & slotMask
    }
  }

  private static func edgeKey(_ node: Int32, _ character: UInt32) -> UInt64 {
    UInt64(UInt32(bitPattern: node)) << 21 | UInt64(character)
  }

  private func slot(_ key: UInt64) -> Int {
    Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> 29) & slotMask
  }

  /// Makes the node under `node` by `character`.
  private mutating func addNode(under node: Int32, _ character: UInt32) -> Int32 {
    let created = Int32(terminals.count)
    terminals.append(-1)
    edges.append(Self.edgeKey(node, character))
    if (created + 1) * 4 > slots.count * 3 { grow() }  // at most three quarters full
    place(created)
    return created
  }

  private mutating func place(_ node: Int32) {
    var index = slot(edges[Int(node)])
    while slots[index] != 0 { index = (index + 1) & slotMask }
    slots[index] = node
  }

  private mutating func grow() {
    slots = [Int32](repeating: 0, count: slots.count * 2)
    slotMask = slots.count - 1
    for node in 1..<Int32(terminals.count) { place(node) }
  }
}
