#if !VKBD_FUZZ
  import VKBDDaemon

  /// The `vkbd` executable: the program lives in the VKBDDaemon library,
  /// which the tests import. (A fuzzing build has libFuzzer's main
  /// instead; see VKBDDaemon/Fuzz/Fuzz.swift.)
  @main
  enum Main {
    static func main() { VKBDProgram.main() }
  }
#endif
