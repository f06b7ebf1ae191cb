// What the session agent needs of C besides libxcb and sd-bus:
// libwayland-client with the interfaces of the wlr-foreign-toplevel-management
// protocol (version 3), through which wlroots compositors tell a client
// every window's app id, title and state (Debian does not package the
// protocol's XML, so the tables are written here from its definition), the
// interfaces of input-method-unstable-v2 (likewise), and the Linux headers of
// its loop.
#ifndef CAGENT_H
#define CAGENT_H

#include <wayland-client.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/signalfd.h>
#include <sys/syscall.h>
#include <unistd.h>

extern const struct wl_interface CAgent_managerInterface;
extern const struct wl_interface CAgent_handleInterface;

// The manager's interface by its address: libwayland keeps the pointer a
// bind is given, and Swift would hand it the address of a copy.
static inline const struct wl_interface *CAgent_manager(void) {
  return &CAgent_managerInterface;
}

// The protocol's opcodes and values the agent uses.
enum {
  CAgent_managerEventToplevel = 0,
  CAgent_managerEventFinished = 1,
  CAgent_handleEventTitle = 0,
  CAgent_handleEventAppID = 1,
  CAgent_handleEventState = 4,
  CAgent_handleEventDone = 5,
  CAgent_handleEventClosed = 6,
  CAgent_handleRequestDestroy = 7,
  CAgent_stateActivated = 2,
};

// The interfaces of the input-method-unstable-v2 protocol (every one at
// version 1), through which a client becomes a seat's input method: the
// compositor tells it of the focused text input (zwp_text_input_v3) and it
// commits text to it. Written in InputMethod.c from the protocol's definition.
extern const struct wl_interface CAgent_inputMethodManagerInterface;
extern const struct wl_interface CAgent_inputMethodInterface;
extern const struct wl_interface CAgent_inputPopupSurfaceInterface;
extern const struct wl_interface CAgent_keyboardGrabInterface;

// The manager's interface, to bind it, and the input method's, for the new
// object of get_input_method, by their addresses.
static inline const struct wl_interface *CAgent_inputMethodManager(void) {
  return &CAgent_inputMethodManagerInterface;
}

static inline const struct wl_interface *CAgent_inputMethod(void) {
  return &CAgent_inputMethodInterface;
}

// The values of zwp_text_input_v3 the input method's events carry.
// content_type's purpose: normal 0, alpha 1, digits 2, number 3, phone 4,
// url 5, email 6, name 7, password 8, pin 9, date 10, time 11, datetime 12,
// terminal 13.
// content_type's hint, bits: none 0, completion 0x1, spellcheck 0x2,
// auto_capitalization 0x4, lowercase 0x8, uppercase 0x10, titlecase 0x20,
// hidden_text 0x40, sensitive_data 0x80, latin 0x100, multiline 0x200; since
// zwp_text_input_v3 version 2 also on_screen_input_provided 0x400, no_emoji
// 0x800, preedit_shown 0x1000.
// text_change_cause's cause: input_method 0, other 1.

// The seat's interface by its address, to bind it.
static inline const struct wl_interface *CAgent_seat(void) {
  return &wl_seat_interface;
}

// zwp_input_method_manager_v2.get_input_method(seat): the seat's input method.
static inline struct wl_proxy *CAgent_getInputMethod(struct wl_proxy *manager, struct wl_proxy *seat) {
  return wl_proxy_marshal_flags(manager, 0, &CAgent_inputMethodInterface, 1, 0, seat, NULL);
}

// The input method's events.
enum {
  CAgent_inputMethodEventActivate = 0,
  CAgent_inputMethodEventDeactivate = 1,
  CAgent_inputMethodEventSurroundingText = 2,
  CAgent_inputMethodEventTextChangeCause = 3,
  CAgent_inputMethodEventContentType = 4,
  CAgent_inputMethodEventDone = 5,
  CAgent_inputMethodEventUnavailable = 6,
  CAgent_inputMethodRequestDestroy = 6,
};

// wl_proxy_marshal_flags is variadic, which Swift cannot call: a request
// without arguments, optionally destroying the proxy.
static inline void CAgent_request(struct wl_proxy *proxy, uint32_t opcode, int destroy) {
  wl_proxy_marshal_flags(proxy, opcode, NULL, wl_proxy_get_version(proxy), destroy ? WL_MARSHAL_FLAG_DESTROY : 0);
}

// The interfaces of input-method-unstable-v1 (KWinInputMethod.c): KWin's
// input method, a client KWin starts itself, hears of the focused text input
// (text-input v2 and v3) through a context that lives while a field has the
// focus.
extern const struct wl_interface CAgent_inputMethodV1Interface;
extern const struct wl_interface CAgent_inputMethodContextV1Interface;
static inline const struct wl_interface *CAgent_inputMethodV1(void) {
  return &CAgent_inputMethodV1Interface;
}
// Their events, and the context's destroy request. KWin sends text-input-v1's
// values: content_type's purpose normal 0, alpha 1, digits 2, number 3,
// phone 4, url 5, email 6, name 7, password 8, date 9, time 10, datetime 11,
// terminal 12 (a pin is passed on as normal); its hint bits as
// zwp_text_input_v3's, but KWin 5.27 passes sensitive_data on as lowercase
// (0x8). surrounding_text's cursor is a byte offset.
enum {
  CAgent_inputMethodV1EventActivate = 0,
  CAgent_inputMethodV1EventDeactivate = 1,
  CAgent_contextEventSurroundingText = 0,
  CAgent_contextEventReset = 1,
  CAgent_contextEventContentType = 2,
  CAgent_contextRequestDestroy = 0,
};
// The interfaces of wlr-layer-shell-unstable-v1 (LayerShell.c): the snippet
// picker's window on wlroots compositors and KWin.
extern const struct wl_interface CAgent_layerShellInterface;
extern const struct wl_interface CAgent_layerSurfaceInterface;

static inline const struct wl_interface *CAgent_layerShell(void) {
  return &CAgent_layerShellInterface;
}

// The core interfaces the window binds, by their addresses.
static inline const struct wl_interface *CAgent_compositor(void) {
  return &wl_compositor_interface;
}

static inline const struct wl_interface *CAgent_shm(void) {
  return &wl_shm_interface;
}

static inline const struct wl_interface *CAgent_output(void) {
  return &wl_output_interface;
}

// zwlr_layer_shell_v1.get_layer_surface(surface, output: any, layer, namespace).
static inline struct wl_proxy *CAgent_getLayerSurface(struct wl_proxy *shell, struct wl_proxy *surface,
                                                      uint32_t layer, const char *namespace) {
  return wl_proxy_marshal_flags(shell, 0, &CAgent_layerSurfaceInterface, wl_proxy_get_version(shell), 0, NULL,
                                surface, NULL, layer, namespace);
}

// A layer surface's requests that take unsigned ints: set_size (2),
// set_anchor, set_keyboard_interactivity, ack_configure (1).
static inline void CAgent_requestUnsigned(struct wl_proxy *proxy, uint32_t opcode, uint32_t first, uint32_t second) {
  wl_proxy_marshal_flags(proxy, opcode, NULL, wl_proxy_get_version(proxy), 0, first, second);
}

// zwlr_layer_surface_v1.set_margin(top, right, bottom, left).
static inline void CAgent_setMargin(struct wl_proxy *proxy, int32_t top, int32_t right, int32_t bottom, int32_t left) {
  wl_proxy_marshal_flags(proxy, 3, NULL, wl_proxy_get_version(proxy), 0, top, right, bottom, left);
}

// memfd_create(name, MFD_CLOEXEC), which glibc declares for _GNU_SOURCE
// alone: the shared memory of the picker's buffers.
static inline int CAgent_memfd(const char *name) {
  return (int)syscall(SYS_memfd_create, name, 1U /* MFD_CLOEXEC */);
}

enum {
  CAgent_layerSurfaceSetSize = 0,
  CAgent_layerSurfaceSetAnchor = 1,
  CAgent_layerSurfaceSetKeyboardInteractivity = 4,
  CAgent_layerSurfaceAckConfigure = 6,
  CAgent_layerSurfaceDestroy = 7,
  CAgent_layerSurfaceEventConfigure = 0,
  CAgent_layerSurfaceEventClosed = 1,
  CAgent_layerOverlay = 3,
  CAgent_anchorTop = 1,
};

#endif
