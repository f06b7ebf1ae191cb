import ArgumentParser
import Glibc
import KeyboardEngine
import LinuxSystem
import SessionWork
import XKBFiles

extension VKBD {
  /// `vkbd simulate`: the engine on a virtual clock, fed by a typing script.
  struct Simulate: ParsableCommand {
    static let configuration = CommandConfiguration(
      commandName: "simulate",
      abstract: "Run the engine on a typing script and print what an application would show.",
      discussion: """
        Runs the keyboard engine exactly as the daemon does, on a virtual clock, with no \
        devices and no root. The script comes from standard input (or --script). The \
        output is the text a text field would show after receiving the virtual keyboard's \
        events, decoded through the same keymap, printed exactly, with no newline added.

        SCRIPT LANGUAGE (one command a line; # starts a comment)
          type TEXT       type each character as a person would on the layout (Shift,
                          AltGr, dead keys, group switches), 60 ms from one key-down to
                          the next. TEXT is the rest of the line, or a JSON string
                          literal when it starts with " (so "hi  " keeps its spaces
                          and \\n types Enter).
          tap CHORD       press keys in order, release them in reverse 30 ms later,
                          60 ms to the next step: tap backspace, tap leftctrl+v,
                          tap alt+space (evdev key names, any case; ctrl, alt,
                          shift, meta: the left key; altgr; joined with + or -)
          press KEY       press a key now (the clock does not move)
          release KEY     release a key now (the clock does not move)
          wait MS         let MS milliseconds pass
          hold KEY MS     press, let the kernel auto-repeat for MS milliseconds
                          (first repeat after 250 ms, then every 33 ms), release
          click           a mouse button press and release
          focus APP [ROLE [TITLE]]
                          the focus moves to a window of APP (an app id or X11 class),
                          as the session agent reports it: the config's apps: rules,
                          then the built-in ones, choose the settings, exactly as in
                          the daemon, and the text before the cursor becomes unknown.
                          ROLE is the field's role (text, entry, terminal, password,
                          pin, url, email, number) or - for none; TITLE is the rest of
                          the line, or a JSON string literal: focus firefox - Gmail
          field TEXT      the text field now holds TEXT before the cursor (the rest of
                          the line, or a JSON string literal; field "" is an empty
                          field), and the engine hears it as from a session agent's
                          input method: field "Thanks. " then type see gives See
          desktop-layout NAMES [GROUP]
                          the desktop switched to the layouts NAMES (us,de or
                          de(nodeadkeys)) with GROUP in effect (0 first, default 0):
                          the engine and the text field both follow, as they do
                          when a session agent reports the desktop's layout

        The simulated desktop repeats a held key itself (250 ms, then every 33 ms).

        THE PICKER
          The snippet picker works as in the daemon, drawn nowhere: the chord
          (picker.shortcut, alt-space: tap leftalt+space) opens it, and a trigger
          that several matches share opens it on them. While it is open every key
          is its own: type edits the query, tap down, up, pagedown, pageup, home
          and end move the selection, tap enter inserts the selected snippet,
          tap esc closes it (a shared trigger then stays as typed). A focus
          step closes it. The output stays the text field.

        CONFIG KEYS (--config FILE, YAML; defaults shown)
          autocapitalize: true             capitalize the first letter of a sentence
          autocapitalize_after_reset: false  treat the start after a reset as a field start
          autocapitalize_field_start: true  capitalize the first letter of an empty field
          double_space_period: true        two spaces after a word type ". "
          double_space_timeout_ms: 1100    the second space's window, key-down to key-down
          autocorrect: true                correct a misspelled word as it ends, where a
                                           focus step says what has the focus
          smart_punctuation: true          typographic quotes, dashes and ellipses, likewise
          autocorrect_languages: []        hunspell dictionaries: the locale's and layout's
          backspace:
            accelerate: true               vkbd repeats Backspace, speeding up to words
            repeat_delay_ms: 400           first repeat after the press
            repeat_interval_ms: 50         then one character every interval
            words_after: 20                repeated characters before whole words
            word_interval_ms: 250          then one word every interval
          layout:                          XKB names; default /etc/default/keyboard, else us
            rules: evdev
            model: pc105
            layout: us
            variant: ""
            options: ""
          snippets: []                     espanso match files, directories or globs
          matches: []                      inline matches in espanso's format
          unicode_input: ctrl-shift-u      a character the layout lacks: ctrl-shift-u or none
          newline: enter                   a newline in a replacement: enter or shift-enter
          undo_backspace: true             Backspace right after an expansion undoes it
          expansion:
            burst_keys: 15                 key events per burst (1-30)
            gap_ms: 8                      wait between bursts
          toggle_key: ""                   a chord that pauses and resumes vkbd, like rightctrl+pause
          picker:
            shortcut: alt-space            the chord that opens the snippet picker (off: none)
          control_socket: /run/vkbd/control.sock   the daemon's control socket
          control_group: ""                a group allowed to use it (socket mode 0660)
          devices:                         keyboards vkbd run grabs, by name or vendor:product
            include: []                    only these (empty: every keyboard)
            exclude: []                    never these
          apps:                            rules per app, tried in order (see focus)
            - app: "^firefox$"             a regex on the app id or X11 class
              title: Gmail                 a regex searched in the window title
              role: [entry, text]          field roles
              autocapitalize: false        then any of enabled, autocapitalize,
                                           double_space_period, snippets,
                                           backspace: {accelerate: false}
          session_users: []                without logind: users whose agent may report
          agent_socket: /run/vkbd/agent.sock   the socket session agents connect to

        The config is what the daemon reads: --config FILE, else \(ConfigLoader.defaultPath),
        else the embedded default (with the starter snippets ;date, ;time and ;shrug).
        Your own espanso files ($XDG_CONFIG_HOME/espanso, else ~/.config/espanso) join
        it as your session agent would send them: their snippets, their app configs
        and the settings of config/default.yml vkbd honours. --no-user leaves them
        out, --no-system the config's own snippets, --espanso DIR reads another.

        EXIT STATUS
          0 success, 64 bad arguments, 65 a bad script line, 78 a bad config file.
        """
    )

    @Option(name: .long, help: ArgumentHelp("Read the script from FILE instead of standard input.", valueName: "file"))
    var script: String?

    @Option(
      name: .long,
      help: ArgumentHelp("Use the config FILE instead of \(ConfigLoader.defaultPath).", valueName: "file"))
    var config: String?
    @OptionGroup var user: UserFilesOptions

    @Option(
      name: .long,
      help: ArgumentHelp("Use the XKB layout L, as layout or layout(variant), instead of the config's.", valueName: "L")
    )
    var layout: String?

    @Flag(name: .long, help: "Print the emitted events, one per line (KEY_A 1), instead of the text.")
    var events = false

    func validate() throws {
      if let layout, LayoutNames(parsing: layout) == nil {
        throw ValidationError("'\(layout)' is not a layout name like de or us(dvorak)")
      }
    }

    func run() throws {
      var configuration = try ConfigLoader.loadReporting(
        path: config, fallback: .daemonFile, joining: user, command: "simulate")
      let layout: Layout
      do {
        if let option = self.layout, let names = LayoutNames(parsing: option) {
          var merged = names
          merged.options = configuration.layout?.options ?? ""
          merged.locale = configuration.resolvedLayout.locale
          configuration.compiledLayout = try Layout(names: merged)
        }
        layout = try configuration.makeLayout()
      } catch {
        printError(error.description)
        throw SysExit.config
      }
      let source: String
      do {
        if let script { source = try Files.readText(script) } else { source = try Files.readStandardInput() }
      } catch {
        printError(error.description)
        throw SysExit.dataError
      }
      // The dictionaries, as the daemon loads them: only where autocorrect
      // can be on (it is off until a focus step says what has the focus).
      let names = configuration.dictionaryNames
      configuration.engine.quotes = QuoteStyle(language: names.first ?? "")
      var spelling: Spelling?
      if configuration.engine.autocorrect
        || configuration.apps.rules.contains(where: { $0.settings.autocorrect == true }),
        (try? Script.parse(source))?.contains(where: { if case .focus = $0.step { true } else { false } }) == true
      {
        let loaded = Dictionaries.load(names)
        for problem in loaded.problems { printError("warning: \(problem)") }
        spelling = loaded.0
      }
      let result: SimulationResult
      do {
        result = try SimulationResult(
          script: source, layout: layout, configuration: configuration.engine,
          snippets: SnippetMatcher(configuration.snippets), rules: configuration.apps, spelling: spelling,
          programs: user.noUser
            ? []
            : Set(ProgramWords.user(path: getenv("PATH").map { String(cString: $0) }, home: MatchPaths.homeDirectory)))
      } catch {
        printError(error.description)
        throw SysExit.dataError
      }
      if events {
        for (_, key) in result.transcript { print("\(KeyNames.name(of: key.code)) \(key.value.rawValue)") }
      } else {
        print(result.text, terminator: "")
      }
    }
  }
}

/// A script run through the engine and a simulated text field.
struct SimulationResult {
  var transcript: [(time: Instant, key: OutputKey)]
  var text: String
  /// What the picker shows at the end (nil: closed).
  var picker: PickerView?

  /// Runs `script` on a fresh engine; throws the first bad line.
  init(
    script: String, layout: Layout, configuration: EngineConfiguration, snippets: SnippetMatcher = SnippetMatcher([]),
    rules: AppRules = AppRules(user: []), spelling: Spelling? = nil, programs: Set<String> = [],
    showsPicker: Bool = true
  ) throws(ScriptError) {
    let engine = Engine(layout: layout, configuration: configuration, snippets: snippets, world: .system)
    engine.spelling = spelling
    engine.userPrograms = programs
    engine.onNotice = { printError($0.description) }
    var simulator = Simulator(engine: engine, rules: rules, showsPicker: showsPicker)
    try simulator.run(Script.parse(script))
    simulator.finish()
    transcript = simulator.transcript
    text = simulator.fieldText
    picker = simulator.picker
  }
}
