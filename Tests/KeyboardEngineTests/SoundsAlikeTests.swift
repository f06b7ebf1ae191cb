import Testing

@testable import KeyboardEngine

/// English words filed by their sounds: a poor speller's misspellings
/// (the Birkbeck corpus's kind) sound as the word they meant.
@Suite struct SoundsAlikeTests {
  static func key(_ word: String) -> UInt64? { SoundsAlike.key(of: word.unicodeScalars) }

  @Test(arguments: [
    ("semetary", "cemetery"), ("juise", "juice"), ("carrers", "careers"), ("fone", "phone"), ("nite", "night"),
    ("relly", "really"), ("stumache", "stomach"), ("experance", "experience"), ("nessisitates", "necessitates"),
    ("nolij", "knowledge"), ("rite", "write"), ("akward", "awkward"), ("kwik", "quick"), ("exsept", "except"),
  ])
  func aMisspellingSoundsAsItsWord(typed: String, meant: String) {
    #expect(Self.key(typed) != nil)
    #expect(Self.key(typed) == Self.key(meant))
  }

  @Test(arguments: [
    ("cat", "cap"), ("light", "like"), ("sense", "cents"), ("sell", "shell"), ("bat", "bath"), ("sign", "sing"),
    ("ship", "sip"),
  ])
  func wordsOfOtherSoundsHaveOtherKeys(first: String, second: String) {
    #expect(Self.key(first) != nil && Self.key(second) != nil)
    #expect(Self.key(first) != Self.key(second))
  }

  @Test func onlyWordsOfTheLettersAToZOfTwoOrMoreHaveAKey() {
    #expect(Self.key("café") == nil && Self.key("x") == nil && Self.key("it's") == nil)
    #expect(Self.key("ox") != nil)
  }

  @Test func theIndexFindsEveryWordOfAKeyAndNoOther() {
    let alphabet = Array("abcdefghijklmnopqrstuvwxyz".unicodeScalars)
    func letters(_ word: String) -> [UInt8] { word.unicodeScalars.map { UInt8(alphabet.firstIndex(of: $0)!) } }
    let words = ["cemetery", "cent", "scent", "sent", "juice", "sense"].map { (letters($0), UInt8(0)) }
    let index = SoundsAlike(words: words, alphabet: alphabet)
    #expect(index.count == 6)
    func alike(_ typed: String) -> Set<String> {
      var found: Set<String> = []
      index.forEachWord(soundingLike: typed.unicodeScalars) { word, _ in
        found.insert(String(String.UnicodeScalarView(word.map { alphabet[Int($0)] })))
      }
      return found
    }
    #expect(alike("semetary") == ["cemetery"])
    #expect(alike("sennt") == ["cent", "scent", "sent"])
    #expect(alike("joose") == ["juice"])
    #expect(alike("table").isEmpty && alike("naïve").isEmpty)
  }
}
