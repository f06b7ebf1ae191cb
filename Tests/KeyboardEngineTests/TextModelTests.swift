import Testing

@testable import KeyboardEngine

@Suite struct TextModelTests {
  @Test func keepsWhatWasTypedAndDeletesBackward() {
    var model = TextModel()
    for character in "héllo".unicodeScalars { model.append(character) }
    #expect(model.text == "héllo")
    #expect(model[fromEnd: 0] == "o")
    model.deleteBackward()
    #expect(model.text == "héll")
  }

  @Test func backspaceRemovesABaseCharacterWithItsCombiningMarks() {
    var model = TextModel()
    for character in "ae\u{301}".unicodeScalars { model.append(character) }
    model.deleteBackward()
    #expect(model.text == "a")
  }

  @Test func backspaceOnAnEmptyModelChangesNothing() {
    var model = TextModel()
    #expect(model.deleteBackward() == false)
    #expect(model.isEmpty)
  }

  @Test func dropsTheOldestCharactersWhenFull() {
    var model = TextModel()
    for index in 0..<(TextModel.capacity + 10) {
      model.append(Unicode.Scalar(UInt8(97 + index % 26)))
    }
    #expect(model.count == TextModel.capacity)
    #expect(model.isTruncated)
    #expect(model[fromEnd: 0] == Unicode.Scalar(UInt8(97 + (TextModel.capacity + 9) % 26)))
    model.reset()
    #expect(model.isEmpty && !model.isTruncated)
  }

  /// The quick answers for ASCII and below U+0300 agree with the Unicode
  /// tables on every scalar of the Basic Multilingual Plane.
  @Test func theCharacterClassesAgreeWithUnicode() {
    var disagreements: [UInt32] = []
    for value in UInt32(0)...0xFFFF {
      guard let scalar = Unicode.Scalar(value) else { continue }
      let category = scalar.properties.generalCategory
      // The quotes: ASCII's, and the typographic ones, which open and close.
      let quote =
        "\"'".unicodeScalars.contains(scalar) || category == .initialPunctuation || category == .finalPunctuation
      if AutoCapitalization.isOpening(scalar)
        != (quote || "¿¡".unicodeScalars.contains(scalar) || category == .openPunctuation)
        || AutoCapitalization.isClosing(scalar) != (quote || category == .closePunctuation)
        || TextModel.isCombining(scalar) != [.nonspacingMark, .enclosingMark, .spacingMark].contains(category)
      {
        disagreements.append(value)
      }
    }
    #expect(disagreements.isEmpty)
  }
}
