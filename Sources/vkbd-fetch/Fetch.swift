import CFetch
import Glibc

/// `vkbd-fetch`: what `vkbd package` runs to download from a hub and to
/// unpack an archive, so that neither the daemon nor the vkbd command
/// links a network or archive library, and the parsing of what comes from
/// the network happens in a process of its own, as the user.
///
///     vkbd-fetch get URL LIMIT TIMEOUT
///         the body on standard output
///     vkbd-fetch unpack URL SHA256 LIMIT TIMEOUT DIRECTORY
///         the zip archive checked against SHA256, then unpacked into DIRECTORY
///
/// LIMIT is the most bytes taken; TIMEOUT the seconds a connection may
/// take to start, or stall. Exit 0, or 1 with the reason on standard error.
@main
enum Fetch {
  static func main() {
    let arguments = Array(CommandLine.arguments.dropFirst())
    do throws(Failure) {
      switch (arguments.first, arguments.count) {
      case ("get", 4):
        let body = try download(arguments[1], limit: try number(arguments[2]), timeout: try number(arguments[3]))
        var written = 0
        while written < body.count {
          let count = body[written...].withUnsafeBytes { write(1, $0.baseAddress, $0.count) }
          guard count > 0 else {
            throw Failure("cannot write the download: \(String(cString: strerror(errno)))", status: 73)
          }
          written += count
        }
      case ("unpack", 6):
        let archive = try download(arguments[1], limit: try number(arguments[3]), timeout: try number(arguments[4]))
        let digest = SHA256.hex(archive)
        guard digest == arguments[2].lowercased() else {
          throw Failure("the archive's SHA-256 is \(digest), the hub says \(arguments[2]): it was not unpacked")
        }
        try ZipArchive.unpack(archive, into: arguments[5])
      default:
        throw Failure("usage: vkbd-fetch get URL LIMIT TIMEOUT | unpack URL SHA256 LIMIT TIMEOUT DIRECTORY", status: 1)
      }
    } catch {
      let line = Array("vkbd-fetch: \(error.message)\n".utf8)
      _ = write(2, line, line.count)
      exit(error.status)
    }
  }

  private static func number(_ text: String) throws(Failure) -> Int {
    guard let value = Int(text), value > 0 else { throw Failure("not a positive number: \(text)", status: 1) }
    return value
  }

  nonisolated(unsafe) private static var initialized = false

  /// The body at `url` (http or https, redirects followed), of at most
  /// `limit` bytes, from a server that answers within `timeout` seconds
  /// and never stalls longer.
  static func download(_ url: String, limit: Int, timeout: Int) throws(Failure) -> [UInt8] {
    if !initialized {
      curl_global_init(Int(CURL_GLOBAL_DEFAULT))
      initialized = true
    }
    guard let curl = curl_easy_init() else { throw Failure("cannot start libcurl", status: 1) }
    defer { curl_easy_cleanup(curl) }
    let sink = Sink(limit: limit)
    let context = Unmanaged.passUnretained(sink).toOpaque()
    var error = [CChar](repeating: 0, count: Int(CURL_ERROR_SIZE))
    let code = error.withUnsafeMutableBufferPointer { errorBuffer -> CURLcode in
      _ = CFetch_setString(curl, CURLOPT_URL, url)
      _ = CFetch_setString(curl, CURLOPT_PROTOCOLS_STR, "http,https")
      _ = CFetch_setString(curl, CURLOPT_REDIR_PROTOCOLS_STR, "http,https")
      _ = CFetch_setLong(curl, CURLOPT_FOLLOWLOCATION, 1)
      _ = CFetch_setLong(curl, CURLOPT_MAXREDIRS, 5)
      _ = CFetch_setLong(curl, CURLOPT_FAILONERROR, 1)
      _ = CFetch_setLong(curl, CURLOPT_NOSIGNAL, 1)
      _ = CFetch_setLong(curl, CURLOPT_CONNECTTIMEOUT, timeout)
      // Stalled: under 1 byte a second for `timeout` seconds.
      _ = CFetch_setLong(curl, CURLOPT_LOW_SPEED_LIMIT, 1)
      _ = CFetch_setLong(curl, CURLOPT_LOW_SPEED_TIME, timeout)
      _ = CFetch_setOffset(curl, CURLOPT_MAXFILESIZE_LARGE, curl_off_t(limit))
      _ = CFetch_setString(curl, CURLOPT_USERAGENT, "vkbd-fetch")
      _ = CFetch_setPointer(curl, CURLOPT_ERRORBUFFER, errorBuffer.baseAddress)
      _ = CFetch_setPointer(curl, CURLOPT_WRITEDATA, context)
      _ = CFetch_setWriter(curl) { data, size, count, context in
        guard let data, let context else { return 0 }
        let sink = Unmanaged<Sink>.fromOpaque(context).takeUnretainedValue()
        let length = size * count
        guard sink.bytes.count + length <= sink.limit else {
          sink.tooLarge = true
          return 0  // libcurl stops with CURLE_WRITE_ERROR
        }
        data.withMemoryRebound(to: UInt8.self, capacity: length) {
          sink.bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: length))
        }
        return length
      }
      return curl_easy_perform(curl)
    }
    var status = 0
    _ = CFetch_responseCode(curl, &status)
    if status >= 400 { throw Failure("\(url): the server answers HTTP \(status)", status: 69) }
    if sink.tooLarge || code == CURLE_FILESIZE_EXCEEDED {
      throw Failure("\(url) is larger than \(limit) bytes: not taken")
    }
    guard code == CURLE_OK else {
      let detail = String(decoding: error.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
      let reason = detail.isEmpty ? String(cString: curl_easy_strerror(code)) : detail
      if code == CURLE_OPERATION_TIMEDOUT {
        throw Failure("\(url): no answer within \(timeout) s (\(reason))", status: 69)
      }
      throw Failure("\(url): \(reason)", status: 69)
    }
    return sink.bytes
  }

  /// Where a download goes, up to its limit.
  private final class Sink {
    let limit: Int
    var bytes: [UInt8] = []
    var tooLarge = false
    init(limit: Int) { self.limit = limit }
  }
}

/// Why a download or an archive was refused, and the exit status that
/// says what kind of failure it is (sysexits.h): 65 what came is wrong,
/// 69 the server cannot be reached or answers an error, 73 nothing can be
/// written, 1 the program cannot work.
struct Failure: Error {
  var message: String
  var status: Int32
  init(_ message: String, status: Int32 = 65) {
    self.message = message
    self.status = status
  }
}

/// SHA-256 (nettle's).
enum SHA256 {
  static func hex(_ bytes: [UInt8]) -> String {
    var context = sha256_ctx()
    nettle_sha256_init(&context)
    bytes.withUnsafeBufferPointer { nettle_sha256_update(&context, $0.count, $0.baseAddress) }
    var digest = [UInt8](repeating: 0, count: Int(SHA256_DIGEST_SIZE))
    nettle_sha256_digest(&context, digest.count, &digest)
    let hexDigits = Array("0123456789abcdef".utf8)
    return String(decoding: digest.flatMap { [hexDigits[Int($0 >> 4)], hexDigits[Int($0 & 15)]] }, as: UTF8.self)
  }
}
