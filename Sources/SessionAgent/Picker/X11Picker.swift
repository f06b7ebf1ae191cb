import AgentProtocol
import CXCB
import Glibc
import LinuxSystem
import Logging

/// The snippet picker on X11: an override-redirect window (the window
/// manager neither places nor focuses it), centred over the active window
/// and so on its monitor, a quarter of the way down it, scaled by the X
/// resources' `Xft.dpi`. Drawn by cairo into memory and put on the window
/// in strips the server takes. Its own X connection.
final class X11Picker: PickerWindow, XCBClient {
  let name = "x11"

  let connection: OpaquePointer
  private let screen: xcb_screen_t
  private let activeWindowAtom: xcb_atom_t
  private let theme: () -> PickerTheme
  private let logger: Logger
  private var window: xcb_window_t = 0
  private var graphics: xcb_gcontext_t = 0
  private var view: PickerShow?
  private var isMapped = false
  private var scale: Int32 = 1

  /// Connects to `DISPLAY`; throws when its screen's visual is not 24-bit
  /// TrueColor with 32 bits a pixel (what the image is drawn in).
  init(theme: @escaping () -> PickerTheme, logger: Logger) throws(AgentExit) {
    (connection, screen) = try X11Source.connect(to: nil)
    self.theme = theme
    self.logger = logger
    activeWindowAtom = X11Source.intern("_NET_ACTIVE_WINDOW", on: connection)
    guard screen.root_depth == 24, Self.bitsPerPixel(depth: 24, setup: xcb_get_setup(connection)) == 32 else {
      throw AgentExit.unavailable("the X screen is not 24-bit colour in 32-bit pixels")
    }
    scale = Self.scale(root: screen.root, connection: connection)
    PickerPainter.warmUp()
  }

  deinit { xcb_disconnect(connection) }

  /// Draws again on Expose; every other event is dropped.
  func handle(_ first: UnsafeMutablePointer<xcb_generic_event_t>?) {
    var next = first
    var exposed = false
    while let event = next {
      if event.pointee.response_type & 0x7F == UInt8(XCB_EXPOSE) { exposed = true }
      free(event)
      next = xcb_poll_for_queued_event(connection)
    }
    if exposed { draw() }
  }

  func show(_ view: PickerShow) {
    let wasShown = self.view != nil && isMapped
    self.view = view
    if window == 0 { create() }
    let width = UInt32(PickerPainter.width) * UInt32(scale)
    let height = UInt32(PickerPainter.height(for: view)) * UInt32(scale)
    if wasShown {
      var size = [width, height]
      xcb_configure_window(
        connection, window, UInt16(XCB_CONFIG_WINDOW_WIDTH.rawValue | XCB_CONFIG_WINDOW_HEIGHT.rawValue), &size)
    } else {
      let (x, y) = place(width: Int32(width))
      var geometry = [
        UInt32(bitPattern: x), UInt32(bitPattern: y), width, height, UInt32(XCB_STACK_MODE_ABOVE.rawValue),
      ]
      xcb_configure_window(
        connection, window,
        UInt16(
          XCB_CONFIG_WINDOW_X.rawValue | XCB_CONFIG_WINDOW_Y.rawValue | XCB_CONFIG_WINDOW_WIDTH.rawValue
            | XCB_CONFIG_WINDOW_HEIGHT.rawValue | XCB_CONFIG_WINDOW_STACK_MODE.rawValue), &geometry)
      xcb_map_window(connection, window)
      isMapped = true
    }
    draw()
    _ = xcb_flush(connection)
  }

  func hide() {
    view = nil
    guard isMapped else { return }
    xcb_unmap_window(connection, window)
    isMapped = false
    _ = xcb_flush(connection)
  }

  /// The window, override-redirect, named `vkbd-picker` (WM_NAME, WM_CLASS).
  private func create() {
    window = xcb_generate_id(connection)
    var values: [UInt32] = [
      screen.black_pixel, 1, UInt32(XCB_EVENT_MASK_EXPOSURE.rawValue),
    ]
    xcb_create_window(
      connection, UInt8(XCB_COPY_FROM_PARENT), window, screen.root, 0, 0, 1, 1, 0,
      UInt16(XCB_WINDOW_CLASS_INPUT_OUTPUT.rawValue), screen.root_visual,
      UInt32(XCB_CW_BACK_PIXEL.rawValue | XCB_CW_OVERRIDE_REDIRECT.rawValue | XCB_CW_EVENT_MASK.rawValue), &values)
    let name = "vkbd-picker"
    xcb_change_property(
      connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, xcb_atom_t(XCB_ATOM_WM_NAME.rawValue),
      xcb_atom_t(XCB_ATOM_STRING.rawValue), 8, UInt32(name.utf8.count), name)
    let classes = "vkbd-picker\0vkbd\0"
    xcb_change_property(
      connection, UInt8(XCB_PROP_MODE_REPLACE.rawValue), window, xcb_atom_t(XCB_ATOM_WM_CLASS.rawValue),
      xcb_atom_t(XCB_ATOM_STRING.rawValue), 8, UInt32(classes.utf8.count), classes)
    graphics = xcb_generate_id(connection)
    xcb_create_gc(connection, graphics, window, 0, nil)
  }

  /// Where the window goes: centred over the active window, a quarter of
  /// the way down it, inside the screen; the screen's centre when no window
  /// is active.
  private func place(width: Int32) -> (Int32, Int32) {
    let screenWidth = Int32(screen.width_in_pixels)
    let screenHeight = Int32(screen.height_in_pixels)
    var area = (x: Int32(0), y: Int32(0), width: screenWidth, height: screenHeight)
    let active =
      X11Source.property(of: screen.root, activeWindowAtom, type: xcb_atom_t(XCB_ATOM_WINDOW.rawValue), on: connection)
      .flatMap { $0.count >= 4 ? $0.withUnsafeBytes { $0.load(as: xcb_window_t.self) } : nil } ?? 0
    if active != 0,
      let geometry = xcb_get_geometry_reply(connection, xcb_get_geometry(connection, active), nil)
    {
      defer { free(geometry) }
      if let origin = xcb_translate_coordinates_reply(
        connection, xcb_translate_coordinates(connection, active, screen.root, 0, 0), nil)
      {
        defer { free(origin) }
        area = (
          Int32(origin.pointee.dst_x), Int32(origin.pointee.dst_y), Int32(geometry.pointee.width),
          Int32(geometry.pointee.height)
        )
      }
    }
    let x = min(max(0, area.x + (area.width - width) / 2), max(0, screenWidth - width))
    let y = min(max(0, area.y + area.height / 4), max(0, screenHeight / 2))
    return (x, y)
  }

  /// Draws the view into memory and puts it on the window, in strips of
  /// rows that fit the server's largest request.
  private func draw() {
    guard let view, isMapped else { return }
    let stride = PickerPainter.stride(scale: scale)
    let rows = Int32(PickerPainter.height(for: view)) * scale
    let length = Int(stride) * Int(rows)
    let memory = UnsafeMutableRawPointer.allocate(byteCount: length, alignment: 16)
    defer { memory.deallocate() }
    PickerPainter(theme: theme()).draw(view, into: memory, stride: stride, scale: scale, opaque: true)
    // The largest request, in 4-byte units, less the request's header.
    let maximumBytes = Int(xcb_get_maximum_request_length(connection)) * 4 - 64
    let strip = max(1, maximumBytes / Int(stride))
    var row = 0
    while row < Int(rows) {
      let count = min(strip, Int(rows) - row)
      xcb_put_image(
        connection, UInt8(XCB_IMAGE_FORMAT_Z_PIXMAP.rawValue), window, graphics, UInt16(stride / 4), UInt16(count), 0,
        Int16(row), 0, 24, UInt32(count * Int(stride)), memory.advanced(by: row * Int(stride)))
      row += count
    }
    _ = xcb_flush(connection)
    logger.debug("the picker's frame is on screen", metadata: ["monotonic_us": "\(monotonicMicroseconds())"])
  }

  /// The bits a pixel of `depth` takes in a ZPixmap image.
  private static func bitsPerPixel(depth: UInt8, setup: UnsafePointer<xcb_setup_t>?) -> UInt8? {
    var formats = xcb_setup_pixmap_formats_iterator(setup)
    while formats.rem > 0 {
      if formats.data.pointee.depth == depth { return formats.data.pointee.bits_per_pixel }
      xcb_format_next(&formats)
    }
    return nil
  }

  /// The desktop's scale: `Xft.dpi` in the root window's RESOURCE_MANAGER
  /// over 96, rounded; 1 where it is not set.
  private static func scale(root: xcb_window_t, connection: OpaquePointer) -> Int32 {
    guard
      let resources = X11Source.property(
        of: root, xcb_atom_t(XCB_ATOM_RESOURCE_MANAGER.rawValue), type: xcb_atom_t(XCB_ATOM_STRING.rawValue),
        on: connection)
    else { return 1 }
    for line in String(decoding: resources, as: UTF8.self).split(separator: "\n") where line.hasPrefix("Xft.dpi:") {
      if let dpi = Double(line.dropFirst("Xft.dpi:".count).filter { $0 != " " && $0 != "\t" }) {
        return max(1, Int32((dpi / 96).rounded()))
      }
    }
    return 1
  }
}
