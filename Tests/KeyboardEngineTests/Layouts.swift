import KeyboardEngine
import XKBFiles

/// Layouts compiled once for all tests (compiling a keymap takes milliseconds).
enum Layouts {
  nonisolated(unsafe) static let us = try! Layout(names: LayoutNames(layout: "us"))
  nonisolated(unsafe) static let de = try! Layout(names: LayoutNames(layout: "de"))
  nonisolated(unsafe) static let fr = try! Layout(names: LayoutNames(layout: "fr"))
  nonisolated(unsafe) static let chFr = try! Layout(names: LayoutNames(layout: "ch", variant: "fr"))
  nonisolated(unsafe) static let dvorak = try! Layout(names: LayoutNames(layout: "us", variant: "dvorak"))
  nonisolated(unsafe) static let usRu = try! Layout(
    names: LayoutNames(layout: "us,ru", options: "grp:alt_shift_toggle"))

  static func named(_ name: String) -> Layout {
    switch name {
    case "us": return us
    case "de": return de
    case "fr": return fr
    case "ch(fr)": return chFr
    case "us(dvorak)": return dvorak
    case "us,ru": return usRu
    default:
      guard let names = LayoutNames(parsing: name, options: ""), let layout = try? Layout(names: names) else {
        fatalError("no layout \(name)")
      }
      return layout
    }
  }
}
