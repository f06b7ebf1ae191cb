// libxcb: the X11 focus source of the session agent reads the EWMH
// properties of the root window and of the focused window; its layout
// source reads the XKB rules names and the keyboard's group (xcb-xkb).
#ifndef CXCB_SHIM_H
#define CXCB_SHIM_H

#include <xcb/xcb.h>
#include <xcb/xkb.h>

/// The XKB extension's data on `connection` (its first event code), or
/// NULL: Swift 6 cannot take the address of the C global `xcb_xkb_id`,
/// which `xcb_get_extension_data` wants.
static inline const xcb_query_extension_reply_t *CXCB_xkbExtensionData(xcb_connection_t *connection) {
  return xcb_get_extension_data(connection, &xcb_xkb_id);
}

#endif
