import CLinuxSystem
import Glibc
import SystemPackage

/// An inotify instance (`inotify_init1`): its fd is readable when a watched
/// file or directory changed.
public final class Inotify {
  public let fd: FileDescriptor
  /// The watches, by descriptor, with what they watch.
  public private(set) var watched: [Int32: String] = [:]

  public init() throws(SystemError) {
    fd = FileDescriptor(rawValue: try valueOrErrno("inotify_init1") { inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC)) })
  }

  deinit { fd.closeQuietly() }

  /// What a directory watch reports: files written, moved in or out,
  /// created or deleted, and the directory itself going.
  public static let directoryChanges = UInt32(
    IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | IN_CREATE | IN_DELETE_SELF)

  /// Watches `path` for `events` (`inotify_add_watch`); once per path.
  public func watch(_ path: String, for events: UInt32 = directoryChanges) throws(SystemError) {
    guard !watched.values.contains(path) else { return }
    let descriptor = try valueOrErrno("inotify_add_watch", path) { inotify_add_watch(fd.rawValue, path, events) }
    watched[descriptor] = path
  }

  /// Stops every watch.
  public func removeAll() {
    for descriptor in watched.keys { inotify_rm_watch(fd.rawValue, descriptor) }
    watched = [:]
  }

  /// Reads the events waiting and hands each to `body`: the path of the
  /// watch and the name of the file in it ("" for the watched path itself).
  public func readEvents(_ body: (_ watched: String, _ name: String) -> Void) {
    var buffer = [UInt8](repeating: 0, count: 16384)
    while true {
      let count = read(fd.rawValue, &buffer, buffer.count)
      guard count > 0 else { return }
      var offset = 0
      let header = MemoryLayout<inotify_event>.size
      while offset + header <= count {
        let (descriptor, length) = buffer.withUnsafeBytes { bytes in
          (
            bytes.loadUnaligned(fromByteOffset: offset, as: Int32.self),
            Int(bytes.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
          )
        }
        let nameBytes = buffer[(offset + header)..<min(offset + header + length, count)]
        let name = String(decoding: nameBytes.prefix { $0 != 0 }, as: UTF8.self)
        if let path = watched[descriptor] { body(path, name) }
        offset += header + length
      }
    }
  }

  /// Reads and drops the events waiting: the caller only wants to know
  /// that something changed.
  public func drain() {
    var buffer = [UInt8](repeating: 0, count: 16384)
    while read(fd.rawValue, &buffer, buffer.count) > 0 {}
  }
}
