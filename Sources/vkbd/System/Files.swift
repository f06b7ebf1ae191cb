import Glibc

/// The largest file vkbd reads whole: config, snippet and script files.
let largestReadableFile = 64 << 20

/// Reads a whole file as bytes (`open`, `read`), at most ``largestReadableFile``.
func readBytes(_ path: String) throws(SystemError) -> [UInt8] {
  let fd = try valueOrErrno("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
  defer { close(fd) }
  var bytes: [UInt8] = []
  var chunk = [UInt8](repeating: 0, count: 65536)
  while true {
    let count = try valueOrErrno("read", path) { chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) } }
    if count == 0 { return bytes }
    bytes.append(contentsOf: chunk[..<count])
    if bytes.count > largestReadableFile { throw SystemError("read", path, errno: EFBIG) }
  }
}

/// Reads a whole file as text; invalid UTF-8 is an error (EILSEQ).
func readFile(_ path: String) throws(SystemError) -> String {
  let bytes = try readBytes(path)
  guard let text = String(validating: bytes, as: UTF8.self) else {
    throw SystemError("read", path, errno: EILSEQ)
  }
  return text
}
