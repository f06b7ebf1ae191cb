import LinuxSystem
import Testing

/// The heap as the daemon sets it up.
@Suite struct HeapTests {
  @Test func hugePagesOnceForbiddenStaySo() {
    #expect(Heap.forbidHugePages())
    #expect(Heap.hugePagesForbidden)
  }
}
