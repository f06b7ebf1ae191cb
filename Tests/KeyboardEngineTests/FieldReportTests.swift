import CKeyboard
import Testing
import XKBFiles

@testable import KeyboardEngine

/// A session agent's reports of the field's text, against what the engine
/// typed itself: agreement completes the model, disagreement replaces it.
@Suite struct FieldReportTests {
  static func driver() -> EngineDriver {
    var configuration = EngineConfiguration()
    configuration.backspace.accelerate = false
    return EngineDriver(configuration: configuration)
  }

  static func scalars(_ text: String) -> [Unicode.Scalar] { Array(text.unicodeScalars) }

  @Test func aReportBehindTheLastKeysKeepsThem() {
    var driver = Self.driver()
    driver.engine.fieldReported(before: Self.scalars("Hi "), isFieldStart: true)
    for key in [KEY_T, KEY_H, KEY_E] { driver.tap(key) }
    // The report left the application before "e" arrived there.
    driver.engine.fieldReported(before: Self.scalars("Hi th"), isFieldStart: true)
    #expect(driver.engine.text.text == "Hi the" && driver.engine.text.isFieldStart, "\(driver.engine.text.text)")
  }

  /// The reports of a slow desktop arrive after the engine's own edits:
  /// one of the text before the double-space period was typed, or before
  /// Backspace deleted, describes a state the engine went through, and
  /// changes nothing (seen in the VM: "Hello. tHere").
  @Test func aReportOfTheTextBeforeTheEnginesOwnEditIsPast() {
    var driver = Self.driver()
    driver.engine.fieldReported(before: [], isFieldStart: true)
    for key in [KEY_H, KEY_E, KEY_L, KEY_L, KEY_O, KEY_SPACE, KEY_SPACE] { driver.tap(key) }
    #expect(driver.engine.text.text == "Hello. ")
    for late in ["Hell", "Hello ", "Hello", "Hello."] {
      driver.engine.fieldReported(before: Self.scalars(late), isFieldStart: true)
      #expect(driver.engine.text.text == "Hello. ", "after the late report \(late)")
    }
    driver.tap(KEY_T)
    #expect(driver.engine.text.text == "Hello. T")
    driver.engine.fieldReported(before: Self.scalars("Hello. "), isFieldStart: true)
    for key in [KEY_H, KEY_E] { driver.tap(key) }
    #expect(driver.engine.text.text == "Hello. The")
    // Backspace, and a report from before it.
    driver.tap(KEY_BACKSPACE)
    driver.engine.fieldReported(before: Self.scalars("Hello. The"), isFieldStart: true)
    #expect(driver.engine.text.text == "Hello. Th")
  }

  /// A correction deletes letters that its undo types again, so a late
  /// report's text stands at several states the model went through. Seen
  /// in the VM under load: GTK's reports came a dozen edits late, the one
  /// of "wo" while the correction typed "world" was taken for the undo's
  /// "wo", the next ("wor") then agreed with nothing and replaced the
  /// model, and the next word lost its letters ("wrold" corrected as
  /// "wold", into "wool").
  @Test func lateReportsOfACorrectionAndItsUndoChangeNothing() {
    var model = TextModel()
    model.replace(with: Self.scalars("I saw the "), isFieldStart: true)
    var states = ["I saw the "]
    func edit(deleting deleted: Int, typing typed: String) {
      for _ in 0..<deleted {
        model.deleteBackward()
        states.append(model.text)
      }
      for character in typed.unicodeScalars {
        model.append(character)
        states.append(model.text)
      }
    }
    edit(deleting: 0, typing: "wrold")
    edit(deleting: 4, typing: "orld ")  // the correction, sharing "w"
    edit(deleting: 6, typing: "wrold ")  // Backspace: its undo
    // The field's reports, each of a state the model went through, in order.
    for late in states.dropFirst(4) {
      let agreed = model.reconcile(with: Self.scalars(late), isFieldStart: true)
      #expect(agreed, "the late report \(late)")
      #expect(model.text == "I saw the wrold ", "after the late report \(late)")
    }
    // A report of a state it never went through still replaces it.
    let agreed = model.reconcile(with: Self.scalars("I saw the wood"), isFieldStart: true)
    #expect(!agreed)
    #expect(model.text == "I saw the wood")
  }

  /// GTK's text views and Firefox's text areas send the paragraph around
  /// the cursor as the whole field: after Enter, the new paragraph's
  /// report agrees with the model, which keeps the text before it.
  @Test func aParagraphsReportAgreesWithTheTextBeforeIt() {
    var model = TextModel()
    model.replace(with: Self.scalars("First line."), isFieldStart: true)
    for character in "\nab".unicodeScalars { model.append(character) }
    for late in ["", "a", "ab"] {
      let agreed = model.reconcile(with: Self.scalars(late), isFieldStart: true)
      #expect(agreed && model.text == "First line.\nab" && model.isFieldStart, "after the report \(late)")
    }
    // Without the newline, a shorter text that starts the field disagrees.
    let agreed = model.reconcile(with: Self.scalars("b"), isFieldStart: true)
    #expect(!agreed && model.text == "b")
  }

  @Test func aReportThatDisagreesWins() {
    var driver = Self.driver()
    driver.engine.fieldReported(before: Self.scalars("Hi"), isFieldStart: true)
    for key in [KEY_A, KEY_B, KEY_C] { driver.tap(key) }
    // The cursor is elsewhere now: no state the engine went through.
    driver.engine.fieldReported(before: Self.scalars("Done. "), isFieldStart: false)
    #expect(driver.engine.text.text == "Done. " && !driver.engine.text.isFieldStart)
    driver.tap(KEY_X)
    #expect(driver.emitted.suffix(6).contains(OutputKey(code: UInt16(KEY_LEFTSHIFT), value: .down)))
  }

  @Test func aReportWithMoreTextCompletesTheModel() {
    var driver = Self.driver()
    driver.tap(KEY_A)
    driver.engine.fieldReported(before: Self.scalars("It is a"), isFieldStart: true)
    #expect(driver.engine.text.text == "It is a" && driver.engine.text.isFieldStart)
  }

  @Test func aLateReportOfWhereTheClickWasCompletesTheTextTypedSince() {
    var driver = Self.driver()
    driver.engine.resetText()  // a click
    for key in [KEY_A, KEY_B] { driver.tap(key) }
    driver.engine.fieldReported(before: Self.scalars("Done. "), isFieldStart: false)
    #expect(driver.engine.text.text == "Done. ab" && !driver.engine.text.isFieldStart)
    driver.engine.fieldReported(before: [], isFieldStart: true)
    // Now it disagrees: the field is empty, whatever the engine typed.
    #expect(driver.engine.text.isEmpty && driver.engine.text.isFieldStart)
  }

  @Test func theFieldStartIsLostWhenTheModelOverflows() {
    var model = TextModel()
    model.replace(with: Self.scalars("ab"), isFieldStart: true)
    #expect(model.isFieldStart && !model.isTruncated)
    for _ in 0..<TextModel.capacity { model.append("x") }
    #expect(!model.isFieldStart && model.isTruncated)
    model.replace(with: Array(repeating: "y", count: TextModel.capacity + 1), isFieldStart: true)
    #expect(!model.isFieldStart && model.count == TextModel.capacity)
  }

  @Test func theEngineFollowsTheDesktopsGroup() throws {
    let layout = try Layout(names: LayoutNames(layout: "us,ru"))
    var driver = EngineDriver(layout: layout, configuration: EngineConfiguration())
    driver.engine.follow(layout, group: 1)
    driver.tap(KEY_F)  // а on the Russian layout
    #expect(driver.engine.text.text == "а")
    driver.engine.follow(layout, group: 0)
    driver.tap(KEY_F)
    #expect(driver.engine.text.text == "аf")
    // A group the keymap lacks changes nothing.
    driver.engine.follow(layout, group: 5)
    driver.tap(KEY_F)
    #expect(driver.engine.text.text == "аff")
  }
}
