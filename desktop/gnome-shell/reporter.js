// vkbd-focus: tells the vkbd session agent (vkbd-agent(1)) which window
// has the keyboard focus, on the session bus, whenever it changes: another
// window, or the focused window's title or app id; and which keyboard
// layout is in effect, whenever the input source changes. GNOME Shell's
// Wayland session has no protocol for either. The Makefile puts this class
// between the imports of GNOME Shell 42-44 (legacy.js) or 45 and later
// (modern.js); each gives it Gio, GLib, St, Pango, Main (ui/main) and
// Keyboard (ui/status/keyboard).
//
// It also shows vkbd's snippet picker, which GNOME Shell (no layer shell)
// lets no other client draw above every window without the focus: the
// agent's signals PickerChanged(s view) (the daemon's picker message,
// JSON: query, labels, triggers, sources, selected, total, trigger) and
// PickerHidden(). The picker is display-only: the daemon has the keys.
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

// The picker's look: as vkbd-agent draws it elsewhere (PickerPainter).
const PICKER_WIDTH = 560;
const PICKER_ROWS = 8;
const PICKER_THEMES = {
  light: {background: '#fafafa', border: 'rgba(0,0,0,0.18)', text: '#202020', dim: '#6a6a6a'},
  dark: {background: '#2b2b2b', border: 'rgba(255,255,255,0.16)', text: '#f0f0f0', dim: '#a0a0a0'},
};
const PICKER_SELECTION = '#3584e4';

class PickerView {
  constructor() {
    this._box = null;
    this._interface = new Gio.Settings({schema_id: 'org.gnome.desktop.interface'});
    // Only the agent's own signals: the sender is its name's owner.
    this._subscriptions = ['PickerChanged', 'PickerHidden'].map(member => Gio.DBus.session.signal_subscribe(
      AGENT_NAME, AGENT_INTERFACE, member, AGENT_PATH, null, Gio.DBusSignalFlags.NONE,
      (connection, sender, path, iface, signal, parameters) => {
        if (signal === 'PickerHidden') {
          this._hide();
          return;
        }
        try {
          this._show(JSON.parse(parameters.deepUnpack()[0]));
        } catch (error) {
          this._hide();
        }
      }));
  }

  destroy() {
    for (const id of this._subscriptions)
      Gio.DBus.session.signal_unsubscribe(id);
    this._hide();
  }

  _hide() {
    if (this._box) {
      this._box.destroy();
      this._box = null;
    }
  }

  _theme() {
    const dark = this._interface.settings_schema.has_key('color-scheme') &&
      this._interface.get_string('color-scheme') === 'prefer-dark';
    return PICKER_THEMES[dark ? 'dark' : 'light'];
  }

  _label(text, color, size, expand) {
    const label = new St.Label({text, x_expand: expand, y_align: Clutter.ActorAlign.CENTER});
    label.set_style(`color: ${color}; font-size: ${size}pt;`);
    label.clutter_text.ellipsize = Pango.EllipsizeMode.END;
    label.clutter_text.single_line_mode = true;
    return label;
  }

  _show(view) {
    const theme = this._theme();
    if (!this._box) {
      this._box = new St.BoxLayout({vertical: true, reactive: false});
      Main.layoutManager.addTopChrome(this._box, {affectsInputRegion: false});
    }
    this._box.destroy_all_children();
    this._box.set_style(`width: ${PICKER_WIDTH}px; padding: 8px; border-radius: 8px; ` +
      `background-color: ${theme.background}; border: 1px solid ${theme.border};`);
    const header = new St.BoxLayout({
      style: `height: 40px; padding: 0 8px; border-bottom: 1px solid ${theme.border};`,
    });
    let prompt = view.query;
    if (!prompt)
      prompt = view.trigger ? `Choose a snippet for ${view.trigger}` : 'Search snippets';
    header.add_child(this._label(prompt, view.query ? theme.text : theme.dim, 12, true));
    const count = view.total === 0 ? '' : view.total === 1 ? '1 snippet' : `${view.total} snippets`;
    header.add_child(this._label(count, theme.dim, 9, false));
    this._box.add_child(header);
    if (view.labels.length === 0) {
      const empty = new St.BoxLayout({style: 'height: 32px; padding: 0 8px;'});
      empty.add_child(this._label(view.query ? 'No snippet matches' : 'No snippets', theme.dim, 11, true));
      this._box.add_child(empty);
    }
    const first = view.selected < PICKER_ROWS ? 0 : view.selected - PICKER_ROWS + 1;
    for (let row = first; row < Math.min(view.labels.length, first + PICKER_ROWS); row++) {
      const selected = row === view.selected;
      const line = new St.BoxLayout({
        style: 'height: 28px; margin: 2px 0; padding: 0 8px; border-radius: 6px;' +
          (selected ? ` background-color: ${PICKER_SELECTION};` : ''),
      });
      const detail = [view.triggers[row], view.sources[row]].filter(part => part).join('  \u00b7  ');
      line.add_child(this._label(view.labels[row], selected ? '#ffffff' : theme.text, 11, true));
      line.add_child(this._label(detail, selected ? '#ffffff' : theme.dim, 9, false));
      this._box.add_child(line);
    }
    // On the monitor of the focused window, a fifth of the way down.
    const monitor = Main.layoutManager.focusMonitor || Main.layoutManager.primaryMonitor;
    if (monitor) {
      const scale = St.ThemeContext.get_for_stage(global.stage).scale_factor;
      this._box.set_position(
        Math.round(monitor.x + (monitor.width - PICKER_WIDTH * scale) / 2),
        Math.round(monitor.y + monitor.height / 5));
    }
  }
}

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
    this._picker = new PickerView();
  }

  disable() {
    this._picker.destroy();
    this._picker = null;
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
