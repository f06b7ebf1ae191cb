import Glibc
import Logging

/// Writes each message as one line to standard error, in one `write(2)`.
/// In a terminal a line reads `time level label: metadata [module] message`.
/// Where standard error is the journal (`JOURNAL_STREAM` names it), a line
/// starts with its syslog priority (`<6>`), which the journal takes for the
/// message's level, and carries no time, which the journal keeps itself.
///
/// The time is read with `localtime_r`, which reads the time zone once a
/// process: swift-log's `StreamLogHandler` calls `localtime`, whose `tzset`
/// stats /etc/localtime for every line, a file lookup in the daemon's loop
/// whenever it logs.
struct LineLogHandler: LogHandler {
  var metadata: Logger.Metadata = [:]
  var logLevel: Logger.Level = .info
  private let label: String
  private let toJournal: Bool

  init(label: String, toJournal: Bool) {
    self.label = label
    self.toJournal = toJournal
  }

  subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { metadata[key] }
    set { metadata[key] = newValue }
  }

  func log(event: LogEvent) {
    var all = metadata
    if let explicit = event.metadata { all.merge(explicit) { _, new in new } }
    if let error = event.error { all["error"] = "\(error)" }
    var line = line(event.level, event.message, all, source: event.source)
    line.withUTF8 { bytes in
      var written = 0
      while written < bytes.count {
        let count = Glibc.write(2, bytes.baseAddress! + written, bytes.count - written)
        if count > 0 {
          written += count
        } else if count < 0 && errno == EINTR {
          continue
        } else {
          return  // nowhere to say it
        }
      }
    }
  }

  /// The line of a message, its newline included.
  func line(_ level: Logger.Level, _ message: Logger.Message, _ metadata: Logger.Metadata, source: String) -> String {
    let shown = metadata.sorted { $0.key < $1.key }.map { " \($0.key)=\($0.value)" }.joined()
    let head = toJournal ? "<\(Self.priority(level))>" : "\(Self.timestamp()) \(level) "
    return "\(head)\(label):\(shown) [\(source)] \(message)\n"
  }

  /// The syslog priority of `level` (sd-daemon(3)'s prefixes).
  static func priority(_ level: Logger.Level) -> Int {
    switch level {
    case .trace, .debug: 7
    case .info: 6
    case .notice: 5
    case .warning: 4
    case .error: 3
    case .critical: 2
    }
  }

  /// The local time, as `2026-11-27T14:00:00+0100`.
  static func timestamp() -> String {
    var now = time(nil)
    var parts = tm()
    guard localtime_r(&now, &parts) != nil else { return "-" }
    var buffer = [CChar](repeating: 0, count: 32)
    let length = strftime(&buffer, buffer.count, "%Y-%m-%dT%H:%M:%S%z", &parts)
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// Whether standard error is the journal: `JOURNAL_STREAM` holds its
  /// device and inode (systemd.exec(5)).
  static func standardErrorIsJournal() -> Bool {
    isJournal(getenv("JOURNAL_STREAM").map { String(cString: $0) }, fd: 2)
  }

  /// Whether `fd` is the stream `journalStream` ("device:inode") names.
  static func isJournal(_ journalStream: String?, fd: Int32) -> Bool {
    let fields = journalStream?.split(separator: ":") ?? []
    var status = stat()
    guard fields.count == 2, let device = UInt64(fields[0]), let inode = UInt64(fields[1]), fstat(fd, &status) == 0
    else { return false }
    return UInt64(status.st_dev) == device && UInt64(status.st_ino) == inode
  }
}
