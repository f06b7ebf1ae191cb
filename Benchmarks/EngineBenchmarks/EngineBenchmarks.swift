import Benchmark
import HunspellFiles
import KeyboardEngine
import TestSupport
import XKBFiles

/// The engine's cost per key event (DESIGN 1.1: well under a microsecond, no
/// allocation), for the paths a keystroke can take. Each benchmark feeds one
/// event per scaled iteration, so results read per event.
let benchmarks: @Sendable () -> Void = {
  Benchmark.defaultConfiguration = .init(
    metrics: [.wallClock, .throughput, .mallocCountTotal],
    scalingFactor: .kilo,
    maxDuration: .seconds(2),
    maxIterations: 10_000
  )

  Benchmark("pass-through, every aid off") { benchmark in
    Feeder.named("off") { Feeder(configuration: .allOff) }.feed(benchmark.scaledIterations.count)
  }
  Benchmark("prose, every aid on") { benchmark in
    Feeder.named("aids") { Feeder() }.feed(benchmark.scaledIterations.count)
  }
  Benchmark("prose, every aid on, 10 snippets") { benchmark in
    Feeder.named("10") { Feeder(snippets: randomSnippets(10)) }.feed(benchmark.scaledIterations.count)
  }
  Benchmark("prose, every aid on, 10000 snippets") { benchmark in
    Feeder.named("10000") { Feeder(snippets: randomSnippets(10_000)) }.feed(benchmark.scaledIterations.count)
  }
  Benchmark("prose, every aid on, 1000 regex snippets") { benchmark in
    Feeder.named("regex") { Feeder(snippets: regexSnippets(1000)) }.feed(benchmark.scaledIterations.count)
  }
  // Autocorrect (DESIGN 9). The letters of the prose cost what they cost
  // without it (the aids as they were before it, beside it in one run);
  // each Space asks the dictionary about the word it ends.
  Benchmark("prose, the aids before autocorrect") { benchmark in
    Feeder.named("before") {
      var configuration = EngineConfiguration()
      configuration.autocorrect = false
      configuration.smartPunctuation = false
      return Feeder(configuration: configuration)
    }.feed(benchmark.scaledIterations.count)
  }
  Benchmark("prose, every aid on, autocorrect en_US") { benchmark in
    Feeder.named("autocorrect") {
      let feeder = Feeder()
      feeder.engine.spelling = Typos.english
      return feeder
    }.feed(benchmark.scaledIterations.count)
  }
  // The decision at the end of a misspelled word: hunspell's check of the
  // word, the search around it and the ranking. One iteration is one word.
  Benchmark("autocorrect, one misspelled word, en_US", configuration: .init(scalingFactor: .one)) { benchmark in
    Typos.decide(Typos.englishTypos, Typos.english, benchmark.scaledIterations.count)
  }
  Benchmark("autocorrect, one misspelled word, de_DE", configuration: .init(scalingFactor: .one)) { benchmark in
    Typos.decide(Typos.germanTypos, Typos.german, benchmark.scaledIterations.count)
  }
  // A language with its word list and the trie of its common words, as
  // the daemon loads it off the keys (budget: 0.5 s each).
  for name in ["en_US", "de_DE", "fr_FR", "ru_RU"] {
    Benchmark("dictionary \(name) loaded", configuration: .init(scalingFactor: .one, maxIterations: 5)) { benchmark in
      for _ in benchmark.scaledIterations {
        blackHole(try! SpellingLanguage.load(name: name, frequencyDirectory: Typos.frequencies))
      }
    }
  }
  Benchmark("prose then a held Backspace") { benchmark in
    Feeder.named("backspace") { Feeder(holdingBackspace: true) }.feed(benchmark.scaledIterations.count)
  }
  Benchmark("one 2000-character expansion", configuration: .init(scalingFactor: .one)) { benchmark in
    Feeder.named("expansion") { Feeder(expansion: 2000) }.expandOnce()
  }
  // The picker's search (DESIGN 8): each key typed in its query searches
  // the whole collection again; 100,000 snippets is the hub's size after
  // duplicates. One iteration is one key of a query typed letter by letter.
  Benchmark("picker search, one key, 100000 snippets", configuration: .init(scalingFactor: .one)) { benchmark in
    let search = PickerCorpus.search
    let queries = PickerCorpus.queries
    for iteration in benchmark.scaledIterations {
      blackHole(search.search(queries[iteration % queries.count], limit: 50))
    }
  }
  Benchmark("picker index built, 100000 snippets", configuration: .init(scalingFactor: .one, maxIterations: 10)) {
    benchmark in
    for _ in benchmark.scaledIterations { blackHole(SnippetSearch(PickerCorpus.snippets)) }
  }
  // Load-time work: a keymap compiled and its tables built, at start and
  // whenever the desktop's layout changes.
  for (name, names) in [
    ("us", LayoutNames(layout: "us")), ("de", LayoutNames(layout: "de")),
    ("de(neo)", LayoutNames(layout: "de", variant: "neo")),
    ("us with a Compose key", LayoutNames(layout: "us", options: "compose:ralt")),
  ] {
    Benchmark("layout \(name) compiled", configuration: .init(scalingFactor: .one, maxIterations: 20)) { benchmark in
      for _ in benchmark.scaledIterations { blackHole(try! Layout(names: names)) }
    }
  }
}

/// An engine fed an endless stream of key events on a virtual clock.
final class Feeder {
  nonisolated(unsafe) static var feeders: [String: Feeder] = [:]
  nonisolated(unsafe) static let layout = try! Layout(names: LayoutNames(layout: "us"))

  /// The feeder kept under `name`, made once (engine and tables are load-time work).
  static func named(_ name: String, make: () -> Feeder) -> Feeder {
    if let feeder = feeders[name] { return feeder }
    let feeder = make()
    feeders[name] = feeder
    return feeder
  }

  static let prose = """
    The quick brown fox jumps over the lazy dog.  Then it sleeps, and the dog wakes up; \
    what a day it was for both of them!  Tomorrow they will do it again, at nine.
    """

  let engine: Engine
  private var events: [KeyEvent] = []
  private var index = 0
  private var offset: Int64 = 0
  private var output = KeyOutput()
  private var span: Int64 = 0

  init(
    configuration: EngineConfiguration = EngineConfiguration(), snippets: SnippetMatcher = SnippetMatcher([]),
    holdingBackspace: Bool = false, expansion: Int = 0
  ) {
    var snippets = snippets
    if expansion > 0 {
      let text = String((0..<expansion).map { Array("abcdefghij klmnopqrstuvwxyz, ")[$0 % 29] })
      snippets = SnippetMatcher([Snippet(trigger: ";long", replace: text)])
    }
    engine = Engine(layout: Self.layout, configuration: configuration, snippets: snippets, world: .testing)
    var time: Int64 = 0
    for character in (expansion > 0 ? ";long" : Self.prose).unicodeScalars {
      guard let typing = Self.layout.typing(of: character) else { continue }
      for stroke in typing.strokes {
        let modifiers = Array(stroke.modifiers)
        for key in modifiers { events.append(KeyEvent(code: key, value: .down, time: .init(microseconds: time))) }
        events.append(KeyEvent(code: stroke.key, value: .down, time: .init(microseconds: time)))
        events.append(KeyEvent(code: stroke.key, value: .up, time: .init(microseconds: time + 30_000)))
        for key in modifiers.reversed() {
          events.append(KeyEvent(code: key, value: .up, time: .init(microseconds: time + 30_000)))
        }
        time += 60_000
      }
    }
    if holdingBackspace {
      events.append(KeyEvent(code: KeyCode.backspace, value: .down, time: .init(microseconds: time)))
      var repeatAt = time + 250_000
      while repeatAt < time + 6_000_000 {
        events.append(KeyEvent(code: KeyCode.backspace, value: .repeat, time: .init(microseconds: repeatAt)))
        repeatAt += 33_000
      }
      time += 6_000_000
      events.append(KeyEvent(code: KeyCode.backspace, value: .up, time: .init(microseconds: time)))
    }
    span = time + 2_000_000
    output = KeyOutput(capacity: 16_384)
  }

  /// Hands the engine the next `count` events, with the timers due before each.
  func feed(_ count: Int) {
    var fed = 0
    while fed < count {
      var event = events[index]
      event.time.microseconds += offset
      while let due = engine.nextDeadline, due < event.time { engine.advance(to: due, into: &output) }
      engine.handle(event, into: &output)
      blackHole(output.events.count)
      output.removeAll()
      index += 1
      if index == events.count {
        index = 0
        offset += span
      }
      fed += 1
    }
  }

  /// Types the trigger and runs the expansion's bursts to the end.
  func expandOnce() {
    feed(events.count)
    while let due = engine.nextDeadline {
      engine.advance(to: due, into: &output)
      blackHole(output.events.count)
      output.removeAll()
    }
  }
}

/// `count` regex snippets in the shapes of the regexes of espanso's hub
/// (each made distinct by a word of two letters, as the hub's are by their
/// words): a date offset, a citation, a password length, a star rating, a
/// conventional commit, a fraction…
func regexSnippets(_ count: Int) -> SnippetMatcher {
  let shapes: [(String) -> String] = [
    { ":r\($0)(?P<n>\\d+)/" },
    { "(?P<a>\\d+)/\($0)(?P<b>\\w+ )" },
    { ":cite\($0):(?P<c>.*?):" },
    { "(?P<o>[+-]\\d+)x\($0)(?P<u>[dwmy])" },
    { "\\b(?P<w>\\w+)\($0)çao\\b" },
    { ":pw\($0)(?P<mode>s|n|)(?P<len>\\d{2})" },
    { "brand\($0)(?P<num>.*?);" },
    { ":st\($0)(?P<f>\\d+),(?P<e>\\d+)" },
    { ":wttrat\($0)/(?P<l>.*)/" },
    { ":(?P<type>feat|fix)\($0)(?P<scope>[^#!()\\r\\n]+)(?P<b>!?) " },
  ]
  return SnippetMatcher(
    (0..<count).map { index in
      var snippet = Snippet(triggers: [], replacement: Template("r"), origin: "bench:\(index)")
      let letters = Array("abcdefghijklmnopqrstuvwxyz")
      let word = String([letters[index / 26 % 26], letters[index % 26]])
      snippet.regex = try! TriggerRegex(shapes[index % shapes.count](word))
      return snippet
    })
}

/// 100,000 snippets with labels and replacements of words drawn from a
/// vocabulary of 5,000 made-up words, and the queries of three phrases
/// typed letter by letter (each prefix one search).
enum PickerCorpus {
  static let snippets: [Snippet] = {
    var generator = SplitMix64(seed: 7)
    let syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ber", "gen", "ster", "ing", "al", "on", "ex"]
    let words = (0..<5000).map { _ in
      (0..<Int.random(in: 2...4, using: &generator)).map { _ in syllables.randomElement(using: &generator)! }.joined()
    }
    return (0..<100_000).map { index in
      let phrase = { (count: Int) in
        (0..<count).map { _ in words.randomElement(using: &generator)! }.joined(separator: " ")
      }
      var snippet = Snippet(
        trigger: ":" + words[index % words.count] + "\(index)",
        replace: phrase(Int.random(in: 4...30, using: &generator)))
      if index % 3 == 0 { snippet.label = phrase(3) }
      return snippet
    }
  }()
  static let search = SnippetSearch(snippets)
  static let queries: [String] = ["kalo ster", "mine rubering", "voti exal gen"].flatMap { phrase in
    (1...phrase.count).map { String(phrase.prefix($0)) }
  }
}

/// Misspelled words for autocorrect's benchmarks: English ones nobody here
/// wrote (codespell's list, from Debian's package), and German ones made
/// from de_DE's own words (long compounds among them) by one slip each: two
/// letters swapped, one left out, one doubled or one key beside.
enum Typos {
  /// wordfreq's lists as `make frequencies` converts them (the bench runs
  /// from the source tree).
  static let frequencies = ".build/share/vkbd/wordfreq"
  static let english = Spelling(languages: [
    try! SpellingLanguage.load(name: "en_US", frequencyDirectory: frequencies)
  ])
  static let german = Spelling(languages: [
    try! SpellingLanguage.load(name: "de_DE", frequencyDirectory: frequencies)
  ])
  static let us = KeyNeighbours(layout: Feeder.layout, group: 0)
  static let de = KeyNeighbours(layout: try! Layout(names: LayoutNames(layout: "de")), group: 0)

  static let englishTypos: [[Unicode.Scalar]] = {
    let path = "/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt"
    let text = try! String(contentsOfFile: path, encoding: .utf8)
    let typos = text.split(separator: "\n").compactMap { line -> [Unicode.Scalar]? in
      let typo = line.prefix { $0 != "-" }
      return typo.count >= 3 && typo.allSatisfy({ $0.isLowercase }) ? Array(typo.unicodeScalars) : nil
    }
    return stride(from: 0, to: typos.count, by: max(1, typos.count / 2000)).map { typos[$0] }
  }()

  static let germanTypos: [[Unicode.Scalar]] = {
    let text = try! String(contentsOfFile: "/usr/share/hunspell/de_DE.dic", encoding: .utf8)
    let words = text.split(separator: "\n").dropFirst().map { Array($0.prefix { $0 != "/" }.unicodeScalars) }
      .filter { $0.count >= 4 && $0.allSatisfy { $0.properties.isAlphabetic } }
    var generator = SplitMix64(seed: 29)
    return stride(from: 0, to: words.count, by: max(1, words.count / 2000)).map { index in
      var word = words[index]
      let at = Int.random(in: 1..<(word.count - 1), using: &generator)
      switch index % 4 {
      case 0: word.swapAt(at, at + 1)
      case 1: word.remove(at: at)
      case 2: word.insert(word[at], at: at)
      default: word[at] = word[at] == "e" ? "r" : "e"
      }
      return word
    }
  }()

  /// The next typo each benchmark decides: each sample takes the next
  /// word of the list, so the percentiles are over all of its words.
  nonisolated(unsafe) static var next = 0

  static func decide(_ typos: [[Unicode.Scalar]], _ spelling: Spelling, _ count: Int) {
    let neighbours = spelling === german ? de : us
    for _ in 0..<count {
      blackHole(spelling.decide(typos[next % typos.count], neighbours: neighbours))
      next += 1
    }
  }
}
