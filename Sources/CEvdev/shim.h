// The device libraries the daemon stands on (libevdev, libudev; the engine's
// libxkbcommon and key codes are CKeyboard's), and the few shims Swift needs to reach
// what they define as macros. Every shim is prefixed CEvdev_.
#ifndef CEVDEV_SHIM_H
#define CEVDEV_SHIM_H

#include <libevdev/libevdev.h>
#include <libevdev/libevdev-uinput.h>
#include <libudev.h>
#include <linux/input.h>
#include <sys/ioctl.h>

// EVIOCGKEY(len) is an ioctl request macro, which Swift does not import: the
// bitmask of the keys a device has down right now.
static inline int CEvdev_getKeyState(int fd, unsigned char *bits, unsigned long length) {
  return ioctl(fd, EVIOCGKEY(length), bits);
}


#endif
