#if canImport(Glibc)
  import Glibc
#endif

/// How a ``SnippetTable`` keeps its snippets: segments of records, their
/// texts in a byte pool.
extension SnippetTable {
  /// Where a text is in a segment's pool.
  struct TextRange {
    var start: UInt32
    var count: UInt32
    static let none = TextRange(start: 0, count: UInt32.max)
  }

  /// One snippet, as a segment keeps it.
  struct Record {
    /// Its triggers: `triggers[firstTrigger..<firstTrigger + triggerCount]`.
    var firstTrigger: UInt32
    var triggerCount: UInt16
    var flags: Flags
    var style: UInt8
    /// The replacement when it is plain text (else in the whole snippet).
    var replacement: TextRange
    var label: TextRange
    var file: UInt32
    /// Its line in `file`; 0 when the origin names none.
    var line: UInt32
    /// The whole snippet in `whole`, or -1.
    var whole: Int32
  }

  /// A run of snippets with their own texts and files.
  struct Segment: Sendable {
    var bytes: [UInt8] = []
    var records: [Record] = []
    var triggers: [TextRange] = []
    var wholes: [Snippet] = []
    var files: [String] = []
    /// Building only: the texts stored, found by their hash (open
    /// addressing: the hash's high half, then an index into `storedTexts`
    /// from 1; 0 where free), and each file's number.
    private var storedSlots: [UInt64] = []
    private var storedTexts: [TextRange] = []
    private var fileNumbers: [String: UInt32] = [:]

    var storageBytes: Int {
      bytes.count + records.count * MemoryLayout<Record>.stride + triggers.count * MemoryLayout<TextRange>.stride
        + wholes.count * MemoryLayout<Snippet>.stride + files.reduce(0) { $0 + $1.utf8.count }
    }

    mutating func append(_ snippet: Snippet, file: String?, line: Int?) {
      var file = file
      var line = line
      if file == nil {
        if let number = snippet.originLine, number > 0, number <= Int(UInt32.max) {
          file = String(snippet.originFile)
          line = number
        } else {
          file = snippet.origin
          line = 0
        }
      }
      records.append(record(of: snippet, file: number(ofFile: file!), line: UInt32(clamping: line ?? 0)))
    }

    private mutating func number(ofFile file: String) -> UInt32 {
      if let known = fileNumbers[file] { return known }
      let number = UInt32(files.count)
      fileNumbers[file] = number
      files.append(file)
      return number
    }

    mutating func replace(at index: Int, with snippet: Snippet) {
      let old = records[index]
      records[index] = record(of: snippet, file: old.file, line: old.line)
    }

    private mutating func record(of snippet: Snippet, file: UInt32, line: UInt32) -> Record {
      var flags: Flags = []
      if snippet.leftWord { flags.insert(.leftWord) }
      if snippet.rightWord { flags.insert(.rightWord) }
      if snippet.propagateCase { flags.insert(.propagateCase) }
      if snippet.opensSearch { flags.insert(.opensSearch) }
      if snippet.regex != nil { flags.insert(.regex) }
      let first = UInt32(triggers.count)
      for trigger in snippet.triggers { triggers.append(store(trigger)) }
      var replacement = TextRange.none
      var whole: Int32 = -1
      let parts = snippet.replacement.parts
      if parts.isEmpty {
        replacement = store("")
      } else if parts.count == 1, case .text(let text) = parts[0] {
        replacement = store(text)
      }
      if replacement.count == TextRange.none.count || snippet.regex != nil || !snippet.variables.isEmpty
        || !snippet.searchTerms.isEmpty
      {
        flags.insert(.whole)
        whole = Int32(wholes.count)
        var kept = snippet
        kept.triggers = []  // in the record already
        kept.label = nil
        kept.origin = ""
        wholes.append(kept)
      }
      return Record(
        firstTrigger: first, triggerCount: UInt16(clamping: snippet.triggers.count), flags: flags,
        style: Self.styleNumber(snippet.uppercaseStyle), replacement: replacement,
        label: snippet.label.map { store($0) } ?? .none, file: file, line: line, whole: whole)
    }

    /// Stores `text` once: a text stored before is found by its hash.
    private mutating func store(_ text: String) -> TextRange {
      var text = text
      return text.withUTF8 { utf8 in
        if storedTexts.count * 2 >= storedSlots.count { growStored() }
        let hash = FNV1a.hash(utf8)
        let fingerprint = hash >> 32
        var slot = FNV1a.slot(hash, count: storedSlots.count)
        while storedSlots[slot] != 0 {
          if storedSlots[slot] >> 32 == fingerprint {
            let known = storedTexts[Int(storedSlots[slot] & 0xFFFF_FFFF) - 1]
            if Int(known.count) == utf8.count
              && bytes.withUnsafeBufferPointer({
                memcmp($0.baseAddress! + Int(known.start), utf8.baseAddress!, utf8.count) == 0
              })
            {
              return known
            }
          }
          slot = (slot + 1) & (storedSlots.count - 1)
        }
        let range = TextRange(start: UInt32(bytes.count), count: UInt32(utf8.count))
        bytes.append(contentsOf: utf8)
        storedTexts.append(range)
        storedSlots[slot] = fingerprint << 32 | UInt64(storedTexts.count)
        return range
      }
    }

    private mutating func growStored() {
      storedSlots = [UInt64](repeating: 0, count: Swift.max(1024, storedSlots.count * 2))
      for (index, range) in storedTexts.enumerated() {
        let hash = FNV1a.hash(bytes[Int(range.start)..<Int(range.start + range.count)])
        var slot = FNV1a.slot(hash, count: storedSlots.count)
        while storedSlots[slot] != 0 { slot = (slot + 1) & (storedSlots.count - 1) }
        storedSlots[slot] = (hash >> 32) << 32 | UInt64(index + 1)
      }
    }

    mutating func compact() {
      storedSlots = []
      storedTexts = []
      fileNumbers = [:]
      // Spare capacity, from the doubling of appends, goes.
      bytes = Self.trimmed(bytes)
      records = Self.trimmed(records)
      triggers = Self.trimmed(triggers)
    }

    private static func trimmed<Element>(_ array: [Element]) -> [Element] {
      guard array.capacity > array.count else { return array }
      var copy: [Element] = []
      copy.reserveCapacity(array.count)
      copy.append(contentsOf: array)
      return copy
    }

    private func text(_ range: TextRange) -> String {
      bytes.withUnsafeBufferPointer {
        String(
          decoding: UnsafeBufferPointer(rebasing: $0[Int(range.start)..<Int(range.start + range.count)]), as: UTF8.self)
      }
    }

    private func withText<Result>(_ range: TextRange, _ body: (UnsafeBufferPointer<UInt8>) -> Result) -> Result {
      bytes.withUnsafeBufferPointer {
        body(UnsafeBufferPointer(rebasing: $0[Int(range.start)..<Int(range.start + range.count)]))
      }
    }

    func snippet(at index: Int) -> Snippet {
      let record = records[index]
      var snippet =
        record.whole >= 0
        ? wholes[Int(record.whole)] : Snippet(triggers: [], replacement: Template(text(record.replacement)), origin: "")
      let start = Int(record.firstTrigger)
      snippet.triggers = triggers[start..<start + Int(record.triggerCount)].map(text)
      snippet.label = record.label.count == TextRange.none.count ? nil : text(record.label)
      snippet.origin = record.line > 0 ? "\(files[Int(record.file)]):\(record.line)" : files[Int(record.file)]
      snippet.leftWord = record.flags.contains(.leftWord)
      snippet.rightWord = record.flags.contains(.rightWord)
      snippet.propagateCase = record.flags.contains(.propagateCase)
      snippet.opensSearch = record.flags.contains(.opensSearch)
      snippet.uppercaseStyle = Self.style(record.style)
      return snippet
    }

    func whole(at index: Int) -> Snippet? {
      let record = records[index]
      return record.whole >= 0 ? snippet(at: index) : nil
    }

    func forEachTrigger(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
      let record = records[index]
      let start = Int(record.firstTrigger)
      for range in triggers[start..<start + Int(record.triggerCount)] { withText(range, body) }
    }

    func forEachText(at index: Int, _ body: (UnsafeBufferPointer<UInt8>, Bool) -> Void) {
      let record = records[index]
      if record.label.count != TextRange.none.count { withText(record.label) { body($0, true) } }
      if record.whole < 0 {
        withText(record.replacement) { body($0, false) }
        return
      }
      for case .text(var literal) in wholes[Int(record.whole)].replacement.parts {
        literal.withUTF8 { body($0, false) }
      }
    }

    func displayLength(at index: Int) -> Int {
      let record = records[index]
      let range = record.label.count != TextRange.none.count ? record.label : record.replacement
      guard range.count != TextRange.none.count else { return snippet(at: index).displayLength }
      return withText(range) { utf8 in utf8.reduce(0) { $0 + ($1 & 0xC0 == 0x80 ? 0 : 1) } }
    }

    private static func styleNumber(_ style: UppercaseStyle) -> UInt8 {
      UInt8(UppercaseStyle.allCases.firstIndex(of: style)!)
    }

    private static func style(_ number: UInt8) -> UppercaseStyle { UppercaseStyle.allCases[Int(number)] }
  }
}
