// vkbd-focus: tells the vkbd session agent (vkbd-agent(1)) which window
// has the keyboard focus, on the session bus, whenever it changes: another
// window, or the focused window's title. KDE Plasma's Wayland session has
// no protocol for this. The agent loads this script into KWin itself
// (org.kde.kwin.Scripting.loadScript) each time it starts; the script then
// reports the window that has the focus at once.
//
// The agent's method: io.github.vkbd.Agent1.FocusChanged(window, app,
// instance, title), all strings, on /io/github/vkbd/Agent of the name
// io.github.vkbd.Agent. An empty window: nothing has the focus.

const vkbdAgent = {
  name: "io.github.vkbd.Agent",
  path: "/io/github/vkbd/Agent",
  iface: "io.github.vkbd.Agent1",
};

// KWin 6 says window where KWin 5 said client.
const vkbdActivated = workspace.windowActivated !== undefined ? workspace.windowActivated : workspace.clientActivated;
let vkbdFocused = null;

function vkbdReport() {
  const window = vkbdFocused;
  // On Wayland, resourceClass is the app id and resourceName the program's
  // file name; on X11 they are WM_CLASS's class and instance.
  callDBus(vkbdAgent.name, vkbdAgent.path, vkbdAgent.iface, "FocusChanged",
    window ? String(window.internalId) : "", window ? String(window.resourceClass) : "",
    window ? String(window.resourceName) : "", window ? String(window.caption) : "");
}

function vkbdFocus(window) {
  if (vkbdFocused)
    vkbdFocused.captionChanged.disconnect(vkbdReport);
  // KWin hands null first when the focus moves, and when the last window closes.
  vkbdFocused = window;
  if (window)
    window.captionChanged.connect(vkbdReport);
  vkbdReport();
}

vkbdActivated.connect(vkbdFocus);
vkbdFocus(workspace.activeWindow !== undefined ? workspace.activeWindow : workspace.activeClient);
