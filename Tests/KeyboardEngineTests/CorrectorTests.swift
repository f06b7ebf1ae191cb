import Foundation
import Testing

@testable import KeyboardEngine

/// The corrector and the dictionaries it reads: Debian's real hunspell
/// files and layouts, and broken files of every sort. One test at a time:
/// the dictionaries below serve every test, and a dictionary is one
/// thread's, as in the daemon's loop (libhunspell's handle and the word
/// buffer are not shared safely; two tests at once made a known word
/// unknown).
@Suite(.serialized) struct CorrectorTests {
  static let english = Spelling(languages: [try! SpellingLanguage(name: "en_US")])
  static let german = Spelling(languages: [try! SpellingLanguage(name: "de_DE")])

  static func correct(_ word: String, _ spelling: Spelling = english, layout: Layout = Layouts.us) -> String? {
    spelling.decide(Array(word.unicodeScalars), neighbours: KeyNeighbours(layout: layout, group: 0))
      .map { String(String.UnicodeScalarView($0)) }
  }

  @Test(arguments: [
    ("hte", "the"), ("wrold", "world"), ("recieve", "receive"), ("becuase", "because"), ("tommorrow", "tomorrow"),
    ("definately", "definitely"), ("occured", "occurred"), ("seperate", "separate"),
  ])
  func correctsRealMisspellings(typed: String, meant: String) {
    #expect(Self.correct(typed) == meant)
  }

  @Test func leavesWhatNothingStandsOutFor() {
    // Far from every word, or near several alike.
    #expect(Self.correct("xqzvw") == nil)
  }

  @Test func theLayoutDecidesWhichKeysAreNeighbours() throws {
    let german = try Layout(names: LayoutNames(layout: "de"))
    let us = KeyNeighbours(layout: Layouts.us, group: 0)
    let de = KeyNeighbours(layout: german, group: 0)
    func touch(_ keys: KeyNeighbours, _ a: Unicode.Scalar, _ b: Unicode.Scalar) -> Bool {
      KeyNeighbours.touch(keys.place(of: a), keys.place(of: b))
    }
    // QWERTZ puts Z between T and U, QWERTY puts Y there.
    #expect(touch(de, "z", "t") && touch(de, "z", "u") && !touch(de, "y", "t"))
    #expect(touch(us, "y", "t") && !touch(us, "z", "t"))
    #expect(touch(de, "ö", "l") && touch(de, "ü", "p"))
  }

  @Test func germanCorrectsToItsWordsAndTheirCapitals() {
    #expect(Self.correct("keien", Self.german) == "keine")
    // A noun typed in lowercase: its dictionary form has the capital.
    #expect(Self.correct("hasu", Self.german) == "Haus")
  }

  @Test func knowsEveryFormLibhunspellKnows() {
    for word in ["running", "unhappiness", "Häuser", "Geburtstagsfeier"] {
      #expect(Self.english.knows(Array(word.unicodeScalars)) || Self.german.knows(Array(word.unicodeScalars)))
    }
    #expect(!Self.english.knows(Array("wrold".unicodeScalars)))
  }

  // MARK: - Broken dictionaries

  /// A directory holding `name`.aff and `name`.dic with the texts given.
  static func dictionary(aff: String, dic: String, name: String = "xx_XX") throws -> String {
    let directory = NSTemporaryDirectory() + "vkbd-dictionary-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    try aff.write(toFile: "\(directory)/\(name).aff", atomically: true, encoding: .utf8)
    try dic.write(toFile: "\(directory)/\(name).dic", atomically: true, encoding: .utf8)
    return directory
  }

  static func loadError(aff: String, dic: String) throws -> String? {
    let directory = try dictionary(aff: aff, dic: dic)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    do {
      _ = try SpellingLanguage(name: "xx_XX", directory: directory, frequencyDirectory: nil)
      return nil
    } catch {
      return error.description.replacingOccurrences(of: directory + "/", with: "")
    }
  }

  @Test(arguments: [
    ("SET ISO8859-1\n", "xx_XX.aff:1: encoding ISO8859-1 is not UTF-8, the only one vkbd reads"),
    ("SFX A Y 2\nSFX A 0 s .\nPFX B Y 1\n", "xx_XX.aff:3: 1 rules of the previous affix are missing"),
    ("SFX A Y\n", "xx_XX.aff:1: SFX header needs a flag, Y or N, and a count"),
    ("SFX A Y 1\nSFX A 0 s\n", "xx_XX.aff:2: SFX rule needs a strip, an affix and a condition"),
    ("SFX A Y 1\nSFX A 0 s [ab\n", "xx_XX.aff:2: condition [ab has an unclosed ["),
    ("FLAG wide\n", "xx_XX.aff:1: FLAG wide is not a flag style"),
  ])
  func anAffixFileThatDoesNotParseIsRefusedAtItsLine(aff: String, error: String) throws {
    #expect(try Self.loadError(aff: aff, dic: "1\nword\n") == error)
  }

  @Test func aMissingOrBrokenWordListIsRefused() throws {
    #expect(
      try Self.loadError(aff: "SET UTF-8\n", dic: "word\n") == "xx_XX.dic:1: the first line is not the number of words")
    let missing = try SpellingLanguage.loadingError(name: "xx_XX", directory: "/nonexistent")
    #expect(missing == "/nonexistent/xx_XX.aff: No such file or directory")
    let named = try SpellingLanguage.loadingError(name: "../etc/passwd", directory: "/usr/share/hunspell")
    #expect(named == "/usr/share/hunspell: \"../etc/passwd\" is not a dictionary name")
  }

  @Test func aWordListNotInUTF8IsRefused() throws {
    let directory = try Self.dictionary(aff: "SET UTF-8\n", dic: "")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    try Data([0x31, 0x0A, 0x66, 0xFC, 0x72, 0x0A]).write(to: URL(fileURLWithPath: "\(directory)/xx_XX.dic"))
    #expect(
      try SpellingLanguage.loadingError(name: "xx_XX", directory: directory) == "\(directory)/xx_XX.dic: not UTF-8")
  }

  @Test func affixesMakeEveryFormTheyAllow() throws {
    // A prefix and a suffix that combine, and a suffix another allows.
    let aff = """
      SET UTF-8
      TRY abcdefghijklmnopqrstuvwxyz
      NEEDAFFIX N
      PFX U Y 1
      PFX U 0 un .
      SFX S Y 2
      SFX S y ies [^aeiou]y
      SFX S 0 s [^y]
      SFX D Y 1
      SFX D 0 ed/S .
      """
    let directory = try Self.dictionary(aff: aff, dic: "3\nkind/US\ntry/S\nstem/DN\n")
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let language = try SpellingLanguage(name: "xx_XX", directory: directory, frequencyDirectory: nil)
    for form in ["kind", "kinds", "unkind", "unkinds", "try", "tries", "stemed", "stemeds"] {
      #expect(language.form(hash: WordIndex.hash(form.unicodeScalars)) == 0, "\(form)")
    }
    for form in ["trys", "untry", "stem", "kindies"] {
      #expect(language.form(hash: WordIndex.hash(form.unicodeScalars)) == nil, "\(form)")
    }
    #expect(language.letters.count == 26 && language.formCount == 8)
  }

  @Test func aMillionWordDictionaryLoadsBounded() throws {
    // A million distinct words: all indexed, within the memory bound.
    var dic = "1000000\n"
    dic.reserveCapacity(9_000_000)
    var generator = SystemRandomNumberGenerator()
    _ = generator.next()
    for index in 0..<1_000_000 {
      var value = index
      var word = ""
      for _ in 0..<6 {
        word.unicodeScalars.append(Unicode.Scalar(UInt8(97 + value % 26)))
        value /= 26
      }
      dic += word + "\n"
    }
    let directory = try Self.dictionary(aff: "SET UTF-8\nTRY abcdefghijklmnopqrstuvwxyz\n", dic: dic)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    let language = try SpellingLanguage(name: "xx_XX", directory: directory, frequencyDirectory: nil)
    #expect(language.formCount > 999_000 && !language.isTruncated)
    #expect(language.indexBytes < 16 << 20)
  }
}

extension SpellingLanguage {
  /// Why `name` in `directory` does not load (nil: it does).
  static func loadingError(name: String, directory: String) throws -> String? {
    do {
      _ = try SpellingLanguage(name: name, directory: directory, frequencyDirectory: nil)
      return nil
    } catch {
      return error.description
    }
  }
}
