// GNOME Shell 42-44: the extension as a script of the legacy importer.
const {Gio, GLib} = imports.gi;
const Keyboard = imports.ui.status.keyboard;

//@reporter@

function init() {
  return new FocusReporter();
}
