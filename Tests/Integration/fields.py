"""A GTK 3 window with the kinds of text field the field tests type into: a
password entry, a one-line entry, a multi-line text view, and an entry on
GTK's simple input context, which speaks to no input method (as Firefox's
password fields do). Each writes its text to FILE.password, FILE.entry,
FILE.view and FILE.plain at every change; the password entry has the focus
first, and each SIGUSR1 moves it to the next field. Its Wayland app id is
vkbd-test-fields.

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
plain = Gtk.Entry(im_module="gtk-im-context-simple")
for widget in (password, entry, view, plain):
    box.pack_start(widget, True, True, 0)
window.add(box)
password.connect("changed", lambda widget: save("password", widget.get_text()))
entry.connect("changed", lambda widget: save("entry", widget.get_text()))
view.get_buffer().connect("changed", lambda buffer: save("view", buffer.get_text(*buffer.get_bounds(), True)))
plain.connect("changed", lambda widget: save("plain", widget.get_text()))
order = [password, entry, view, plain]


def focus_next():
    order.append(order.pop(0))
    order[0].grab_focus()
    return GLib.SOURCE_CONTINUE


GLib.unix_signal_add(GLib.PRIORITY_DEFAULT, signal.SIGUSR1, focus_next)
window.connect("destroy", Gtk.main_quit)
window.show_all()
password.grab_focus()
for name in ("password", "entry", "view", "plain"):
    save(name, "")
with open(path, "w") as ready:
    ready.write("up\n")  # the window is up
Gtk.main()
