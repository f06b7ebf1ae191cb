/// The loaded snippets, stored compactly: what the engine keeps for every
/// snippet of a config (espanso's whole hub is over 290,000 of them).
///
/// Most snippets are a trigger, a plain replacement and a few flags. A
/// table keeps each as one fixed record, its texts as UTF-8 in one byte
/// pool where equal texts are stored once (the `:sf:` that thousands of
/// matches share, a replacement that several triggers type). What a record
/// cannot hold (variables, a regex, search terms, a replacement with
/// references) is kept beside it as a whole ``Snippet``. Where a snippet
/// comes from is a file number and a line. A ``Snippet`` is made again on
/// demand, when one fires, is listed or is shown; the trie and the
/// picker's index read the records.
///
/// Tables joined with ``+`` share their storage: the daemon's engine holds
/// the config's snippets and the user's without a copy of either.
public struct SnippetTable: RandomAccessCollection, Sendable {
  private var segments: [Segment] = []
  /// Where each segment starts, in snippets; the last is the count.
  private var starts: [Int] = [0]

  /// An empty table.
  public init() {}

  /// A table of `snippets`, in order.
  public init(_ snippets: some Sequence<Snippet>) {
    for snippet in snippets { append(snippet) }
    compact()
  }

  public var startIndex: Int { 0 }
  public var endIndex: Int { starts[starts.count - 1] }

  /// The snippet at `index`, made from its record.
  public subscript(index: Int) -> Snippet {
    withSegment(of: index) { $0.snippet(at: $1) }
  }

  /// The bytes the table's storage takes (`vkbd status`).
  public var storageBytes: Int { segments.reduce(0) { $0 + $1.storageBytes } }

  // MARK: - What the trie and the index read

  /// Calls `body` with each trigger of the snippet at `index`, as UTF-8,
  /// without making strings.
  public func forEachTrigger(at index: Int, _ body: (UnsafeBufferPointer<UInt8>) -> Void) {
    withSegment(of: index) { $0.forEachTrigger(at: $1, body) }
  }

  /// Calls `body` with the snippet's label (when it has one) and the
  /// literal texts of its replacement, as UTF-8: what the picker searches.
  public func forEachText(
    at index: Int, _ body: (_ text: UnsafeBufferPointer<UInt8>, _ isLabel: Bool) -> Void
  ) {
    withSegment(of: index) { $0.forEachText(at: $1, body) }
  }

  /// What the record of the snippet at `index` says of it.
  public func flags(at index: Int) -> Flags {
    withSegment(of: index) { $0.records[$1].flags }
  }

  /// The whole snippet kept beside the record of `index`, when its record
  /// cannot hold it all (a regex, variables, search terms).
  public func whole(at index: Int) -> Snippet? {
    withSegment(of: index) { $0.whole(at: $1) }
  }

  /// The length the picker ranks by (``Snippet/displayLength``).
  public func displayLength(at index: Int) -> Int {
    withSegment(of: index) { $0.displayLength(at: $1) }
  }

  /// The file the snippet at `index` comes from (its origin without the
  /// line), as a number that the table's other snippets of that file
  /// share: an index into ``files``.
  public func fileNumber(at index: Int) -> Int {
    let (segment, local) = locate(index)
    return segments.withUnsafeBufferPointer { segments in
      var offset = 0
      for earlier in segments[..<segment] { offset += earlier.files.count }
      return offset + Int(segments[segment].records[local].file)
    }
  }

  /// The files snippets come from, numbered as ``fileNumber(at:)`` says
  /// (a file in two joined tables is there twice).
  public var files: [String] { segments.flatMap(\.files) }

  /// What a record says of its snippet, as bits.
  public struct Flags: OptionSet, Sendable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }
    public static let leftWord = Flags(rawValue: 1)
    public static let rightWord = Flags(rawValue: 2)
    public static let propagateCase = Flags(rawValue: 4)
    public static let opensSearch = Flags(rawValue: 8)
    /// Kept as a whole beside the record.
    public static let whole = Flags(rawValue: 16)
    /// A regex trigger.
    public static let regex = Flags(rawValue: 32)
  }

  // MARK: - Building

  /// Adds `snippet` at the end. `file` and `line` say where it is defined
  /// (its ``Snippet/origin`` is not read then); without them its origin is
  /// read as `file:line`.
  public mutating func append(_ snippet: Snippet, file: String? = nil, line: Int? = nil) {
    if segments.isEmpty {
      segments.append(Segment())
      starts.append(0)
    }
    segments[segments.count - 1].append(snippet, file: file, line: line)
    starts[starts.count - 1] += 1
  }

  /// Puts `snippet` in place of the one at `index`, where it came from
  /// staying (a match whose variables were worked out once every file was
  /// read).
  public mutating func replace(at index: Int, with snippet: Snippet) {
    let (segment, local) = locate(index)
    segments[segment].replace(at: local, with: snippet)
  }

  /// Takes out the snippets at `indices` (matches left out once every file
  /// was read); the others keep their order.
  public mutating func remove(at indices: Set<Int>) {
    guard !indices.isEmpty else { return }
    for segment in segments.indices {
      let start = starts[segment]
      let records = segments[segment].records
      segments[segment].records = records.indices.filter { !indices.contains(start + $0) }.map { records[$0] }
    }
    for segment in segments.indices { starts[segment + 1] = starts[segment] + segments[segment].records.count }
  }

  /// Lets go of what only building needs (the index of the texts stored)
  /// and of the arrays' spare capacity.
  public mutating func compact() {
    for index in segments.indices { segments[index].compact() }
  }

  /// `first`'s snippets, then `second`'s, sharing their storage.
  public static func + (first: SnippetTable, second: SnippetTable) -> SnippetTable {
    var joined = first
    for segment in second.segments where !segment.records.isEmpty {
      joined.segments.append(segment)
      joined.starts.append(joined.endIndex + segment.records.count)
    }
    return joined
  }

  /// Calls `body` with the segment `index` is in, borrowed (a copy of a
  /// segment would retain each of its arrays), and the index there.
  private func withSegment<Result>(of index: Int, _ body: (borrowing Segment, Int) -> Result) -> Result {
    let (segment, local) = locate(index)
    return segments.withUnsafeBufferPointer { body($0[segment], local) }
  }

  private func locate(_ index: Int) -> (segment: Int, local: Int) {
    precondition(index >= 0 && index < endIndex, "snippet \(index) is not in the table")
    var segment = 0
    while index >= starts[segment + 1] { segment += 1 }
    return (segment, index - starts[segment])
  }
}
