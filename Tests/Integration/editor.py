"""A small GTK 3 text editor for the desktop tests: a window with a text
view, whose text it writes to FILE at every change, so that a test reads back
exactly what the application received, and to FILE.focus how often its
window lost the keyboard focus. Its Wayland app id is its program name,
vkbd-test-editor (GTK 3 names its windows after the program).

    editor.py FILE"""

import os
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

GLib.set_prgname("vkbd-test-editor")
path = sys.argv[1]


def save(buffer):
    start, end = buffer.get_bounds()
    with open(path + ".new", "w", encoding="utf-8") as file:
        file.write(buffer.get_text(start, end, True))
    os.rename(path + ".new", path)


window = Gtk.Window(title="Notes")
view = Gtk.TextView()
window.add(view)
view.get_buffer().connect("changed", save)
focus_lost = 0


def lost_focus(*_):
    global focus_lost
    focus_lost += 1
    with open(path + ".focus", "w") as file:
        file.write("%d\n" % focus_lost)


window.connect("focus-out-event", lost_focus)
window.connect("destroy", Gtk.main_quit)
window.show_all()
view.grab_focus()
save(view.get_buffer())  # the file says the window is up
Gtk.main()
