import AgentProtocol
import Testing

@testable import SessionAgent

/// The picker's drawing, read back from the image it makes (no display
/// needed): the page that holds the selection, the selected row's colour
/// where that row is, the theme's background, the scale.
@Suite struct PickerPainterTests {
  static func view(rows: Int, selected: Int) -> PickerShow {
    PickerShow(
      query: "regards", labels: (0..<rows).map { "Row \($0)" }, triggers: (0..<rows).map { ":r\($0)" },
      sources: (0..<rows).map { "/home/ada/match/file\($0).yml" }, selected: selected, total: rows * 10, trigger: nil)
  }

  /// The image of `view` at `scale`, as 0xAARRGGBB pixels, with its width.
  static func render(_ view: PickerShow, theme: PickerTheme = .light, scale: Int32 = 1) -> (
    pixels: [UInt32], width: Int
  ) {
    let stride = PickerPainter.stride(scale: scale)
    let height = Int(PickerPainter.height(for: view)) * Int(scale)
    var pixels = [UInt32](repeating: 0, count: Int(stride) / 4 * height)
    pixels.withUnsafeMutableBytes { bytes in
      PickerPainter(theme: theme).draw(view, into: bytes.baseAddress!, stride: stride, scale: scale, opaque: true)
    }
    return (pixels, Int(stride) / 4)
  }

  static func rgb(_ color: PickerTheme.Color) -> UInt32 {
    0xFF00_0000 | UInt32(color.red * 255) << 16 | UInt32(color.green * 255) << 8 | UInt32(color.blue * 255)
  }

  /// The lines of pixels where the column 14 pixels in (between the
  /// selection's rounded corner and the text) has the selection's colour.
  static func selectedLines(_ image: (pixels: [UInt32], width: Int), scale: Int) -> [Int] {
    let selection = rgb(PickerTheme.light.selection)
    return (0..<image.pixels.count / image.width).filter { image.pixels[$0 * image.width + 14 * scale] == selection }
  }

  @Test func theSelectedRowIsDrawnWhereItIsAndThePageFollowsIt() {
    // Row 1 of 3: the second row's band.
    let first = Self.selectedLines(Self.render(Self.view(rows: 3, selected: 1)), scale: 1)
    let top = PickerPainter.padding + PickerPainter.headerHeight + PickerPainter.rowHeight
    #expect(first.first == Int(top) + 2 && first.last == Int(top + PickerPainter.rowHeight) - 3)
    // Row 11 of 12: the page scrolls, and it is the last row on screen.
    let view = Self.view(rows: 12, selected: 11)
    #expect(PickerPainter.firstVisibleRow(for: view) == 4)
    let last = Self.selectedLines(Self.render(view), scale: 1)
    let bottom =
      PickerPainter.padding + PickerPainter.headerHeight + Double(PickerPainter.visibleRows) * PickerPainter.rowHeight
    #expect(last.last == Int(bottom) - 3)
    #expect(PickerPainter.height(for: view) == bottom + PickerPainter.padding)
  }

  @Test func itIsAsDarkOrLightAsTheThemeAndScaled() {
    let view = Self.view(rows: 2, selected: 0)
    for theme in [PickerTheme.light, .dark] {
      let image = Self.render(view, theme: theme)
      let background = image.pixels.filter { $0 == Self.rgb(theme.background) }.count
      #expect(background > image.pixels.count / 2)
    }
    let double = Self.render(view, scale: 2)
    #expect(double.width == Int(PickerPainter.width) * 2)
    #expect(Self.selectedLines(double, scale: 2).count == 2 * Self.selectedLines(Self.render(view), scale: 1).count)
  }

  @Test func emptyAndHugeViewsDraw() {
    let empty = PickerShow(query: "zzz", labels: [], triggers: [], sources: [], selected: 0, total: 0, trigger: nil)
    #expect(
      PickerPainter.height(for: empty) == PickerPainter.padding * 2 + PickerPainter.headerHeight
        + PickerPainter.rowHeight)
    #expect(Self.selectedLines(Self.render(empty), scale: 1).isEmpty)
    let long = String(repeating: "€ long label ", count: 2000)
    let huge = PickerShow(
      query: long, labels: [long], triggers: [long], sources: [long], selected: 0, total: 1, trigger: nil)
    #expect(!Self.selectedLines(Self.render(huge), scale: 1).isEmpty)
  }
}
