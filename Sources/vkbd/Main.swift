#if !VKBD_FUZZ
  import Glibc

  /// The program: the `vkbd` command. (A fuzzing build has libFuzzer's main
  /// instead; see Fuzz/Fuzz.swift.)
  @main
  enum Main {
    static func main() {
      // A signal mask comes through exec: a parent that blocked SIGTERM
      // (a test runner, a status bar) would leave `vkbd listen` deaf to
      // it. Each command starts with none blocked; the daemon's loop
      // blocks what it reads from its signalfd.
      var none = sigset_t()
      sigemptyset(&none)
      sigprocmask(SIG_SETMASK, &none, nil)
      if VKBD.printsVersion(Array(CommandLine.arguments.dropFirst())) { return }
      VKBD.main()
    }
  }
#endif
