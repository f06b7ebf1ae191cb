// libxcb: the X11 focus source of the session agent reads the EWMH
// properties of the root window and of the focused window.
#ifndef CXCB_SHIM_H
#define CXCB_SHIM_H

#include <xcb/xcb.h>

#endif
