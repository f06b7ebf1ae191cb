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

  /// No transparent huge pages for this process (`PR_SET_THP_DISABLE`):
  /// the first touch of a huge page clears all 2 MiB of it in the faulting
  /// thread, in the loop's turn when the loop touched it first (a new
  /// thread's stack, a fresh block). In the VM, keys came 2.2 to 2.4 ms late
  /// behind loop work without a system call, what clearing 2 MiB takes
  /// there; on a real machine it is tens of µs. A daemon of some tens of
  /// MiB gains nothing from huge pages, and its resident memory stays
  /// nearer what it uses. Returns whether the kernel took it.
  @discardableResult
  public static func forbidHugePages() -> Bool {
    CLinuxSystem_forbidHugePages() == 0
  }

  /// Whether this process has transparent huge pages forbidden.
  public static var hugePagesForbidden: Bool { CLinuxSystem_hugePagesForbidden() == 1 }
}
