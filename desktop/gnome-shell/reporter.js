// vkbd-focus: tells the vkbd session agent (vkbd-agent(1)) which window
// has the keyboard focus, on the session bus, whenever it changes: another
// window, or the focused window's title or app id. GNOME Shell's Wayland
// session has no protocol for this. The Makefile puts this class between the
// imports of GNOME Shell 42-44 (legacy.js) or 45 and later (modern.js).
//
// The agent's method: io.github.vkbd.Agent1.FocusChanged(window, app,
// instance, title), all strings, on /io/github/vkbd/Agent of the name
// io.github.vkbd.Agent. An empty window: nothing has the focus.

const AGENT_NAME = 'io.github.vkbd.Agent';
const AGENT_PATH = '/io/github/vkbd/Agent';
const AGENT_INTERFACE = 'io.github.vkbd.Agent1';

class FocusReporter {
  enable() {
    this._window = null;
    this._windowSignals = [];
    this._focusSignal = global.display.connect('notify::focus-window', () => this._focusMoved());
    // An agent that starts (or restarts) after the shell hears the focus at once.
    this._watch = Gio.bus_watch_name(
      Gio.BusType.SESSION, AGENT_NAME, Gio.BusNameWatcherFlags.NONE, () => this._report(), null);
    this._focusMoved();
  }

  disable() {
    global.display.disconnect(this._focusSignal);
    Gio.bus_unwatch_name(this._watch);
    this._forgetWindow();
  }

  _forgetWindow() {
    for (const id of this._windowSignals)
      this._window.disconnect(id);
    this._windowSignals = [];
    this._window = null;
  }

  _focusMoved() {
    if (this._window)
      this._forgetWindow();
    this._window = global.display.focus_window;
    if (this._window) {
      // A title changes while the window keeps the focus; a new window's
      // app id may come just after it is shown.
      for (const property of ['notify::title', 'notify::wm-class'])
        this._windowSignals.push(this._window.connect(property, () => this._report()));
    }
    this._report();
  }

  _report() {
    const window = this._window;
    let [id, app, instance, title] = ['', '', '', ''];
    if (window) {
      id = String(window.get_id());
      // The Wayland app id or the X11 class; the X11 instance, or where
      // there is none the GTK application id (GTK 3 names its Wayland
      // windows after the program, not the application).
      app = window.get_wm_class() || '';
      instance = window.get_wm_class_instance() || '';
      if (instance === app)
        instance = window.get_gtk_application_id() || '';
      title = window.get_title() || '';
    }
    Gio.DBus.session.call(
      AGENT_NAME, AGENT_PATH, AGENT_INTERFACE, 'FocusChanged',
      new GLib.Variant('(ssss)', [id, app, instance, title]), null,
      Gio.DBusCallFlags.NO_AUTO_START, 1000, null,
      (connection, result) => {
        try {
          connection.call_finish(result);
        } catch (error) {
          // No agent runs (yet): it asks for the focus when it starts.
        }
      });
  }
}
