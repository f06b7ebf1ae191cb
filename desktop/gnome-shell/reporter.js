// vkbd-focus: tells the vkbd session agent (vkbd-agent(1)) which window
// has the keyboard focus, on the session bus, whenever it changes: another
// window, or the focused window's title or app id; and which keyboard
// layout is in effect, whenever the input source changes. GNOME Shell's
// Wayland session has no protocol for either. The Makefile puts this class
// between the imports of GNOME Shell 42-44 (legacy.js) or 45 and later
// (modern.js); each gives it Clutter, Gio, GLib, St, Pango, Main (ui/main),
// Keyboard (ui/status/keyboard) and IBusManager (misc/ibusManager).
//
// And the focused text field: its content purpose and hints and the text
// before its cursor, from the Shell's own input method (Main.inputMethod),
// which mutter tells of every text-input-v3 client (GTK 3 and 4 among
// them); for the clients that talk to IBus themselves
// (X11 and Xwayland ones), the purpose and hints IBus's panel hears.
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
//   io.github.vkbd.Agent1.FieldChanged(s kind, u purpose, u hints,
//   b has_text, s before, b start): kind 'input-method' (Clutter's purpose
//   and hints), 'ibus' (IBus's), or '' when no text field has the focus;
//   the last 256 characters before the cursor, and whether they are all
//   the field has before it. No text is sent for a secret field, or one
//   whose purpose this extension does not know.

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

// The text a field report carries at most, in characters, and the size in
// UTF-8 bytes below which a surrounding text is the whole field (GTK sends
// at most 4000 bytes around the cursor).
const FIELD_TEXT = 256;
const CLIPPED_TEXT = 3800;

class FieldWatch {
  constructor(send) {
    this._send = send;
    this._last = null;
    this._idle = 0;
    this._warned = false;
    this._ibusFocus = false;
    this._ibusType = [0, 0];
    this._method = Main.inputMethod;
    // The input method keeps the text input that has the focus in
    // _currentFocus (its vfuncs focus_in and focus_out set it) and emits
    // nothing: an accessor on the instance hears it. What has the focus is
    // read from its public currentFocus, so that a shell that keeps it
    // elsewhere is still read right at the next change of content type or
    // text.
    this._focus = this._method._currentFocus || null;
    Object.defineProperty(this._method, '_currentFocus', {
      configurable: true,
      get: () => this._focus,
      set: focus => {
        this._focus = focus;
        this._changed();
      },
    });
    this._methodSignals = ['notify::content-purpose', 'notify::content-hints', 'surrounding-text-set'].map(
      name => this._method.connect(name, () => this._changed()));
    this._ibus = IBusManager.getIBusManager();
    this._ibusSignals = [
      this._ibus.connect('set-content-type', (manager, purpose, hints) => {
        this._ibusType = [purpose, hints];
        this._changed();
      }),
      // The Shell's own input method is an IBus client too, and the Shell
      // hides its context's focus-in only where that is IBus's first
      // context: while a text input of the Shell's has the focus, a
      // focus-in is its own, and would outlast that focus by the few
      // milliseconds IBus takes to hear of its end.
      this._ibus.connect('focus-in', () => {
        if (this._method.currentFocus)
          return;
        this._ibusFocus = true;
        this._changed();
      }),
      this._ibus.connect('focus-out', () => {
        this._ibusFocus = false;
        this._changed();
      }),
    ];
    this._changed();
  }

  destroy() {
    if (this._idle)
      GLib.source_remove(this._idle);
    for (const id of this._methodSignals)
      this._method.disconnect(id);
    for (const id of this._ibusSignals)
      this._ibus.disconnect(id);
    delete this._method._currentFocus;
    this._method._currentFocus = this._focus;
  }

  // Sends the field again, changed or not (an agent came).
  resend() {
    this._last = null;
    this._changed();
  }

  // A text input's state comes in several calls (focus, purpose, hints,
  // text): one report once they are all in.
  _changed() {
    if (!this._idle) {
      this._idle = GLib.idle_add(GLib.PRIORITY_DEFAULT, () => {
        this._idle = 0;
        this._report();
        return GLib.SOURCE_REMOVE;
      });
    }
  }

  _report() {
    let field = ['', 0, 0, false, '', false];
    if (this._method.currentFocus) {
      const purpose = this._method.content_purpose;
      const hints = this._method.content_hints;
      field = ['input-method', purpose, hints, false, '', false];
      const secret = purpose === Clutter.InputContentPurpose.PASSWORD ||
        (hints & (Clutter.InputContentHintFlags.HIDDEN_TEXT | Clutter.InputContentHintFlags.SENSITIVE_DATA)) !== 0;
      const known = Object.values(Clutter.InputContentPurpose).includes(purpose);
      const [text, cursor] = this._method.getSurroundingText();
      if (!secret && known && typeof text === 'string') {
        // The cursor is a byte offset into the UTF-8 text, as the client
        // sends it (mutter 43 passes it on unchanged).
        const bytes = new TextEncoder().encode(text);
        if (!Number.isInteger(cursor) || cursor < 0 || cursor > bytes.length ||
            (cursor < bytes.length && (bytes[cursor] & 0xC0) === 0x80)) {
          if (!this._warned)
            console.warn('vkbd-focus: a text field gave a cursor outside its text; its report is left out');
          this._warned = true;
          return;
        }
        const characters = Array.from(new TextDecoder().decode(bytes.subarray(0, cursor)));
        const whole = characters.length <= FIELD_TEXT && bytes.length < CLIPPED_TEXT;
        field = ['input-method', purpose, hints, true, characters.slice(-FIELD_TEXT).join(''), whole];
      }
    } else if (this._ibusFocus && global.display.focus_window?.get_client_type() === Meta.WindowClientType.X11) {
      // IBus's clients are X11 ones (Xwayland's): IBus's focus while a
      // Wayland window has the focus is the Shell's own, on its way out.
      field = ['ibus', this._ibusType[0], this._ibusType[1], false, '', false];
    }
    const key = JSON.stringify(field);
    if (key === this._last)
      return;
    this._last = key;
    this._send('FieldChanged', new GLib.Variant('(suubsb)', field));
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
        this._fields?.resend();
      }, null);
    this._focusMoved();
    this._reportLayout();
    this._picker = new PickerView();
    this._fields = new FieldWatch((method, parameters) => this._call(method, parameters));
  }

  disable() {
    this._fields.destroy();
    this._fields = null;
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
