import CFetch
import Glibc

/// A hub package's zip archive, read by libarchive and unpacked by hand:
/// only folders and regular files, each path inside the destination.
/// Anything else (a link, a device, a path that climbs out with `..` or
/// starts at `/`), more than ``maximumEntries`` entries or more than
/// ``maximumBytes`` unpacked refuses the whole archive; the caller then
/// throws the destination away.
enum ZipArchive {
  static let maximumEntries = 2000
  static let maximumBytes = 64 << 20

  static func unpack(_ archive: [UInt8], into directory: String) throws(Failure) {
    guard let reader = archive_read_new() else { throw Failure("cannot start libarchive", status: 1) }
    defer { archive_read_free(reader) }
    archive_read_support_format_zip(reader)
    let result: Result<Void, Failure> = archive.withUnsafeBytes { bytes in
      guard archive_read_open_memory(reader, bytes.baseAddress, bytes.count) == ARCHIVE_OK else {
        return .failure(Failure("not a zip archive: \(message(reader))"))
      }
      do throws(Failure) {
        try unpackEntries(reader, into: directory)
        return .success(())
      } catch {
        return .failure(error)
      }
    }
    try result.get()
  }

  private static func message(_ reader: OpaquePointer) -> String {
    archive_error_string(reader).map { String(cString: $0) } ?? "unreadable"
  }

  private static func unpackEntries(_ reader: OpaquePointer, into directory: String) throws(Failure) {
    var entries = 0
    var total = 0
    var buffer = [UInt8](repeating: 0, count: 65_536)
    while true {
      var entry: OpaquePointer?
      let status = archive_read_next_header(reader, &entry)
      if status == ARCHIVE_EOF { return }
      guard status == ARCHIVE_OK || status == ARCHIVE_WARN, let entry else {
        throw Failure("the archive is damaged: \(message(reader))")
      }
      entries += 1
      guard entries <= maximumEntries else { throw Failure("the archive holds more than \(maximumEntries) entries") }
      let name =
        archive_entry_pathname_utf8(entry).map { String(cString: $0) }
        ?? archive_entry_pathname(entry).map { String(cString: $0) } ?? ""
      let path = try inside(name)
      let kind = UInt32(archive_entry_filetype(entry)) & UInt32(Glibc.S_IFMT)
      guard archive_entry_hardlink(entry) == nil else { throw Failure("the archive holds a link (\(name))") }
      switch kind {
      case UInt32(Glibc.S_IFDIR):
        try makeDirectories(directory, path)
      case UInt32(Glibc.S_IFREG):
        try makeDirectories(directory, path.dropLast())
        let file = directory + "/" + path.joined(separator: "/")
        let fd = open(file, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw Failure("cannot write \(name): \(String(cString: strerror(errno)))", status: 73) }
        defer { close(fd) }
        while true {
          let count = archive_read_data(reader, &buffer, buffer.count)
          if count == 0 { break }
          guard count > 0 else { throw Failure("the archive is damaged at \(name): \(message(reader))") }
          total += count
          guard total <= maximumBytes else { throw Failure("the archive unpacks to more than \(maximumBytes) bytes") }
          guard write(fd, buffer, count) == count else {
            throw Failure("cannot write \(name): \(String(cString: strerror(errno)))", status: 73)
          }
        }
      case UInt32(Glibc.S_IFLNK):
        throw Failure("the archive holds a symbolic link (\(name))")
      default:
        throw Failure("the archive holds something other than files and folders (\(name))")
      }
    }
  }

  /// The parts of an entry's path, which must stay inside the destination.
  static func inside(_ name: String) throws(Failure) -> [Substring] {
    let parts = name.split(separator: "/").filter { $0 != "." }
    guard !name.hasPrefix("/"), !parts.isEmpty, !parts.contains(".."), name.utf8.count <= 1024 else {
      throw Failure("the archive holds an entry outside its folder (\(name))")
    }
    return parts
  }

  private static func makeDirectories(_ root: String, _ parts: some Collection<Substring>) throws(Failure) {
    var path = root
    for part in parts {
      path += "/" + part
      guard mkdir(path, 0o755) == 0 || errno == EEXIST else {
        throw Failure("cannot make \(path): \(String(cString: strerror(errno)))", status: 73)
      }
      var info = stat()
      guard lstat(path, &info) == 0, info.st_mode & Glibc.S_IFMT == Glibc.S_IFDIR else {
        throw Failure("the archive holds both a file and a folder at \(path)")
      }
    }
  }
}
