#if canImport(Glibc)
  import Glibc
#endif

/// Calls `body` with the Unix socket address of `path` (`struct
/// sockaddr_un`), for the daemon's bind and its clients' and agents'
/// connect. Paths longer than sun_path (108 bytes) are cut; the config
/// refuses them.
public func withSocketAddress<Result>(
  _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> Result
) -> Result {
  var address = sockaddr_un()
  address.sun_family = sa_family_t(AF_UNIX)
  withUnsafeMutableBytes(of: &address.sun_path) { buffer in
    for (index, byte) in path.utf8.prefix(buffer.count - 1).enumerated() { buffer[index] = byte }
  }
  return withUnsafePointer(to: &address) {
    $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
  }
}
