import AgentProtocol
import CAgent
import Glibc
import LinuxSystem
import Logging

/// The snippet picker on wlroots compositors and KWin: a wlr-layer-shell
/// surface on the overlay layer with no keyboard interactivity, anchored
/// to the top of the output the compositor chooses (sway: the focused
/// one), drawn with cairo into shared memory at the output's scale, on the
/// agent's connection (``WaylandConnection``).
final class LayerShellPicker: PickerWindow {
  let name = "layer-shell"
  /// The distance from the output's top edge, in logical pixels.
  static let topMargin: Int32 = 160

  private let wayland: WaylandConnection
  private let logger: Logger
  private var registry: OpaquePointer?
  private var compositor: OpaquePointer?
  private var shm: OpaquePointer?
  private var shell: OpaquePointer?
  /// Each output's scale, by its proxy.
  private var outputScales: [UnsafeMutableRawPointer: Int32] = [:]
  private var surface: OpaquePointer?
  private var layerSurface: OpaquePointer?
  /// Whether the compositor configured the surface, so that it may be drawn.
  private var configured = false
  /// The height asked for, in logical pixels.
  private var height = 0.0
  private var scale: Int32 = 1
  private var view: PickerShow?
  private let theme: () -> PickerTheme
  /// The buffers the compositor still reads, with their memory.
  private var buffers: [UnsafeMutableRawPointer: (memory: UnsafeMutableRawPointer, length: Int)] = [:]

  /// Binds what it needs of the compositor `wayland` connects to; throws
  /// when it offers no layer shell.
  init(on wayland: WaylandConnection, theme: @escaping () -> PickerTheme, logger: Logger) throws(AgentExit) {
    self.wayland = wayland
    self.theme = theme
    self.logger = logger
    registry = wl_display_get_registry(wayland.display)
    WaylandEvents.dispatch(registry, to: Self.registryEvent, owner: self)
    // The globals, then the outputs' scales.
    guard wayland.roundtrip(), wayland.roundtrip() else {
      throw AgentExit.ended("the Wayland compositor closed")
    }
    guard shell != nil, compositor != nil, shm != nil else {
      throw AgentExit.unavailable("the Wayland compositor offers no zwlr_layer_shell_v1")
    }
    PickerPainter.warmUp()
  }

  /// Its objects go with it; the shared connection stays.
  deinit {
    for (_, buffer) in buffers { munmap(buffer.memory, buffer.length) }
    let objects = buffers.keys.map { OpaquePointer($0) } + outputScales.keys.map { OpaquePointer($0) }
    WaylandConnection.release(objects + [layerSurface, surface, shell, shm, compositor, registry])
  }

  func show(_ view: PickerShow) {
    self.view = view
    let height = PickerPainter.height(for: view)
    if surface == nil {
      create(height: height)
    } else if height != self.height {
      self.height = height
      CAgent_requestUnsigned(
        layerSurface, UInt32(CAgent_layerSurfaceSetSize), UInt32(PickerPainter.width), UInt32(height))
      wl_surface_commit(surface)
    } else if configured {
      draw()
    }
    _ = wl_display_flush(wayland.display)
  }

  func hide() {
    view = nil
    guard let surface else { return }
    CAgent_request(layerSurface, UInt32(CAgent_layerSurfaceDestroy), 1)
    wl_surface_destroy(surface)
    // The compositor reads no buffer of a surface that is gone.
    for (buffer, memory) in buffers {
      wl_buffer_destroy(OpaquePointer(buffer))
      munmap(memory.memory, memory.length)
    }
    buffers = [:]
    self.surface = nil
    layerSurface = nil
    configured = false
    _ = wl_display_flush(wayland.display)
  }

  /// A new surface on the overlay layer, committed without a buffer: the
  /// compositor answers with a configure, and the first frame follows.
  private func create(height: Double) {
    guard let surface = wl_compositor_create_surface(compositor) else { return }
    self.surface = surface
    self.height = height
    WaylandEvents.dispatch(surface, to: Self.surfaceEvent, owner: self)
    let layerSurface = CAgent_getLayerSurface(shell, surface, UInt32(CAgent_layerOverlay), "vkbd-picker")
    self.layerSurface = layerSurface
    WaylandEvents.dispatch(layerSurface, to: Self.layerSurfaceEvent, owner: self)
    CAgent_requestUnsigned(
      layerSurface, UInt32(CAgent_layerSurfaceSetSize), UInt32(PickerPainter.width), UInt32(height))
    CAgent_requestUnsigned(layerSurface, UInt32(CAgent_layerSurfaceSetAnchor), UInt32(CAgent_anchorTop), 0)
    CAgent_setMargin(layerSurface, Self.topMargin, 0, 0, 0)
    CAgent_requestUnsigned(layerSurface, UInt32(CAgent_layerSurfaceSetKeyboardInteractivity), 0, 0)
    scale = outputScales.values.max() ?? 1
    wl_surface_commit(surface)
  }

  /// Draws the view into a new shared-memory buffer at the scale and
  /// commits it; the buffer is freed when the compositor releases it.
  private func draw() {
    guard let view, let surface, configured else { return }
    let width = Int32(PickerPainter.width) * scale
    let pixelHeight = Int32(height) * scale
    let stride = PickerPainter.stride(scale: scale)
    let length = Int(stride) * Int(pixelHeight)
    let fd = CAgent_memfd("vkbd-picker")
    guard fd >= 0 else { return logger.notice("cannot draw the picker: memfd_create failed (\(errno))") }
    defer { close(fd) }
    guard ftruncate(fd, off_t(length)) == 0,
      let memory = mmap(nil, length, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0), memory != MAP_FAILED
    else { return logger.notice("cannot draw the picker: no shared memory (\(errno))") }
    PickerPainter(theme: theme()).draw(view, into: memory, stride: stride, scale: scale, opaque: false)
    let pool = wl_shm_create_pool(shm, fd, Int32(length))
    // WL_SHM_FORMAT_ARGB8888 (0) is cairo's ARGB32, premultiplied.
    guard let buffer = wl_shm_pool_create_buffer(pool, 0, width, pixelHeight, stride, 0) else {
      wl_shm_pool_destroy(pool)
      munmap(memory, length)
      return
    }
    wl_shm_pool_destroy(pool)
    buffers[UnsafeMutableRawPointer(buffer)] = (memory, length)
    WaylandEvents.dispatch(buffer, to: Self.bufferEvent, owner: self)
    wl_surface_set_buffer_scale(surface, scale)
    wl_surface_attach(surface, buffer, 0, 0)
    wl_surface_damage_buffer(surface, 0, 0, width, pixelHeight)
    // The compositor calls back when it has drawn the frame: the time at
    // which the rows are on screen, logged for the latency tests.
    if let callback = wl_surface_frame(surface) {
      WaylandEvents.dispatch(callback, to: Self.frameEvent, owner: self)
    }
    wl_surface_commit(surface)
  }

  // MARK: - Events

  /// wl_registry `global`: the compositor, shared memory, the layer shell
  /// and every output.
  private static let registryEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard opcode == 0, let arguments, let interface = arguments[1].s else { return 0 }
    let picker: LayerShellPicker = WaylandEvents.owner(of: proxy)
    let (name, version) = (arguments[0].u, arguments[2].u)
    switch String(cString: interface) {
    case "wl_compositor" where picker.compositor == nil:
      picker.compositor = OpaquePointer(wl_registry_bind(picker.registry, name, CAgent_compositor(), min(version, 4)))
    case "wl_shm" where picker.shm == nil:
      picker.shm = OpaquePointer(wl_registry_bind(picker.registry, name, CAgent_shm(), 1))
    case "zwlr_layer_shell_v1" where picker.shell == nil:
      picker.shell = OpaquePointer(wl_registry_bind(picker.registry, name, CAgent_layerShell(), min(version, 4)))
    case "wl_output" where version >= 2:
      guard let output = wl_registry_bind(picker.registry, name, CAgent_output(), 2) else { return 0 }
      picker.outputScales[output] = 1
      WaylandEvents.dispatch(OpaquePointer(output), to: outputEvent, owner: picker)
    default:
      break
    }
    return 0
  }

  /// wl_output `scale` (3).
  private static let outputEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard opcode == 3, let proxy, let arguments else { return 0 }
    (WaylandEvents.owner(of: proxy) as LayerShellPicker).outputScales[proxy] = max(1, arguments[0].i)
    return 0
  }

  /// wl_surface `enter` (0): drawn again at the scale of the output it is on.
  private static let surfaceEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard opcode == 0, let output = arguments?[0].o else { return 0 }
    let picker: LayerShellPicker = WaylandEvents.owner(of: proxy)
    let scale = picker.outputScales[UnsafeMutableRawPointer(output)] ?? 1
    if scale != picker.scale {
      picker.scale = scale
      picker.draw()
    }
    return 0
  }

  /// The layer surface: `configure` (acked, then drawn), `closed`.
  private static let layerSurfaceEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    let picker: LayerShellPicker = WaylandEvents.owner(of: proxy)
    switch Int(opcode) {
    case Int(CAgent_layerSurfaceEventConfigure):
      guard let arguments else { return 0 }
      CAgent_requestUnsigned(OpaquePointer(proxy), UInt32(CAgent_layerSurfaceAckConfigure), arguments[0].u, 0)
      picker.configured = true
      picker.draw()
    case Int(CAgent_layerSurfaceEventClosed):
      // The output went: shown again on another at the next change.
      let view = picker.view
      picker.hide()
      if let view { picker.show(view) }
    default:
      break
    }
    return 0
  }

  /// wl_callback `done` (0): the frame is on screen.
  private static let frameEvent: wl_dispatcher_func_t = { _, proxy, _, _, _ in
    guard let proxy else { return 0 }
    (WaylandEvents.owner(of: proxy) as LayerShellPicker).logger.debug(
      "the picker's frame is on screen", metadata: ["monotonic_us": "\(monotonicMicroseconds())"])
    wl_callback_destroy(OpaquePointer(proxy))
    return 0
  }

  /// wl_buffer `release` (0): the compositor is done with it.
  private static let bufferEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, _ in
    guard opcode == 0, let proxy else { return 0 }
    let picker: LayerShellPicker = WaylandEvents.owner(of: proxy)
    if let buffer = picker.buffers.removeValue(forKey: proxy) { munmap(buffer.memory, buffer.length) }
    wl_buffer_destroy(OpaquePointer(proxy))
    return 0
  }
}
