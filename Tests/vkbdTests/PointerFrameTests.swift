import CEvdev
import Testing

@testable import VKBDDaemon

@Suite struct PointerFrameTests {
  func event(_ type: Int32, _ code: Int32, _ value: Int32) -> input_event {
    input_event(type: UInt16(type), code: UInt16(code), value: value)
  }

  func pairs(_ events: [input_event]) -> [[Int32]] { events.map { [Int32($0.type), Int32($0.code), $0.value] } }

  @Test func aFrameIsWhatCameBetweenTwoReportsAndKeysAreNotThePointers() {
    var frame = PointerFrame()
    #expect(frame.take(event(EV_REL, REL_X, 3)) == .held(click: false))
    #expect(frame.take(event(EV_KEY, KEY_A, 1)) == .notPointer)  // typed, through the engine
    #expect(frame.take(event(EV_MSC, MSC_SCAN, 0x70004)) == .notPointer)
    #expect(frame.take(event(EV_REL, REL_WHEEL_HI_RES, 120)) == .held(click: false))
    #expect(frame.take(event(EV_KEY, BTN_LEFT, 1)) == .held(click: true))
    #expect(frame.take(event(EV_SYN, SYN_REPORT, 0)) == .complete)
    #expect(
      pairs(frame.events) == [[EV_REL, REL_X, 3], [EV_REL, REL_WHEEL_HI_RES, 120], [EV_KEY, BTN_LEFT, 1]])
    frame.sent()
    // A report after keys only ends no pointer frame.
    #expect(frame.take(event(EV_KEY, KEY_A, 0)) == .notPointer)
    #expect(frame.take(event(EV_SYN, SYN_REPORT, 0)) == .notPointer)
    #expect(frame.take(event(EV_KEY, BTN_LEFT, 0)) == .held(click: false))
  }

  @Test func theButtonsStillDownAreLetGo() {
    var frame = PointerFrame()
    for (code, value) in [(BTN_LEFT, 1), (BTN_RIGHT, 1), (BTN_RIGHT, 0), (BTN_SIDE, 1)] {
      _ = frame.take(event(EV_KEY, code, Int32(value)))
      _ = frame.take(event(EV_SYN, SYN_REPORT, 0))
      frame.sent()
    }
    // A frame cut short counts for nothing: its press never went out.
    _ = frame.take(event(EV_KEY, BTN_MIDDLE, 1))
    #expect(pairs(frame.releases()) == [[EV_KEY, BTN_LEFT, 0], [EV_KEY, BTN_SIDE, 0]])
    #expect(frame.releases().isEmpty)
  }

  @Test func buttonsAreThePointerRangesOnly() {
    #expect(PointerFrame.isButton(Int(BTN_LEFT)) && PointerFrame.isButton(Int(BTN_TOUCH)))
    #expect(PointerFrame.isButton(Int(BTN_DPAD_UP)) && PointerFrame.isButton(Int(BTN_TRIGGER_HAPPY1)))
    #expect(!PointerFrame.isButton(Int(KEY_A)) && !PointerFrame.isButton(Int(KEY_MICMUTE)))
    #expect(!PointerFrame.isButton(Int(KEY_OK)) && !PointerFrame.isButton(Int(KEY_MAX) + 1))
  }
}
