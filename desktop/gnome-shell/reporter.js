// vkbd-focus: tells the vkbd session agent (vkbd-agent(1)) which window
// has the keyboard focus, on the session bus, whenever it changes: another
// window, or the focused window's title or app id; and which keyboard
// layout is in effect, whenever the input source changes. GNOME Shell's
// Wayland session has no protocol for either. The Makefile puts this class
// between the imports of GNOME Shell 42-44 (legacy.js) or 45 and later
// (modern.js); each gives it Gio, GLib and Keyboard (ui/status/keyboard).
//
// The agent's methods, on /io/github/vkbd/Agent of the name
// io.github.vkbd.Agent:
//   io.github.vkbd.Agent1.FocusChanged(window, app, instance, title), all
//   strings; an empty window: nothing has the focus.
//   io.github.vkbd.Agent1.LayoutChanged(rules, model, layout, variant,
//   options, group), strings but the group (u). GNOME's keymap holds the
//   current source's layout alone (the shell switches keymaps, not
//   groups): one layout, group 0.

const AGENT_NAME = 'io.github.vkbd.Agent';
const AGENT_PATH = '/io/github/vkbd/Agent';
const AGENT_INTERFACE = 'io.github.vkbd.Agent1';
const INPUT_SOURCES_SCHEMA = 'org.gnome.desktop.input-sources';
// What GNOME's keymap uses where xkb-model is unset (or, before GNOME 48, absent).
const DEFAULT_MODEL = 'pc105+inet';

class FocusReporter {
  enable() {
    this._window = null;
    this._windowSignals = [];
    this._focusSignal = global.display.connect('notify::focus-window', () => this._focusMoved());
    // Not sources-changed: after it the manager has no current source
    // until the current-source-changed that follows.
    this._inputSources = Keyboard.getInputSourceManager();
    this._sourceSignal = this._inputSources.connect('current-source-changed', () => this._reportLayout());
    this._settings = new Gio.Settings({schema_id: INPUT_SOURCES_SCHEMA});
    this._settingsSignal = this._settings.connect('changed', (settings, key) => {
      if (key === 'xkb-options' || key === 'xkb-model')
        this._reportLayout();
    });
    // An agent that starts (or restarts) after the shell hears the focus
    // and the layout at once.
    this._watch = Gio.bus_watch_name(
      Gio.BusType.SESSION, AGENT_NAME, Gio.BusNameWatcherFlags.NONE, () => {
        this._report();
        this._reportLayout();
      }, null);
    this._focusMoved();
    this._reportLayout();
  }

  disable() {
    global.display.disconnect(this._focusSignal);
    this._inputSources.disconnect(this._sourceSignal);
    this._settings.disconnect(this._settingsSignal);
    this._settings = null;
    this._inputSources = null;
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
    this._call('FocusChanged', new GLib.Variant('(ssss)', [id, app, instance, title]));
  }

  _reportLayout() {
    const source = this._inputSources.currentSource;
    if (!source)
      return;
    // The XKB layout and variant, 'de+nodeadkeys'; an IBus source's too.
    const xkbId = source.xkbId || '';
    const plus = xkbId.indexOf('+');
    const [layout, variant] = plus < 0 ? [xkbId, ''] : [xkbId.slice(0, plus), xkbId.slice(plus + 1)];
    if (!layout)
      return;
    const model = (this._settings.settings_schema.has_key('xkb-model') &&
      this._settings.get_string('xkb-model')) || DEFAULT_MODEL;
    const options = this._settings.get_strv('xkb-options').join(',');
    this._call('LayoutChanged', new GLib.Variant('(sssssu)', ['evdev', model, layout, variant, options, 0]));
  }

  _call(method, parameters) {
    Gio.DBus.session.call(
      AGENT_NAME, AGENT_PATH, AGENT_INTERFACE, method, parameters, null,
      Gio.DBusCallFlags.NO_AUTO_START, 1000, null,
      (connection, result) => {
        try {
          connection.call_finish(result);
        } catch (error) {
          // No agent runs (yet): it is told when its name appears.
        }
      });
  }
}
