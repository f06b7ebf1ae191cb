import Foundation
import KeyboardEngine
import SessionWork
import TestSupport
import Testing

@testable import VKBDDaemon

/// Autocorrect and smart punctuation (DESIGN 9) in typing scripts, with
/// Debian's real hunspell dictionaries, exactly as the daemon uses them.
@Suite struct AutocorrectScenarioTests {
  static let english = Dictionaries.load(["en_US"]).0!
  static let german = Dictionaries.load(["de_DE"]).0!
  static let englishAndRussian = Dictionaries.load(["en_US", "ru_RU"]).0!

  /// The text a field shows after `typed`, typed into a text field of an
  /// application an agent reports.
  static func typed(
    _ typed: String, spelling: Spelling = english, layout: String = "us", config: String = "",
    focus: String = "focus org.gnome.TextEditor text", steps: String = ""
  ) throws -> String {
    let script = "\(focus)\nfield \"\"\n\(steps)type \(jsonString(typed))\n"
    return try Simulation.run(script, layout: layout, config: config, spelling: spelling).text
  }

  static func jsonString(_ text: String) -> String {
    "\""
      + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
      .replacingOccurrences(of: "\n", with: "\\n") + "\""
  }

  @Test(arguments: [
    // A word no dictionary knows, one slip from one that stands out.
    ("i saw hte wrold ", "I saw the world "),
    ("we recieve it\n", "We receive it\n"),
    // Case follows what was typed; the sentence's first word may be capitalized.
    ("so. Hte end ", "So. The end "),
    // Punctuation around the word stays where it was.
    ("he said (wrold), ok ", "He said (world), ok "),
    ("is it wrold? yes ", "Is it world? Yes "),
  ])
  func correctsAtTheEndOfAWord(typed: String, expected: String) throws {
    #expect(try Self.typed(typed) == expected)
  }

  @Test(arguments: [
    // Known words, digits, inner capitals, capitals, names in mid-sentence.
    "the quick brown fox ", "abc123 hte2 ", "iPhone macOS ", "NASA HTE ", "ask Wrold now ",
    // Anything shaped like a URL, path, address, option or code.
    "see https://exmaple.com/wrold now ", "open /usr/shrae/wrold ", "mail wrold@exmaple.com ",
    "run ls --wrold ", "call wrold.hte() ", "x = wrold_hte ",
    // A word of one letter, or longer than 32.
    "q " + String(repeating: "wrold", count: 7) + " ",
    // A word its apostrophe ends: an elision written on purpose.
    "talkin' about it, goin' home ",
  ])
  func leavesAlone(typed: String) throws {
    let result = try Self.typed(typed, config: "smart_punctuation: false\n")
    // Only the sentence's first letter may change (auto-capitalization).
    #expect(result.dropFirst() == typed.dropFirst(), "\(result)")
  }

  @Test func theFirstWordAfterTheTextBecameUnknownIsLeftAlone() throws {
    // After a click the word may be the end of a longer one.
    let script = "focus org.gnome.TextEditor text\ntype \"it was \"\nclick\ntype \"wrold hte \"\n"
    #expect(try Simulation.run(script, config: "", spelling: Self.english).text == "it was wrold the ")
  }

  @Test func backspaceRightAfterGivesBackWhatWasTypedAndTeachesTheWord() throws {
    let script = """
      focus org.gnome.TextEditor text
      field ""
      type "i saw wrold "
      tap backspace
      type "and wrold again, then hte "
      tap backspace
      type "x"
      """
    let result = try Simulation.run(script, config: "", spelling: Self.english)
    // The undo gives back the word and the Space; the second Backspace
    // deletes a character of the undone text, as any Backspace does.
    #expect(result.text == "I saw wrold and wrold again, then hte x")
  }

  /// The engine alone, with the dictionaries and `learned`: what `keys`
  /// type into an empty field, and the words taught on the way.
  static func engineTyping(
    _ keys: [UInt16], learned: Set<String>, afterKeys: Int? = nil, told: (Engine) -> Void = { _ in }
  ) -> (text: String, taught: [String]) {
    let engine = Engine(layout: Simulation.layout("us"), configuration: EngineConfiguration(), world: .testing)
    engine.spelling = english
    engine.learnedWords = learned
    var taught: [String] = []
    engine.onLearned = { taught.append($0) }
    var output = KeyOutput()
    var time = Instant.milliseconds(1000)
    engine.fieldReported(before: [], isFieldStart: true)
    for (index, code) in keys.enumerated() {
      if index == afterKeys { told(engine) }
      time = time.adding(milliseconds: 60)
      engine.handle(KeyEvent(code: code, value: .down, time: time), into: &output)
      engine.handle(KeyEvent(code: code, value: .up, time: time.adding(milliseconds: 30)), into: &output)
      // A correction's keys go out in bursts on the engine's timer.
      while let deadline = engine.nextDeadline, deadline.microseconds < time.adding(milliseconds: 60).microseconds {
        engine.advance(to: deadline, into: &output)
      }
    }
    return (engine.text.text, taught)
  }

  static let wroldSpace: [UInt16] = [17, 19, 24, 38, 32, 57]  // w r o l d Space

  @Test func aTaughtWordGoesToTheDaemonAndIsNotCorrectedAgain() {
    let taught = Self.engineTyping(Self.wroldSpace + [14] + Self.wroldSpace, learned: [])
    #expect(taught.text == "Wrold wrold " && taught.taught == ["wrold"])
    // A word the user's agent sent is never corrected; without it, it is.
    #expect(Self.engineTyping(Self.wroldSpace, learned: ["wrold"]).text == "Wrold ")
    #expect(Self.engineTyping(Self.wroldSpace, learned: []).text == "World ")
  }

  /// A report that agrees with none of the model's recent states replaces
  /// it: the word it cut into may have lost letters a late report had not
  /// seen (a slow desktop), and is left as typed; the next one is not.
  @Test func aWordAReportReplacedIsNotCorrected() {
    let tehSpace: [UInt16] = [20, 18, 35, 57]
    let keys: [UInt16] = [20, 45, 18, 35, 57] + tehSpace  // t x, then "Hi t" reported; e h Space t e h Space
    let late = { (engine: Engine) in engine.fieldReported(before: Array("Hi t".unicodeScalars), isFieldStart: true) }
    #expect(Self.engineTyping(keys, learned: [], afterKeys: 2, told: late).text == "Hi teh the ")
    #expect(Self.engineTyping(tehSpace + tehSpace, learned: []).text == "The the ")
    // A new field after it (the focus moved) starts without the doubt.
    let moved = { (engine: Engine) in
      late(engine)
      engine.resetText()
      engine.fieldReported(before: [], isFieldStart: true)
    }
    #expect(Self.engineTyping(tehSpace, learned: [], afterKeys: 0, told: moved).text == "The ")
  }

  /// z o r b l y, then Space: a word no dictionary knows and no
  /// correction is near.
  static let zorblySpace: [UInt16] = [44, 24, 19, 48, 38, 21, 57]

  /// An unknown word the user keeps twice is learned, as phones learn;
  /// one deleted before the next word ends is not kept.
  @Test func aWordKeptTwiceIsLearned() {
    let z = Self.zorblySpace
    let the: [UInt16] = [20, 35, 18, 57]  // the field's first word takes a capital
    // Typed and kept twice (each seen kept when the next word ends).
    let learned = Self.engineTyping(the + z + z + z, learned: [])
    #expect(learned.taught == ["zorbly"] && learned.text == "The zorbly zorbly zorbly ")
    #expect(Self.engineTyping(the + z + z, learned: []).taught == [])
    // Deleted (seven Backspaces) each time: never kept, never learned.
    let deleted = z + Array(repeating: 14, count: 7)
    let typed = Self.engineTyping(the + deleted + deleted + deleted + Self.wroldSpace, learned: [])
    #expect(typed.taught == [] && typed.text == "The world ")
    // A double space checks once: the same word kept once is not learned.
    #expect(Self.engineTyping(the + z + [57, 57, 57], learned: []).taught == [])
  }

  /// A word in the user's own snippets (a trigger, a label, a
  /// replacement) is theirs and never corrected; one only a hub package's
  /// snippet has is no one's own.
  @Test func theWordsOfTheUsersOwnSnippetsAreNeverCorrected() throws {
    let own = SnippetTable([
      Snippet(trigger: ";addr", replace: "Wrold Street 5, Hte", origin: "/home/ada/.config/espanso/match/base.yml:3")
    ])
    let package = SnippetTable([
      Snippet(trigger: ":x", replace: "recieve", origin: "/home/ada/.config/espanso/match/packages/p/package.yml:2")
    ])
    let words = (own + package).ownWords()
    #expect(words == ["addr", "wrold", "street", "hte"])
    let script = "focus org.gnome.TextEditor text\nfield \"\"\ntype \"i saw wrold and hte, we recieve \"\n"
    let result = try SimulationResult(
      script: script, layout: Simulation.layout("us"), configuration: EngineConfiguration(),
      snippets: SnippetMatcher(own + package), rules: AppRules(user: []), spelling: Self.english)
    #expect(result.text == "I saw wrold and hte, we receive ")
    #expect(SnippetTable([Snippet(trigger: "x", replace: "y", origin: "a.yml:1")]).ownWords(limit: 0).isEmpty)
  }

  @Test(arguments: [
    // Terminals, code editors, and the fields that are not prose.
    "focus foot", "focus org.gnome.TextEditor terminal", "focus code", "focus firefox url",
    "focus firefox email", "focus firefox number", "focus firefox password", "focus firefox pin",
  ])
  func isOffWhereTheRulesSay(focus: String) throws {
    let typed = "hte \"wrold\" -- ok... "
    let result = try Self.typed(typed, focus: focus)
    #expect(result.lowercased() == typed, "\(result)")
  }

  @Test func isOffWithoutAnAgent() throws {
    let script = "field \"\"\ntype \"hte \\\"wrold\\\" -- \"\n"
    #expect(try Simulation.run(script, config: "", spelling: Self.english).text == "Hte \"wrold\" -- ")
  }

  @Test func appRulesTurnEachOff() throws {
    let config = """
      apps:
        - app: "^notes$"
          autocorrect: false
        - app: "^chat$"
          smart_punctuation: false
      smart_punctuation: true
      """
    #expect(try Self.typed("hte \"x\" ", config: config, focus: "focus notes") == "Hte “x” ")
    #expect(try Self.typed("hte \"x\" ", config: config, focus: "focus chat") == "The \"x\" ")
    #expect(try Self.typed("hte \"x\" ", config: "autocorrect: false\nsmart_punctuation: false\n") == "Hte \"x\" ")
  }

  @Test(arguments: [
    ("en_US", "she said \"so\" and 'it's fine' -- ok... ", "She said “so” and ‘it’s fine’ — ok… "),
    ("de_DE", "er sagte \"so\" und 'ja' -- gut... ", "Er sagte „so“ und ‚ja‘ — gut… "),
    ("fr", "il dit \"oui\" -- bien... ", "Il dit «oui» — bien… "),
  ])
  func smartPunctuationFollowsTheLanguage(language: String, typed: String, expected: String) throws {
    let spelling = Dictionaries.load([language]).0!
    let layout = language == "en_US" ? "us" : String(language.prefix(2))
    let result = try Self.typed(typed, spelling: spelling, layout: layout, config: "autocorrect: false\n")
    #expect(result == expected)
  }

  @Test func aSentenceStartsBehindATypographicQuote() throws {
    #expect(
      try Self.typed("\"hello\" she said. \"yes.\" ok", config: "autocorrect: false\n") == "“Hello” she said. “Yes.” Ok"
    )
    let german = try Self.typed(
      "er sagte: \"ja.\" dann", spelling: Self.german, layout: "de", config: "autocorrect: false\n")
    #expect(german == "Er sagte: „ja.“ Dann")
  }

  @Test func backspaceUndoesSmartPunctuation() throws {
    let script = """
      focus org.gnome.TextEditor text
      field ""
      type "a \\""
      tap backspace
      type "b --"
      tap backspace
      type " c..."
      tap backspace
      """
    #expect(try Simulation.run(script, config: "", spelling: Self.english).text == "A \"b -- c...")
  }

  @Test func aDoubleSpaceAfterACorrectionStillTypesAPeriod() throws {
    #expect(try Self.typed("i saw hte  ") == "I saw the. ")
  }

  @Test func cyrillicIsCheckedOnlyWithTheRussianDictionary() throws {
    // us,ru with both dictionaries: a Russian typo is corrected with the
    // Russian one, an English one with the English one, and neither
    // dictionary judges the other's words.
    let steps = "desktop-layout us,ru 1\n"
    let result = try Self.typed(
      "привет мир пирвет ", spelling: Self.englishAndRussian, layout: "us,ru", steps: steps)
    #expect(result == "Привет мир привет ")
    #expect(try Self.typed("hte wrold ", spelling: Self.englishAndRussian) == "The world ")
  }

  @Test func aWordTooLongForTheModelIsBounded() throws {
    // A 20,000-letter word: no correction is looked for, nothing is lost.
    let long = String(repeating: "a", count: 20_000)
    let result = try Self.typed(long + " hte ")
    #expect(result == "A" + long.dropFirst() + " the ")
  }

  /// German's letters typed as a keyboard without them writes them, the
  /// commonest German slips (issue 39): at one place or several, as one
  /// slip, over a word a key away; and over the Swiss spelling that
  /// wordfreq's list has (it folds `ß` to `ss`), since the dictionary is
  /// Germany's. A word German writes so stays.
  @Test(arguments: [
    ("blossen", "bloßen"), ("gruesse", "grüße"), ("schoen", "schön"), ("muede", "müde"), ("strasse", "Straße"),
    ("groesser", "größer"), ("grosse", "große"), ("aerger", "ärger"), ("mueller", "Müller"),
    // Known, or a noun's capital nearer than a spelling with ß.
    ("muss", "muss"), ("neue", "neue"), ("aktuell", "aktuell"), ("wasser", "Wasser"), ("masse", "Masse"),
  ])
  func germanLettersWrittenWithoutTheirKeys(typed: String, meant: String) throws {
    #expect(try Self.typed("das \(typed) ", spelling: Self.german, layout: "de") == "Das \(meant) ")
  }

  /// French's œ written as oe, from the same rule of its dictionary.
  @Test func frenchLigaturesWrittenWithoutTheirKeys() throws {
    let french = try #require(Dictionaries.load(["fr"]).0)
    #expect(try Self.typed("mon coeur et une oeuvre ", spelling: french, layout: "fr") == "Mon cœur et une œuvre ")
    // A German noun in mid-sentence keeps its capital, also where the
    // dictionary has the word in lowercase too (grüße, the noun Grüße).
    #expect(try Self.typed("die Strasse ist ", spelling: Self.german, layout: "de") == "Die Straße ist ")
    #expect(
      try Self.typed("viele Gruesse an die Fuesse ", spelling: Self.german, layout: "de") == "Viele Grüße an die Füße ")
  }

  /// A letter typed without its accent, or with another: at one place
  /// or two, as one cheap slip (issue 39).
  @Test func frenchAccentsLeftOutOrWrongAreWritten() throws {
    let french = try #require(Dictionaries.load(["fr"]).0)
    let result = try Self.typed("un chateau, deja son role; il connait la crême ", spelling: french, layout: "fr")
    #expect(result == "Un château, déjà son rôle; il connaît la crème ")
    // A word the dictionary knows stays: cote (a rating) and côte (a coast).
    #expect(try Self.typed("une cote ", spelling: french, layout: "fr") == "Une cote ")
  }

  /// A misspelling people write often enough for wordfreq to list it is
  /// still corrected where the correction is commoner by far more than its
  /// slip costs; a letter typed two places late is one slip (issue 39).
  @Test func aListedMisspellingAndAMovedLetterAreCorrected() throws {
    let result = try Self.typed("das ist umbedingt so, ich knna es ", spelling: Self.german, layout: "de")
    #expect(result == "Das ist unbedingt so, ich kann es ")
  }

  /// The word before decides where the word alone is too near two (issue
  /// 39): `can break`, `a device`; a sentence's first word has none.
  @Test func theWordBeforeMakesACorrectionStandOut() throws {
    let result = try Self.typed("we can braek it. braek it. a devive here. devive it. ")
    #expect(result == "We can break it. Braek it. A device here. Devive it. ")
  }

  /// A correction far from the word typed (two slips and a rare word) is
  /// made only where the word before favours it, when there is one
  /// (issue 39): `very relevant`, but `quickly relavent` stays.
  @Test func aFarCorrectionNeedsTheWordBefore() throws {
    let result = try Self.typed("a very relavent one, quickly relavent, relavent ")
    #expect(result == "A very relevant one, quickly relavent, relevant ")
  }

  /// A word in single quotes is corrected inside them: the quote that
  /// closes it is no elision.
  @Test func aWordInSingleQuotesIsCorrected() throws {
    #expect(try Self.typed("she said 'wrold' ", config: "smart_punctuation: false\n") == "She said 'world' ")
    #expect(try Self.typed("she said 'wrold' ") == "She said ‘world’ ")
  }

  /// Two words the dictionary's list of misspellings says are run
  /// together are split, as a phone does.
  @Test func theDictionarysRunTogetherWordsAreSplit() throws {
    #expect(try Self.typed("i like it alot ") == "I like it a lot ")
  }

  @Test func anApostropheBeforeSIsOnlyAContractionOfTheCommonestWords() throws {
    let result = try Self.typed("so hes sure thats it, not familys ", config: "smart_punctuation: false\n")
    #expect(result == "So he's sure that's it, not family ")
  }

  /// A noun typed with its capital pays nothing for it, and a word as
  /// the dictionary's list of misspellings writes it is corrected where as
  /// common as the word typed (issue 39).
  @Test func aGermanNounsTypedCapitalAndTheDictionarysMisspellingsCostNothingMore() throws {
    let result = try Self.typed("wir zahlen die Reperatur und das Entgeld ", spelling: Self.german, layout: "de")
    #expect(result == "Wir zahlen die Reparatur und das Entgelt ")
  }

  @Test func germanCorrectsNounsInMidSentenceWithTheirCapital() throws {
    let result = try Self.typed("ich habe keien Hasu ", spelling: Self.german, layout: "de")
    #expect(result == "Ich habe keine Haus ")
    // A capital no noun is near stays: a name.
    #expect(try Self.typed("ich sah Wrold ", spelling: Self.german, layout: "de") == "Ich sah Wrold ")
  }

  @Test func thePronounIAndContractionsAreFixedAsOnAPhone() throws {
    let typed = "so i think im sure, dont worry, youre right, ive seen it and i'm glad i'll go "
    #expect(
      try Self.typed(typed)
        == "So I think I’m sure, don’t worry, you’re right, I’ve seen it and I’m glad I’ll go ")
    // A list's numeral stays.
    #expect(try Self.typed("see (i) and ii) ") == "See (i) and ii) ")
    // Without smart punctuation, the typewriter's apostrophe.
    #expect(try Self.typed("it's dont ", config: "smart_punctuation: false\n") == "It's don't ")
    // Words that are words stay, but for those far rarer than their
    // contraction (wordfreq's lists): `cant`, `wont`.
    let words = "its were well ill hell shed cant wont "
    #expect(
      try Self.typed(words, config: "smart_punctuation: false\n") == "Its were well ill hell shed can't won't ")
  }

  @Test func programNamesAndTheWordsAfterACommandAreLeftAlone() throws {
    // `wrold` stands for a program no list knows.
    let languages = Self.english.languages
    let spelling = Spelling(languages: languages, technical: ["wrold", "uname", "sudo"])
    let typed = "run uname, try wrold and sudo hte, or ls -l hte and x=1 hte, then hte "
    #expect(
      try Self.typed(typed, spelling: spelling, config: "smart_punctuation: false\n")
        == "Run uname, try wrold and sudo hte, or ls -l hte and x=1 hte, then the ")
    // Without the system's names, it is corrected like any unknown word.
    let plain = Spelling(languages: languages)
    #expect(try Self.typed("try wrold ", spelling: plain, config: "smart_punctuation: false\n") == "Try world ")
  }

  @Test func aCommonWordTwoSlipsAwayIsTheCorrectionWhereNoneIsOneSlipAway() throws {
    // Two slips each: ie swapped and an e too many; an m doubled and an r
    // not; an s doubled and a p not.
    #expect(
      try Self.typed("the recieveing tommorow dissapointing ")
        == "The receiving tomorrow disappointing ")
    // Words shorter than six letters are too near too many words.
    #expect(try Self.typed("an anwsr ") == "An anwsr ")
    // German: an r doubled and an s not.
    #expect(
      try Self.typed("das ist interresant ", spelling: Self.german, layout: "de") == "Das ist interessant ")
  }

  @Test func aWordNoSlipOrTwoReachesIsTheOneThatSoundsAsTyped() throws {
    // A poor speller's misspellings, three or more slips from their words.
    #expect(
      try Self.typed("the semetary, a stumache, it nessisitates ") == "The cemetery, a stomach, it necessitates ")
    // A word a slip or two away wins, though others sound as typed (band,
    // bend); short words are left alone, since too many sound alike.
    #expect(try Self.typed("we bouind the defun ") == "We bound the defun ")
  }

  @Test func twoWordsRunTogetherAreSplitWhereTheSpaceWasMissed() throws {
    // Not `thesis`: two common words beat a vowel for another.
    #expect(try Self.typed("thisis a test ofthe split ") == "This is a test of the split ")
    #expect(try Self.typed("ichbin sicher ", spelling: Self.german, layout: "de") == "Ich bin sicher ")
    // Words people write run together, of words less common than `of the`.
    #expect(try Self.typed("the filename and username ") == "The filename and username ")
    // Two words never written together are no split: a letter was missed
    // (Birkbeck's `anthings`), not a space (`an things`).
    #expect(try Self.typed("we saw anthings ") == "We saw anythings ")
    // Backspace undoes a split as any correction.
    let undone = try Simulation.run(
      "focus org.gnome.TextEditor text\nfield \"\"\ntype \"we saw thisis \"\ntap backspace\ntype \"x\"\n",
      config: "", spelling: Self.english)
    #expect(undone.text == "We saw thisis x")
  }

  @Test func theUsersOwnProgramsAndTheWordsAfterThemStayAsTyped() throws {
    // `wrold` stands for a script in ~/.local/bin, which the agent names.
    let script = "focus org.gnome.TextEditor text\nfield \"\"\ntype \"run wrold hte, then hte \"\n"
    let config = "smart_punctuation: false\n"
    let mine = try Simulation.run(script, config: config, spelling: Self.english, programs: ["wrold"])
    #expect(mine.text == "Run wrold hte, then the ")
    #expect(try Simulation.run(script, config: config, spelling: Self.english).text == "Run world the, then the ")
  }

  @Test func aWordPeopleWriteStaysUnlessACorrectionClearlyBeatsIt() throws {
    // wordfreq has these from real text; none is in a dictionary.
    let plain = Spelling(languages: Self.english.languages)
    #expect(try Self.typed("the stdout of env ", spelling: plain) == "The stdout of env ")
    #expect(try Self.typed("teh end, recieve it ", spelling: plain) == "The end, receive it ")
  }

  @Test func theWordFrequenciesAreFoundBesideTheProgram() {
    #expect(Dictionaries.frequencyDirectory.hasSuffix("/share/vkbd/wordfreq"))
    let loaded = Dictionaries.load(["en_US"], frequencies: "/nonexistent")
    #expect(loaded.0 != nil)
    #expect(
      loaded.problems == [
        "/nonexistent/en.freq: No such file or directory: en_US corrects without word frequencies"
      ])
  }

  @Test func theSystemsProgramsThatReadAsWordsAreTechnical() throws {
    let directory = NSTemporaryDirectory() + "vkbd-programs-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    for name in ["rsync", "Uname", "nl", "x", "x86_64-gcc", "run-parts", String(repeating: "a", count: 33)] {
      #expect(FileManager.default.createFile(atPath: "\(directory)/\(name)", contents: nil))
    }
    #expect(ProgramWords.names(in: [directory, "/nonexistent"]) == ["rsync", "uname", "nl"])
    // A two-letter program is no misspelling either: nl is not ln.
    let spelling = Spelling(languages: Self.english.languages, technical: ["nl"])
    #expect(try Self.typed("use nl here ", spelling: spelling, config: "smart_punctuation: false\n") == "Use nl here ")
  }
}
