// GNOME Shell 42-44: the extension as a script of the legacy importer.
const {Clutter, Gio, GLib, Meta, Pango, St} = imports.gi;
const Main = imports.ui.main;
const Keyboard = imports.ui.status.keyboard;
const IBusManager = imports.misc.ibusManager;

//@reporter@

function init() {
  return new FocusReporter();
}
