// Pango on cairo: the session agent draws the snippet picker's rows, in the
// desktop's fonts and any script, into a cairo image (the Wayland window's
// shared memory, the X11 window's image).
#ifndef CPANGO_SHIM_H
#define CPANGO_SHIM_H

#include <pango/pangocairo.h>

#endif
