import Glibc

/// A file operation that failed, with the path and errno.
struct FileError: Error, CustomStringConvertible {
  var operation: String
  var path: String
  var errno: Int32

  var description: String { "\(operation) \(path): \(String(cString: strerror(errno)))" }
}

/// The largest file vkbd reads whole: config, snippet and script files.
let largestReadableFile = 64 << 20

/// Reads a whole file as bytes (`open`, `read`), at most ``largestReadableFile``.
func readBytes(_ path: String) throws(FileError) -> [UInt8] {
  let fd = open(path, O_RDONLY | O_CLOEXEC)
  guard fd >= 0 else { throw FileError(operation: "open", path: path, errno: Glibc.errno) }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
    if count < 0 {
      if Glibc.errno == EINTR { continue }
      throw FileError(operation: "read", path: path, errno: Glibc.errno)
    }
    if count == 0 { return bytes }
    bytes.append(contentsOf: chunk[..<count])
    if bytes.count > largestReadableFile { throw FileError(operation: "read", path: path, errno: EFBIG) }
  }
}

/// Reads a whole file as text; invalid UTF-8 is an error (EILSEQ).
func readFile(_ path: String) throws(FileError) -> String {
  let bytes = try readBytes(path)
  guard let text = String(validating: bytes, as: UTF8.self) else {
    throw FileError(operation: "read", path: path, errno: EILSEQ)
  }
  return text
}
