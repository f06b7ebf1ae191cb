"""Plays GNOME Shell or KWin for the session agent's `gnome` and `kde`
sources, on the session bus: owns org.gnome.Shell (EnableExtension) or
org.kde.KWin (org.kde.kwin.Scripting unloadScript and loadScript, and
org.kde.kwin.Script run on /Scripting/ScriptN), prints each call it gets,
and once the agent has asked for the extension or run the script, makes the
FocusChanged calls given, as the extension or the script would, each after
its delay.

    fake_desktop.py gnome|kde CALLS_JSON

CALLS_JSON: a list of [delay in ms, window, app, instance, title]."""

import json
import sys

from gi.repository import Gio, GLib

desktop = sys.argv[1]
calls = json.loads(sys.argv[2])
AGENT = ("io.github.vkbd.Agent", "/io/github/vkbd/Agent", "io.github.vkbd.Agent1")
SCRIPT_ID = 3

INTERFACES = {
    "gnome": ("org.gnome.Shell", [("/org/gnome/Shell", """
        <node><interface name="org.gnome.Shell.Extensions">
          <method name="EnableExtension"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
        </interface></node>""")]),
    "kde": ("org.kde.KWin", [("/Scripting", """
        <node><interface name="org.kde.kwin.Scripting">
          <method name="loadScript"><arg type="s" direction="in"/><arg type="s" direction="in"/>
            <arg type="i" direction="out"/></method>
          <method name="unloadScript"><arg type="s" direction="in"/><arg type="b" direction="out"/></method>
        </interface></node>"""), ("/Scripting/Script%d" % SCRIPT_ID, """
        <node><interface name="org.kde.kwin.Script"><method name="run"/></interface></node>""")]),
}


def play(connection):
    def next_call(remaining):
        connection.call(*AGENT, "FocusChanged", GLib.Variant("(ssss)", tuple(remaining[0][1:])), None,
                        Gio.DBusCallFlags.NO_AUTO_START, 2000, None, None)
        if len(remaining) > 1:
            GLib.timeout_add(int(remaining[1][0]), next_call, remaining[1:])
        else:
            print("played", flush=True)
        return False
    GLib.timeout_add(500, next_call, calls)


def method_call(connection, sender, path, interface, method, parameters, invocation):
    print("call %s %s %s" % (path, method, json.dumps(parameters.unpack())), flush=True)
    if method == "EnableExtension":
        invocation.return_value(GLib.Variant("(b)", (True,)))
        play(connection)
    elif method == "loadScript":
        invocation.return_value(GLib.Variant("(i)", (SCRIPT_ID,)))
    elif method == "unloadScript":
        invocation.return_value(GLib.Variant("(b)", (False,)))
    elif method == "run":
        invocation.return_value(None)
        play(connection)


def bus_acquired(connection, name):
    for path, xml in INTERFACES[desktop][1]:
        for interface in Gio.DBusNodeInfo.new_for_xml(xml).interfaces:
            connection.register_object(path, interface, method_call, None, None)


def name_acquired(connection, name):
    print("ready", flush=True)


Gio.bus_own_name(Gio.BusType.SESSION, INTERFACES[desktop][0], Gio.BusNameOwnerFlags.NONE, bus_acquired,
                 name_acquired, None)
GLib.MainLoop().run()
