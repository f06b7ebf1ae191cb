// The interface tables of wlr-foreign-toplevel-management-unstable-v1,
// version 3, as libwayland-client reads them: per message its name, its
// signature (a leading number is the version it came in, "?" marks a
// nullable argument; i int, s string, o object, n new object, a array) and,
// per argument, the interface of an object argument or NULL.
#include "CAgent.h"

extern const struct wl_interface wl_output_interface;
extern const struct wl_interface wl_seat_interface;
extern const struct wl_interface wl_surface_interface;

static const struct wl_interface *noObjects[] = {NULL};
static const struct wl_interface *aHandle[] = {&CAgent_handleInterface};
static const struct wl_interface *aSeat[] = {&wl_seat_interface};
static const struct wl_interface *aRectangle[] = {&wl_surface_interface, NULL, NULL, NULL, NULL};
static const struct wl_interface *anOutput[] = {&wl_output_interface};

static const struct wl_message managerRequests[] = {
  {"stop", "", noObjects},
};

static const struct wl_message managerEvents[] = {
  {"toplevel", "n", aHandle},
  {"finished", "", noObjects},
};

const struct wl_interface CAgent_managerInterface = {
  "zwlr_foreign_toplevel_manager_v1", 3, 1, managerRequests, 2, managerEvents,
};

static const struct wl_message handleRequests[] = {
  {"set_maximized", "", noObjects},
  {"unset_maximized", "", noObjects},
  {"set_minimized", "", noObjects},
  {"unset_minimized", "", noObjects},
  {"activate", "o", aSeat},
  {"close", "", noObjects},
  {"set_rectangle", "oiiii", aRectangle},
  {"destroy", "", noObjects},
  {"set_fullscreen", "2?o", anOutput},
  {"unset_fullscreen", "2", noObjects},
};

static const struct wl_message handleEvents[] = {
  {"title", "s", noObjects},
  {"app_id", "s", noObjects},
  {"output_enter", "o", anOutput},
  {"output_leave", "o", anOutput},
  {"state", "a", noObjects},
  {"done", "", noObjects},
  {"closed", "", noObjects},
  {"parent", "3?o", aHandle},
};

const struct wl_interface CAgent_handleInterface = {
  "zwlr_foreign_toplevel_handle_v1", 3, 10, handleRequests, 8, handleEvents,
};
