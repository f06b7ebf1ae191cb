// GNOME Shell 42-44: the extension as a script of the legacy importer.
const {Gio, GLib} = imports.gi;

//@reporter@

function init() {
  return new FocusReporter();
}
