// libsystemd: sd-login, which the daemon asks whose session is active on
// the seat, and sd-bus, on which the session agent hears the GNOME Shell
// extension and the KWin script.
#ifndef CSYSTEMD_SHIM_H
#define CSYSTEMD_SHIM_H

#include <systemd/sd-bus.h>
#include <systemd/sd-login.h>

#endif
