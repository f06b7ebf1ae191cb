import LinuxSystem

/// xkeyboard-config's layouts and variants by description, read from its
/// rules list (`evdev.lst`): "German (no dead keys)" is `de(nodeadkeys)`.
/// A description both a layout and a variant give (Sun keyboards' variants
/// describe themselves as their layout) is the layout.
struct LayoutDescriptions {
  private var byDescription: [String: (layout: String, variant: String)] = [:]

  static let path = "/usr/share/X11/xkb/rules/evdev.lst"
  /// The system's list; empty when it cannot be read.
  static var system: LayoutDescriptions { LayoutDescriptions(list: (try? Files.readText(path)) ?? "") }

  /// Reads the `! layout` and `! variant` sections of a rules list.
  init(list: String) {
    var section = ""
    var variants: [(String, (String, String))] = []
    for line in list.split(separator: "\n") {
      if line.hasPrefix("!") {
        section = line.dropFirst().trimmed
        continue
      }
      let trimmed = line.trimmed
      guard let space = trimmed.firstIndex(of: " ") else { continue }
      let name = String(trimmed[..<space])
      let rest = trimmed[space...].trimmed
      switch section {
      case "layout": byDescription[rest] = byDescription[rest] ?? (name, "")
      case "variant":
        guard let colon = rest.firstIndex(of: ":") else { continue }
        let layout = String(rest[..<colon])
        variants.append((rest[rest.index(after: colon)...].trimmed, (layout, name)))
      default: break
      }
    }
    for (description, names) in variants where byDescription[description] == nil { byDescription[description] = names }
  }

  /// The layout and variant a description names; nil for an unknown one.
  func names(for description: String) -> (layout: String, variant: String)? { byDescription[description] }
}

extension Substring {
  /// The text without white space at either end.
  var trimmed: String {
    String(drop { $0.isWhitespace }.reversed().drop { $0.isWhitespace }.reversed())
  }
}
