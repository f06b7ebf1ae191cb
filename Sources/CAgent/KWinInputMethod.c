// The interfaces of input-method-unstable-v1 the agent uses as KWin's input
// method, both at version 1, as libwayland-client reads them (see
// ForeignToplevel.c for the signature letters; a is an array). The messages
// stand in the order of the protocol's definition, which gives their opcodes.
// The agent sends none of the context's requests but destroy: it never
// commits text and never grabs the keyboard.
#include "CAgent.h"

extern const struct wl_interface wl_keyboard_interface;

static const struct wl_interface *noObjects[] = {NULL, NULL, NULL, NULL, NULL};
static const struct wl_interface *aKeyboard[] = {&wl_keyboard_interface};
static const struct wl_interface *aContext[] = {&CAgent_inputMethodContextV1Interface};

static const struct wl_message contextRequests[] = {
  {"destroy", "", noObjects},
  {"commit_string", "us", noObjects},
  {"preedit_string", "uss", noObjects},
  {"preedit_styling", "uuu", noObjects},
  {"preedit_cursor", "i", noObjects},
  {"delete_surrounding_text", "iu", noObjects},
  {"cursor_position", "ii", noObjects},
  {"modifiers_map", "a", noObjects},
  {"keysym", "uuuuu", noObjects},
  {"grab_keyboard", "n", aKeyboard},
  {"key", "uuuu", noObjects},
  {"modifiers", "uuuuu", noObjects},
  {"language", "us", noObjects},
  {"text_direction", "uu", noObjects},
};

static const struct wl_message contextEvents[] = {
  {"surrounding_text", "suu", noObjects},
  {"reset", "", noObjects},
  {"content_type", "uu", noObjects},
  {"invoke_action", "uu", noObjects},
  {"commit_state", "u", noObjects},
  {"preferred_language", "s", noObjects},
};

const struct wl_interface CAgent_inputMethodContextV1Interface = {
  "zwp_input_method_context_v1", 1, 14, contextRequests, 6, contextEvents,
};

static const struct wl_message inputMethodV1Events[] = {
  {"activate", "n", aContext},
  {"deactivate", "o", aContext},
};

const struct wl_interface CAgent_inputMethodV1Interface = {
  "zwp_input_method_v1", 1, 0, NULL, 2, inputMethodV1Events,
};
