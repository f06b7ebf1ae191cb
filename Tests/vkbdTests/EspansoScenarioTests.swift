import CEvdev
import Foundation
import KeyboardEngine
import Testing

@testable import VKBDDaemon

/// espanso's match features as a person types them (issue 17): regex
/// triggers, nested matches, shell variables worked out by the user's
/// session, and expansions that keep what the trigger shares with them.
@Suite struct EspansoScenarioTests {
  static let config = """
    autocapitalize: false
    double_space_period: false
    matches:
      - trigger: recieve
        replace: receive
      - regex: ":(?P<count>\\\\d+)x(?P<what>\\\\w+)/"
        replace: "{{what}} ×{{count}}"
      - trigger: ":outer"
        replace: "[{{inner}}]"
        vars:
          - name: inner
            type: match
            params:
              trigger: ":in"
      - trigger: ":in"
        replace: "nested {{n}}"
        vars:
          - name: n
            type: echo
            params:
              echo: ok
      - trigger: ":sh"
        replace: "<{{out}}>"
        vars:
          - name: out
            type: shell
            params:
              cmd: "printf '  %s  ' shell"
      - regex: ":up(?P<x>\\\\w+);"
        replace: "{{loud}}"
        vars:
          - name: loud
            type: shell
            params:
              cmd: "printf '%s' \\"$ESPANSO_X\\" | tr a-z A-Z"
      - trigger: ":fail"
        replace: "{{out}}"
        vars:
          - name: out
            type: shell
            params:
              cmd: "exit 3"
    """

  @Test(arguments: [
    ("type \"buy :12xeggs/ now\"", "buy eggs ×12 now"),
    // The regex is searched in the last 30 characters typed.
    ("type \"\(String(repeating: "z", count: 40)):3xa/\"", String(repeating: "z", count: 40) + "a ×3"),
    ("type \":outer.\"", "[nested ok]."),
    ("type \":sh then\"", "<shell> then"),
    ("type \":uphello; ok\"", "HELLO ok"),
    ("type \"I recieve it\"", "I receive it"),
  ])
  func expands(script: String, shown: String) throws {
    #expect(try Simulation.run(script, config: Self.config).text == shown)
  }

  @Test func anExpansionDeletesOnlyWhatDiffers() throws {
    let result = try Simulation.run("type recieve", config: Self.config)
    let backspaces = result.transcript.filter { $0.key.code == UInt16(KEY_BACKSPACE) && $0.key.value == .down }
    // "recie" + "v" are on the screen ("e" is the swallowed key): "rec" stays.
    #expect(backspaces.count == 3)
    #expect(result.text == "receive")
  }

  @Test func keysTypedWhileTheSessionWorksAVariableOutWaitAndKeepTheirOrder() throws {
    // The answer comes 100 ms after the trigger; "then" goes on typing at
    // 60 ms a key meanwhile.
    let result = try Simulation.run("type :sh\ntype \" then more\"", config: Self.config)
    #expect(result.text == "<shell> then more")
    let first = try #require(result.transcript.firstIndex { $0.key.code == UInt16(KEY_T) })
    let expansionEnd = try #require(
      result.transcript.lastIndex { $0.key.code == UInt16(KEY_DOT) || $0.key.code == UInt16(KEY_COMMA) })
    #expect(expansionEnd < first)
  }

  @Test func aVariableThatFailsLeavesTheTriggerAsTyped() throws {
    #expect(try Simulation.run("type \":fail then\"", config: Self.config).text == ":fail then")
  }
}
