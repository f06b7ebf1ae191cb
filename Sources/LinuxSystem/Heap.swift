import CLinuxSystem

/// glibc's heap, as a long-running process wants it.
public enum Heap {
  /// Blocks of `bytes` or more come straight from mmap and go straight back
  /// to the system when freed (`mallopt(M_MMAP_THRESHOLD)`). Without it the
  /// threshold rises with each large block freed, and the large blocks of
  /// a reload's engine then stay in a thread's arena as free heap.
  public static func mapBlocks(over bytes: Int) {
    _ = CLinuxSystem_mapLargeBlocks(Int32(clamping: bytes))
  }
}
