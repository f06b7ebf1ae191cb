import AgentProtocol
import CPango

/// The snippet picker's look, the same on every desktop the agent draws it
/// on (DESIGN 8): a box with the query and the number of matches on top,
/// then a page of rows (the label; the trigger and the file, dimmed), the
/// selected one highlighted. Sizes are logical pixels, multiplied by the
/// output's scale when drawn; text is laid out by Pango in the desktop's
/// sans-serif font, so any script and any scale stay legible.
struct PickerPainter {
  static let width = 560.0
  static let padding = 8.0
  static let headerHeight = 40.0
  static let rowHeight = 32.0
  /// Rows on screen at once; the page scrolls to keep the selection on it.
  static let visibleRows = 8
  static let cornerRadius = 8.0

  var theme: PickerTheme

  /// The height of the window for `view`: one row at least (for "no
  /// snippet matches").
  static func height(for view: PickerShow) -> Double {
    let rows = max(1, min(view.labels.count, visibleRows))
    return padding * 2 + headerHeight + Double(rows) * rowHeight
  }

  /// The first row on screen: the page that holds the selection.
  static func firstVisibleRow(for view: PickerShow) -> Int {
    view.selected < visibleRows ? 0 : view.selected - visibleRows + 1
  }

  /// What the header says on its right.
  static func countText(for view: PickerShow) -> String {
    if view.total == 0 { return "" }
    if view.total == 1 { return "1 snippet" }
    return "\(view.total) snippets"
  }

  /// Draws `view` at `scale` into `memory`, an image of cairo's ARGB32
  /// (premultiplied; on a little-endian machine Wayland's ARGB8888 and X11's
  /// 24-bit TrueColor ZPixmap), `stride` bytes a row, as big as the window
  /// at that scale. `opaque`: the corners in the background's colour, for a
  /// window without alpha.
  func draw(
    _ view: PickerShow, into memory: UnsafeMutableRawPointer, stride: Int32, scale: Int32, opaque: Bool
  ) {
    let height = Self.height(for: view)
    let image = cairo_image_surface_create_for_data(
      memory.assumingMemoryBound(to: UInt8.self), CAIRO_FORMAT_ARGB32, Int32(Self.width) * scale,
      Int32(height) * scale, stride)
    let cairo = cairo_create(image)!
    cairo_scale(cairo, Double(scale), Double(scale))
    paint(view, on: cairo, height: height, opaque: opaque)
    cairo_destroy(cairo)
    cairo_surface_flush(image)
    cairo_surface_destroy(image)
  }

  /// Draws a sample view once, into memory that is then freed, so that
  /// fontconfig and Pango load their fonts when the agent starts and not at
  /// the first chord (in the VM the first picker took 741 ms to its frame
  /// before, the next ones 39 ms).
  static func warmUp() {
    let view = PickerShow(
      query: "Aa", labels: ["Aa"], triggers: [":a"], sources: ["a.yml"], selected: 0, total: 1, trigger: nil)
    let stride = stride(scale: 1)
    let length = Int(stride) * Int(height(for: view))
    let memory = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 16)
    defer { memory.deallocate() }
    PickerPainter(theme: .light).draw(view, into: memory, stride: stride, scale: 1, opaque: true)
  }

  /// The bytes a row of the window's image takes at `scale`.
  static func stride(scale: Int32) -> Int32 {
    cairo_format_stride_for_width(CAIRO_FORMAT_ARGB32, Int32(width) * scale)
  }

  /// Draws `view` on `cairo`, whose origin is the window's top left and
  /// whose units are logical pixels.
  private func paint(_ view: PickerShow, on cairo: OpaquePointer, height: Double, opaque: Bool) {
    let width = Self.width
    // The box: the window is exactly its size, its corners transparent
    // where the surface has alpha.
    cairo_set_operator(cairo, CAIRO_OPERATOR_SOURCE)
    if opaque { set(cairo, theme.background) } else { cairo_set_source_rgba(cairo, 0, 0, 0, 0) }
    cairo_paint(cairo)
    cairo_set_operator(cairo, CAIRO_OPERATOR_OVER)
    roundedRectangle(cairo, 0.5, 0.5, width - 1, height - 1, Self.cornerRadius)
    set(cairo, theme.background)
    cairo_fill_preserve(cairo)
    set(cairo, theme.border)
    cairo_set_line_width(cairo, 1)
    cairo_stroke(cairo)

    let text = TextPainter(cairo: cairo)
    defer { text.release() }
    let inner = width - Self.padding * 2 - 16
    let x = Self.padding + 8
    // The header: the query (or what it searches), the count on the right.
    let count = Self.countText(for: view)
    let countWidth = text.draw(
      count, font: "Sans 9", color: theme.dim, x: x, y: Self.padding, width: inner * 0.4, height: Self.headerHeight,
      rightEdge: x + inner)
    let prompt: String
    let promptColor: PickerTheme.Color
    if !view.query.isEmpty {
      (prompt, promptColor) = (view.query, theme.text)
    } else if let trigger = view.trigger {
      (prompt, promptColor) = ("Choose a snippet for \(trigger)", theme.dim)
    } else {
      (prompt, promptColor) = ("Search snippets", theme.dim)
    }
    _ = text.draw(
      prompt, font: "Sans 12", color: promptColor, x: x, y: Self.padding, width: inner - countWidth - 12,
      height: Self.headerHeight, ellipsizeStart: !view.query.isEmpty)
    set(cairo, theme.border)
    cairo_rectangle(cairo, Self.padding, Self.padding + Self.headerHeight - 1, width - Self.padding * 2, 1)
    cairo_fill(cairo)

    // The rows.
    var y = Self.padding + Self.headerHeight
    if view.labels.isEmpty {
      _ = text.draw(
        view.query.isEmpty ? "No snippets" : "No snippet matches", font: "Sans 11", color: theme.dim, x: x, y: y,
        width: inner, height: Self.rowHeight)
      return
    }
    let first = Self.firstVisibleRow(for: view)
    for row in first..<min(view.labels.count, first + Self.visibleRows) {
      let selected = row == view.selected
      if selected {
        roundedRectangle(cairo, Self.padding, y + 2, width - Self.padding * 2, Self.rowHeight - 4, 6)
        set(cairo, theme.selection)
        cairo_fill(cairo)
      }
      let foreground = selected ? theme.selectionText : theme.text
      let secondary = selected ? theme.selectionText : theme.dim
      let detail = [view.triggers[row], view.sources[row]].filter { !$0.isEmpty }.joined(separator: "  ·  ")
      let detailWidth = text.draw(
        detail, font: "Sans 9", color: secondary, x: x, y: y, width: inner * 0.45, height: Self.rowHeight,
        rightEdge: x + inner)
      _ = text.draw(
        view.labels[row], font: "Sans 11", color: foreground, x: x, y: y, width: inner - detailWidth - 16,
        height: Self.rowHeight)
      y += Self.rowHeight
    }
  }

  private func set(_ cairo: OpaquePointer, _ color: PickerTheme.Color) {
    cairo_set_source_rgba(cairo, color.red, color.green, color.blue, color.alpha)
  }

  private func roundedRectangle(
    _ cairo: OpaquePointer, _ x: Double, _ y: Double, _ width: Double, _ height: Double, _ radius: Double
  ) {
    let quarter = Double.pi / 2
    cairo_new_sub_path(cairo)
    cairo_arc(cairo, x + width - radius, y + radius, radius, -quarter, 0)
    cairo_arc(cairo, x + width - radius, y + height - radius, radius, 0, quarter)
    cairo_arc(cairo, x + radius, y + height - radius, radius, quarter, 2 * quarter)
    cairo_arc(cairo, x + radius, y + radius, radius, 2 * quarter, 3 * quarter)
    cairo_close_path(cairo)
  }
}

/// One line of text at a time, through one Pango layout: one paragraph
/// (a newline is shown, not followed), ellipsized to its width and
/// centred in its height.
private struct TextPainter {
  let cairo: OpaquePointer
  let layout: OpaquePointer

  init(cairo: OpaquePointer) {
    self.cairo = cairo
    layout = pango_cairo_create_layout(cairo)
    pango_layout_set_single_paragraph_mode(layout, 1)
  }

  func release() { g_object_unref(UnsafeMutableRawPointer(layout)) }

  /// Draws `text`, at most `width` wide, from `x` or ending at `rightEdge`,
  /// and gives the width it took.
  @discardableResult
  func draw(
    _ text: String, font: String, color: PickerTheme.Color, x: Double, y: Double, width: Double, height: Double,
    rightEdge: Double? = nil, ellipsizeStart: Bool = false
  ) -> Double {
    guard !text.isEmpty, width > 0 else { return 0 }
    let description = pango_font_description_from_string(font)
    pango_layout_set_font_description(layout, description)
    pango_font_description_free(description)
    pango_layout_set_text(layout, text, -1)
    pango_layout_set_width(layout, Int32(width * Double(PANGO_SCALE)))
    pango_layout_set_ellipsize(layout, ellipsizeStart ? PANGO_ELLIPSIZE_START : PANGO_ELLIPSIZE_END)
    var textWidth: Int32 = 0
    var textHeight: Int32 = 0
    pango_layout_get_pixel_size(layout, &textWidth, &textHeight)
    let left = rightEdge.map { $0 - Double(textWidth) } ?? x
    cairo_set_source_rgba(cairo, color.red, color.green, color.blue, color.alpha)
    cairo_move_to(cairo, left, y + (height - Double(textHeight)) / 2)
    pango_cairo_show_layout(cairo, layout)
    return Double(textWidth)
  }
}

/// The picker's colours, light or dark as the desktop is.
struct PickerTheme: Equatable {
  struct Color: Equatable {
    var red, green, blue, alpha: Double

    init(_ hex: UInt32, alpha: Double = 1) {
      red = Double(hex >> 16 & 0xFF) / 255
      green = Double(hex >> 8 & 0xFF) / 255
      blue = Double(hex & 0xFF) / 255
      self.alpha = alpha
    }
  }

  var background, border, text, dim, selection, selectionText: Color

  static let light = PickerTheme(
    background: Color(0xFAFAFA), border: Color(0x000000, alpha: 0.18), text: Color(0x202020), dim: Color(0x6A6A6A),
    selection: Color(0x3584E4), selectionText: Color(0xFFFFFF))
  static let dark = PickerTheme(
    background: Color(0x2B2B2B), border: Color(0xFFFFFF, alpha: 0.16), text: Color(0xF0F0F0), dim: Color(0xA0A0A0),
    selection: Color(0x3584E4), selectionText: Color(0xFFFFFF))
}
