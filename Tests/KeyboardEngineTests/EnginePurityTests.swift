import Foundation
import Testing

/// The engine does no I/O: the daemon reads its keymaps (XKBFiles), its
/// dictionaries (HunspellFiles), the clock, the time zone, the locales and
/// randomness (`EngineWorld`), and hands them over. Read from the engine's
/// object files as built: what they call outside Swift's runtime is
/// memory, a lock, PCRE2, and libxkbcommon's keymap and state, nothing
/// that opens, reads or asks the system.
@Suite struct EnginePurityTests {
  /// The C functions the engine may call: exact names, and families by prefix.
  static let allowed: Set<String> = [
    "malloc", "malloc_usable_size", "free", "memcpy", "memmove", "memset", "bcmp", "__stack_chk_fail",
    "pthread_mutex_init", "pthread_mutex_destroy", "pthread_mutex_lock", "pthread_mutex_unlock",
    "xkb_context_unref", "xkb_keymap_unref", "xkb_keysym_to_utf32",
  ]
  static let allowedFamilies = ["$s", "swift_", "_swift", "pcre2_", "xkb_state_", "xkb_compose_state_"]
  /// libxkbcommon's keymap queries; `xkb_keymap_new_*` compiles from files.
  static let keymapQueries = [
    "xkb_keymap_key_get_", "xkb_keymap_num_", "xkb_keymap_min_", "xkb_keymap_max_",
    "xkb_keymap_mod_get_",
  ]

  @Test func theEngineCallsNothingThatReadsTheSystem() throws {
    // The test binary is built beside each module's objects.
    let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
    let directory = URL(fileURLWithPath: binary).deletingLastPathComponent().appendingPathComponent(
      "KeyboardEngine.build")
    let objects = try FileManager.default.contentsOfDirectory(atPath: directory.path)
      .filter { $0.hasSuffix(".o") }.map { directory.appendingPathComponent($0).path }
    #expect(objects.count > 40, "the engine's objects in \(directory.path)")
    let nm = Process()
    nm.executableURL = URL(fileURLWithPath: "/usr/bin/nm")
    nm.arguments = ["--undefined-only", "--format=just-symbols"] + objects
    let output = Pipe()
    nm.standardOutput = output
    try nm.run()
    let symbols = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
    nm.waitUntilExit()
    #expect(nm.terminationStatus == 0)
    let called = Set(symbols.split(separator: "\n").map(String.init).filter { !$0.isEmpty && !$0.hasSuffix(":") })
    #expect(called.contains("xkb_state_update_key") && called.contains("pcre2_match_32"))
    let foreign = called.filter { symbol in
      !Self.allowed.contains(symbol) && !Self.allowedFamilies.contains(where: symbol.hasPrefix)
        && !Self.keymapQueries.contains(where: symbol.hasPrefix)
    }
    #expect(foreign.isEmpty, "the engine calls \(foreign.sorted())")
  }
}
