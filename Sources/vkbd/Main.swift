#if !VKBD_FUZZ
  /// The program: the `vkbd` command. (A fuzzing build has libFuzzer's main
  /// instead; see Fuzz/Fuzz.swift.)
  @main
  enum Main {
    static func main() { VKBD.main() }
  }
#endif
