"""A GTK 3 window with the three kinds of text field the field tests type
into: a password entry, a one-line entry and a multi-line text view. Each
writes its text to FILE.password, FILE.entry and FILE.view at every change;
the password entry has the focus first, and each SIGUSR1 moves it to the
next field. Its Wayland app id is vkbd-test-fields.

    fields.py FILE"""

import os
import signal
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

GLib.set_prgname("vkbd-test-fields")
path = sys.argv[1]


def save(name, text):
    with open("%s.%s.new" % (path, name), "w", encoding="utf-8") as file:
        file.write(text)
    os.rename("%s.%s.new" % (path, name), "%s.%s" % (path, name))


window = Gtk.Window(title="Fields")
box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL)
password = Gtk.Entry(visibility=False, input_purpose=Gtk.InputPurpose.PASSWORD)
entry = Gtk.Entry()
view = Gtk.TextView()
for widget in (password, entry, view):
    box.pack_start(widget, True, True, 0)
window.add(box)
password.connect("changed", lambda widget: save("password", widget.get_text()))
entry.connect("changed", lambda widget: save("entry", widget.get_text()))
view.get_buffer().connect("changed", lambda buffer: save("view", buffer.get_text(*buffer.get_bounds(), True)))
order = [password, entry, view]


def focus_next():
    order.append(order.pop(0))
    order[0].grab_focus()
    return GLib.SOURCE_CONTINUE


GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, focus_next)
window.connect("destroy", Gtk.main_quit)
window.show_all()
password.grab_focus()
for name in ("password", "entry", "view"):
    save(name, "")
with open(path, "w") as ready:
    ready.write("up\n")  # the window is up
Gtk.main()
