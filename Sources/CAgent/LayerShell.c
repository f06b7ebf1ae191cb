// The interface tables of wlr-layer-shell-unstable-v1 up to version 4, as
// libwayland-client reads them (see ForeignToplevel.c for the signature
// letters): a client's surface placed on a layer of an output, which the
// snippet picker's window is, above every window and without the keyboard.
// get_popup's xdg_popup is left untyped: the agent makes no popup.
#include "CAgent.h"

extern const struct wl_interface wl_output_interface;
extern const struct wl_interface wl_surface_interface;

static const struct wl_interface *noObjects[] = {NULL, NULL, NULL, NULL};
static const struct wl_interface *aLayerSurface[] = {
  &CAgent_layerSurfaceInterface, &wl_surface_interface, &wl_output_interface, NULL, NULL,
};

static const struct wl_message layerShellRequests[] = {
  {"get_layer_surface", "no?ous", aLayerSurface},
  {"destroy", "3", noObjects},
};

const struct wl_interface CAgent_layerShellInterface = {
  "zwlr_layer_shell_v1", 4, 2, layerShellRequests, 0, NULL,
};

static const struct wl_message layerSurfaceRequests[] = {
  {"set_size", "uu", noObjects},
  {"set_anchor", "u", noObjects},
  {"set_exclusive_zone", "i", noObjects},
  {"set_margin", "iiii", noObjects},
  {"set_keyboard_interactivity", "u", noObjects},
  {"get_popup", "o", noObjects},
  {"ack_configure", "u", noObjects},
  {"destroy", "", noObjects},
  {"set_layer", "2u", noObjects},
};

static const struct wl_message layerSurfaceEvents[] = {
  {"configure", "uuu", noObjects},
  {"closed", "", noObjects},
};

const struct wl_interface CAgent_layerSurfaceInterface = {
  "zwlr_layer_surface_v1", 4, 9, layerSurfaceRequests, 2, layerSurfaceEvents,
};
