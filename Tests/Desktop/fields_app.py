#!/usr/bin/python3
"""A GTK window with the fields the desktop tests look at: an entry, a
password entry, a PIN entry, a text view and a button, each holding text
the test knows. Commands on standard input, one a line:

    focus NAME     gives NAME (entry, password, pin, text, button) the focus,
                   the cursor at the end of its text
    quit

It prints "ready" once its window is shown, and "done" after each command.

    fields_app.py 3|4"""

import sys

import gi

VERSION = sys.argv[1]
gi.require_version("Gtk", VERSION + ".0")
from gi.repository import GLib, Gtk  # noqa: E402

from desktop import TEXTS  # noqa: E402


def build():
    window = Gtk.Window(title="vkbd fields, GTK " + VERSION)
    box = Gtk.Box(orientation=Gtk.Orientation.VERTICAL, spacing=6)
    widgets = {}
    entry = Gtk.Entry()
    entry.set_text(TEXTS["entry"])
    widgets["entry"] = entry
    password = Gtk.Entry(visibility=False, input_purpose=Gtk.InputPurpose.PASSWORD)
    password.set_text(TEXTS["password"])
    widgets["password"] = password
    pin = Gtk.Entry(visibility=False, input_purpose=Gtk.InputPurpose.PIN)
    pin.set_text(TEXTS["pin"])
    widgets["pin"] = pin
    view = Gtk.TextView()
    view.get_buffer().set_text(TEXTS["text"])
    view.set_size_request(300, 80)
    widgets["text"] = view
    widgets["button"] = Gtk.Button(label="A button")
    for widget in widgets.values():
        box.append(widget) if VERSION == "4" else box.pack_start(widget, False, False, 0)
    if VERSION == "4":
        window.set_child(box)
    else:
        window.add(box)
    return window, widgets


def main():
    if VERSION == "3":
        Gtk.init(None)
    window, widgets = build()
    loop = GLib.MainLoop()
    window.connect("destroy" if VERSION == "3" else "close-request", lambda *args: loop.quit())

    def enter(widget):
        if isinstance(widget, Gtk.Entry):
            widget.set_position(-1)
        elif isinstance(widget, Gtk.TextView):
            buffer = widget.get_buffer()
            buffer.place_cursor(buffer.get_end_iter())
        widget.grab_focus()
        if isinstance(widget, Gtk.Entry):
            widget.set_position(-1)
        print("done", flush=True)
        return False

    def command(channel, condition):
        line = sys.stdin.readline()
        if not line:
            loop.quit()
            return False
        name, _, argument = line.rstrip("\n").partition(" ")
        if name == "focus":
            # Away and back, a moment apart, so that the field is entered
            # with its cursor at the end even when it has the focus already.
            widget = widgets[argument]
            widgets["button"].grab_focus()
            GLib.timeout_add(300, enter, widget)
            return True
        elif name == "quit":
            loop.quit()
            return False
        print("done", flush=True)
        return True

    GLib.io_add_watch(GLib.IOChannel.unix_new(sys.stdin.fileno()), GLib.PRIORITY_DEFAULT, GLib.IO_IN | GLib.IO_HUP,
                      command)
    window.maximize()
    if VERSION == "4":
        window.present()
    else:
        window.show_all()
    GLib.timeout_add(500, lambda: print("ready", flush=True) and False)
    loop.run()


if __name__ == "__main__":
    main()
