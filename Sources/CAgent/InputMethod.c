// The interface tables of input-method-unstable-v2, every interface at
// version 1, as libwayland-client reads them (see ForeignToplevel.c for the
// signature letters; u is an unsigned int, h a file descriptor). The messages
// stand in the order of the protocol's definition, which gives their opcodes.
#include "CAgent.h"

extern const struct wl_interface wl_seat_interface;
extern const struct wl_interface wl_surface_interface;

// Per argument NULL, for messages of at most five arguments none of which is
// an object.
static const struct wl_interface *noObjects[] = {NULL, NULL, NULL, NULL, NULL};
static const struct wl_interface *aSeatAndInputMethod[] = {&wl_seat_interface, &CAgent_inputMethodInterface};
static const struct wl_interface *aPopupAndSurface[] = {&CAgent_inputPopupSurfaceInterface, &wl_surface_interface};
static const struct wl_interface *aKeyboardGrab[] = {&CAgent_keyboardGrabInterface};

static const struct wl_message inputMethodManagerRequests[] = {
  {"get_input_method", "on", aSeatAndInputMethod},
  {"destroy", "", noObjects},
};

const struct wl_interface CAgent_inputMethodManagerInterface = {
  "zwp_input_method_manager_v2", 1, 2, inputMethodManagerRequests, 0, NULL,
};

static const struct wl_message inputMethodRequests[] = {
  {"commit_string", "s", noObjects},
  {"set_preedit_string", "sii", noObjects},
  {"delete_surrounding_text", "uu", noObjects},
  {"commit", "u", noObjects},
  {"get_input_popup_surface", "no", aPopupAndSurface},
  {"grab_keyboard", "n", aKeyboardGrab},
  {"destroy", "", noObjects},
};

static const struct wl_message inputMethodEvents[] = {
  {"activate", "", noObjects},
  {"deactivate", "", noObjects},
  {"surrounding_text", "suu", noObjects},
  {"text_change_cause", "u", noObjects},
  {"content_type", "uu", noObjects},
  {"done", "", noObjects},
  {"unavailable", "", noObjects},
};

const struct wl_interface CAgent_inputMethodInterface = {
  "zwp_input_method_v2", 1, 7, inputMethodRequests, 7, inputMethodEvents,
};

static const struct wl_message inputPopupSurfaceRequests[] = {
  {"destroy", "", noObjects},
};

static const struct wl_message inputPopupSurfaceEvents[] = {
  {"text_input_rectangle", "iiii", noObjects},
};

const struct wl_interface CAgent_inputPopupSurfaceInterface = {
  "zwp_input_popup_surface_v2", 1, 1, inputPopupSurfaceRequests, 1, inputPopupSurfaceEvents,
};

static const struct wl_message keyboardGrabRequests[] = {
  {"release", "", noObjects},
};

static const struct wl_message keyboardGrabEvents[] = {
  {"keymap", "uhu", noObjects},
  {"key", "uuuu", noObjects},
  {"modifiers", "uuuuu", noObjects},
  {"repeat_info", "ii", noObjects},
};

const struct wl_interface CAgent_keyboardGrabInterface = {
  "zwp_input_method_keyboard_grab_v2", 1, 1, keyboardGrabRequests, 4, keyboardGrabEvents,
};
