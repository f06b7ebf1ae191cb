// What the engine needs of C: the kernel's key codes and event types, and
// libxkbcommon for the layout. No device library (libevdev, libudev): the
// engine reads and writes no device; the daemon does, through CEvdev.
#ifndef CKEYBOARD_SHIM_H
#define CKEYBOARD_SHIM_H

#include <linux/input.h>
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>

#endif
