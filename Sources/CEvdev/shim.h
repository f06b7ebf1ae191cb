// The C libraries vkbd stands on, and the few shims Swift needs to reach
// what they define as macros. Every shim is prefixed CEvdev_.
#ifndef CEVDEV_SHIM_H
#define CEVDEV_SHIM_H

#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <libudev.h>
#include <xkbcommon/xkbcommon.h>
#include <xkbcommon/xkbcommon-compose.h>
#include <linux/input.h>

#endif
