// What the session agent needs of C besides libxcb and sd-bus:
// libwayland-client with the interfaces of the wlr-foreign-toplevel-management
// protocol (version 3), through which wlroots compositors tell a client
// every window's app id, title and state (Debian does not package the
// protocol's XML, so the tables are written here from its definition), and
// the Linux headers of its loop.
#ifndef CAGENT_H
#define CAGENT_H

#include <wayland-client.h>
#include <poll.h>
#include <sys/file.h>
#include <sys/signalfd.h>

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

// wl_proxy_marshal_flags is variadic, which Swift cannot call: a request
// without arguments, optionally destroying the proxy.
static inline void CAgent_request(struct wl_proxy *proxy, uint32_t opcode, int destroy) {
  wl_proxy_marshal_flags(proxy, opcode, NULL, wl_proxy_get_version(proxy), destroy ? WL_MARSHAL_FLAG_DESTROY : 0);
}

#endif
