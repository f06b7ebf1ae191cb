"""A stand-in for zenity's form dialog, for the desktop tests: a GTK 3
window (app id vkbd-test-dialog) that stays open until ANSWER exists, then
prints what ANSWER holds, as `zenity --forms` prints the fields (separated
by the --separator it was given), and exits 0. It takes zenity's arguments
and reads none but the separator.

    dialog.py ANSWER [zenity's arguments]"""

import os
import sys

import gi

gi.require_version("Gtk", "3.0")
from gi.repository import GLib, Gtk  # noqa: E402

GLib.set_prgname("vkbd-test-dialog")
answer = sys.argv[1]
separator = next((argument.split("=", 1)[1] for argument in sys.argv[2:] if argument.startswith("--separator=")), "|")


def check():
    if not os.path.exists(answer):
        return True
    with open(answer, encoding="utf-8") as file:
        fields = file.read().split("\n")
    print(separator.join(fields))
    Gtk.main_quit()
    return False


window = Gtk.Window(title="vkbd test dialog")
window.add(Gtk.Entry())
window.connect("destroy", Gtk.main_quit)
window.show_all()
GLib.timeout_add(100, check)
Gtk.main()
