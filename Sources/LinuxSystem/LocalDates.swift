import Glibc

/// Dates written as the system writes them: in its time zone, with a
/// locale's names. The engine's date variables ask for them through its
/// host (`EngineWorld.writeDate`).
public enum LocalDates {
  /// `strftime` of `seconds` since the epoch in the local time zone
  /// (espanso's format strings are chrono's, whose common specifiers are
  /// strftime's), with the names of `locale` (a BCP 47 tag) when the
  /// system has it, else the C locale's.
  @Sendable public static func write(_ seconds: Int64, _ format: String, locale: String?) -> String {
    var time = time_t(seconds)
    var parts = tm()
    guard localtime_r(&time, &parts) != nil else { return "" }
    var buffer = [CChar](repeating: 0, count: 512)
    let length: Int
    if let locale, let handle = open(locale) {
      defer { freelocale(handle) }
      length = strftime_l(&buffer, buffer.count, format, &parts, handle)
    } else {
      length = strftime(&buffer, buffer.count, format, &parts)
    }
    guard length > 0 else { return "" }
    return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
  }

  /// The POSIX name of a tag: espanso names locales as BCP 47 tags
  /// (`de-DE`), glibc as POSIX names (`de_DE.UTF-8`).
  public static func posixName(_ tag: String) -> String {
    let base = tag.split(separator: ".", maxSplits: 1).first.map(String.init) ?? tag
    return String(base.map { $0 == "-" ? "_" : $0 }) + ".UTF-8"
  }

  /// Whether the system has the locale of `tag` (`locales-all`, or one generated).
  public static func isInstalled(_ tag: String) -> Bool {
    guard let handle = open(tag) else { return false }
    freelocale(handle)
    return true
  }

  private static func open(_ tag: String) -> locale_t? {
    newlocale(LC_TIME_MASK, posixName(tag), nil)
  }
}
