import AgentProtocol
import CAgent
import Glibc
import SystemPackage

/// The focused window on wlroots compositors (sway, Hyprland, river,
/// Wayfire, labwc, niri): the wlr-foreign-toplevel-management protocol
/// tells every window's app id, title and state, and the focused one is
/// the one whose state says `activated`. The events are taken through
/// libwayland-client's dispatchers, one C function per interface.
final class ForeignToplevelSource: FocusSource {
  let name = "wlr-foreign-toplevel"

  private let wayland: WaylandConnection
  private var registry: OpaquePointer?
  private var manager: OpaquePointer?
  /// Every window, by its handle.
  private var windows: [UnsafeMutableRawPointer: Window] = [:]
  private var ids = WindowIDs<UnsafeMutableRawPointer>()
  private var lastReport: FocusReport?
  /// Takes the focused window whenever it changes.
  var onFocus: (FocusReport) -> Void = { _ in }

  private struct Window {
    var id: Int64
    var title = ""
    var app = ""
    var activated = false
    /// What came since the last `done`, which applies it.
    var pendingTitle: String?
    var pendingApp: String?
    var pendingActivated: Bool?
  }

  /// Binds the toplevel manager of the compositor `wayland` connects to;
  /// throws when it has none.
  init(on wayland: WaylandConnection) throws(AgentExit) {
    self.wayland = wayland
    registry = wl_display_get_registry(wayland.display)
    WaylandEvents.dispatch(registry, to: Self.registryEvent, owner: self)
    // The first round trip lists the globals (and binds the manager), the
    // second brings every window the compositor has.
    guard wayland.roundtrip(), manager != nil, wayland.roundtrip() else {
      throw AgentExit.unavailable("the Wayland compositor offers no zwlr_foreign_toplevel_manager_v1")
    }
  }

  /// Reports the focused window, and from then on each change, once the
  /// events that made it are dispatched.
  func start() throws(AgentExit) {
    reportFocus()
    wayland.afterEvents { [unowned self] in reportFocus() }
  }

  /// The connection is the loop's (``WaylandConnection``).
  var pollFD: FileDescriptor? { nil }

  func readable() throws(AgentExit) {}

  /// Its objects go with it; the shared connection stays.
  deinit { WaylandConnection.release(windows.keys.map { OpaquePointer($0) } + [manager, registry]) }

  /// Reports the window that is activated, or none (a launcher or an empty
  /// workspace has the keyboard), once every event read is applied.
  private func reportFocus() {
    let focused = windows.values.first { $0.activated }
    let report =
      focused.map { FocusReport(window: $0.id, app: $0.app, title: $0.title) } ?? FocusReport(window: 0, app: "")
    guard report != lastReport else { return }
    lastReport = report
    onFocus(report)
  }

  // MARK: - Events

  /// wl_registry: `global` (name, interface, version) binds the manager.
  private static let registryEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard opcode == 0, let arguments, let interface = arguments[1].s else { return 0 }
    let source: ForeignToplevelSource = WaylandEvents.owner(of: proxy)
    guard String(cString: interface) == "zwlr_foreign_toplevel_manager_v1", source.manager == nil else { return 0 }
    let version = min(arguments[2].u, 3)
    let bound = OpaquePointer(wl_registry_bind(source.registry, arguments[0].u, CAgent_manager(), version))
    source.manager = bound
    WaylandEvents.dispatch(bound, to: managerEvent, owner: source)
    return 0
  }

  /// The manager: `toplevel` brings a new window's handle.
  private static let managerEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    let source: ForeignToplevelSource = WaylandEvents.owner(of: proxy)
    switch Int(opcode) {
    case Int(CAgent_managerEventToplevel):
      guard let handle = arguments?[0].o else { return 0 }
      let pointer = UnsafeMutableRawPointer(handle)
      source.windows[pointer] = Window(id: source.ids.id(for: pointer))
      WaylandEvents.dispatch(handle, to: handleEvent, owner: source)
    case Int(CAgent_managerEventFinished):
      source.manager = nil
    default:
      break
    }
    return 0
  }

  /// A window's handle: title, app id and state, applied at `done`.
  private static let handleEvent: wl_dispatcher_func_t = { _, proxy, opcode, _, arguments in
    guard let proxy else { return 0 }
    let source: ForeignToplevelSource = WaylandEvents.owner(of: proxy)
    guard source.windows[proxy] != nil else { return 0 }
    switch Int(opcode) {
    case Int(CAgent_handleEventTitle):
      source.windows[proxy]!.pendingTitle = arguments?[0].s.map { String(cString: $0) } ?? ""
    case Int(CAgent_handleEventAppID):
      source.windows[proxy]!.pendingApp = arguments?[0].s.map { String(cString: $0) } ?? ""
    case Int(CAgent_handleEventState):
      var activated = false
      if let array = arguments?[0].a, let data = array.pointee.data {
        let states = data.bindMemory(to: UInt32.self, capacity: array.pointee.size / 4)
        for index in 0..<array.pointee.size / 4 where states[index] == UInt32(CAgent_stateActivated) {
          activated = true
        }
      }
      source.windows[proxy]!.pendingActivated = activated
    case Int(CAgent_handleEventDone):
      var window = source.windows[proxy]!
      window.title = window.pendingTitle ?? window.title
      window.app = window.pendingApp ?? window.app
      window.activated = window.pendingActivated ?? window.activated
      window.pendingTitle = nil
      window.pendingApp = nil
      window.pendingActivated = nil
      source.windows[proxy] = window
    case Int(CAgent_handleEventClosed):
      source.windows[proxy] = nil
      source.ids.forget(proxy)
      CAgent_request(OpaquePointer(proxy), UInt32(CAgent_handleRequestDestroy), 1)
    default:
      break  // outputs and the parent: not needed
    }
    return 0
  }
}
