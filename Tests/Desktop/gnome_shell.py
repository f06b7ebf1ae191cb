#!/usr/bin/python3
"""vkbd in a real GNOME Shell, on this machine: GNOME Shell headless
(--headless --virtual-monitor) on a private session bus, with a private
system bus where a stand-in answers for logind (the shell asks it at
start; no systemd runs here). The real vkbd-agent enables the real
vkbd-focus extension (the form for the installed shell), and a stand-in
daemon on the agent socket speaks the agent protocol.

The snippet picker (issue 27): the stand-in sends a picker, the dark
scheme is set, it sends it again, then hides it; each step is checked on a
screenshot the shell takes (its Screenshot API, as a caller it allows: the
owner of org.gnome.Screenshot), which stays in .cache/desktop/.

The focused field (issue 28): a GTK 4 and a GTK 3 window (fields_app.py)
give the focus to an entry, a password entry, a PIN entry, a text view and
a button in turn; the field reports that reach the stand-in must say the
role and the text before the cursor that each really has, and the
extension never sends IBus's kind for them. Then Firefox and Chromium,
Wayland clients, show browser_fields.html (desktop.check_browsers).

    gnome_shell.py VKBD_AGENT EXTENSION_DIR

Exits 0 when every check passed."""

import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

from desktop import (FIELDS, Checks, FieldsWindow, StandIn, check_browsers, describe, matching, session_bus_of,
                     stop)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUTPUT = os.path.join(REPO, ".cache", "desktop")
SELECTION = (0x35, 0x84, 0xE4)
LIGHT = (0xFA, 0xFA, 0xFA)
DARK = (0x2B, 0x2B, 0x2B)

SYSTEM_BUS = """<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig><type>system</type><listen>unix:path=%s</listen><auth>EXTERNAL</auth>
<policy context="default"><allow user="*"/><allow own="*"/><allow send_destination="*"/>
<allow receive_type="*"/></policy></busconfig>
"""

# The stand-in for logind and the screenshot taker, run in the session.
LOGIND = r'''
from gi.repository import Gio, GLib
XML = """<node><interface name="org.freedesktop.login1.Manager">
<method name="GetSession"><arg type="s" direction="in"/><arg type="o" direction="out"/></method>
<method name="GetSessionByPID"><arg type="u" direction="in"/><arg type="o" direction="out"/></method>
<method name="CanSuspend"><arg type="s" direction="out"/></method>
<method name="CanRebootToBootLoaderMenu"><arg type="s" direction="out"/></method>
<method name="ListSessions"><arg type="a(susso)" direction="out"/></method>
<signal name="PrepareForSleep"><arg type="b"/></signal></interface></node>"""
info = Gio.DBusNodeInfo.new_for_xml(XML).interfaces[0]
def call(connection, sender, path, interface, method, parameters, invocation):
    if method.startswith("GetSession"):
        invocation.return_dbus_error("org.freedesktop.login1.NoSuchSession", "none")
    elif method.startswith("Can"):
        invocation.return_value(GLib.Variant("(s)", ("na",)))
    else:
        invocation.return_value(GLib.Variant("(a(susso))", ([],)))
Gio.bus_own_name(Gio.BusType.SYSTEM, "org.freedesktop.login1", Gio.BusNameOwnerFlags.NONE,
                 lambda c, n: c.register_object("/org/freedesktop/login1", info, call, None, None), None, None)
GLib.MainLoop().run()
'''
# A remote desktop session of mutter, kept open: its virtual keyboard is
# the headless seat's only one, without which no window is active and no
# text input gets the focus. It taps the evdev key codes and pointer
# buttons given on its standard input ("key 30", "button 272").
REMOTE = r'''
import sys
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
def call(path, interface, method, arguments=None, reply=None):
    return bus.call_sync("org.gnome.Mutter.RemoteDesktop", path, interface, method, arguments,
                         GLib.VariantType.new(reply) if reply else None, Gio.DBusCallFlags.NONE, -1).unpack()
session = call("/org/gnome/Mutter/RemoteDesktop", "org.gnome.Mutter.RemoteDesktop", "CreateSession", None, "(o)")[0]
call(session, "org.gnome.Mutter.RemoteDesktop.Session", "Start")
def tap(what, code):
    for pressed in (True, False):
        if what == "key":
            call(session, "org.gnome.Mutter.RemoteDesktop.Session", "NotifyKeyboardKeycode",
                 GLib.Variant("(ub)", (code, pressed)))
        else:
            call(session, "org.gnome.Mutter.RemoteDesktop.Session", "NotifyPointerButton",
                 GLib.Variant("(ib)", (code, pressed)))
tap("key", 42)  # Shift: the keyboard is made at its first key
print("ready", flush=True)
for line in sys.stdin:
    what, code = line.split()
    tap(what, int(code))
    print("done", flush=True)
'''
SHOOT = r'''
import sys
from gi.repository import Gio, GLib
bus = Gio.bus_get_sync(Gio.BusType.SESSION)
bus.call_sync("org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "RequestName",
              GLib.Variant("(su)", ("org.gnome.Screenshot", 0)), None, Gio.DBusCallFlags.NONE, -1)
bus.call_sync("org.gnome.Shell.Screenshot", "/org/gnome/Shell/Screenshot", "org.gnome.Shell.Screenshot",
              "Screenshot", GLib.Variant("(bbs)", (False, False, sys.argv[1])), None, Gio.DBusCallFlags.NONE, -1)
'''

VIEW = {"type": "picker", "version": 2, "query": "regards", "selected": 1, "total": 3,
        "labels": ["Thanks for your message", "Kind regards, Ada", "Mit freundlichen Grüßen"],
        "triggers": [":thx", ":kr", ":mfg"], "sources": ["/home/ada/base.yml", "/etc/vkbd/mail.yml", "de.yml"]}


def png_pixels(path):
    """The (red, green, blue) pixels of an 8-bit RGB or RGBA PNG."""
    data = open(path, "rb").read()
    position, chunks, header = 8, b"", None
    while position < len(data):
        length, kind = struct.unpack(">I4s", data[position:position + 8])
        body = data[position + 8:position + 8 + length]
        if kind == b"IHDR":
            header = struct.unpack(">IIBBBBB", body)
        elif kind == b"IDAT":
            chunks += body
        position += 12 + length
    width, height, depth, colour = header[:4]
    assert depth == 8 and colour in (2, 6), "a PNG of 8-bit RGB(A) expected"
    step = 3 if colour == 2 else 4
    raw, stride, previous, pixels = zlib.decompress(chunks), width * step, bytearray(width * step), []
    for row in range(height):
        kind = raw[row * (stride + 1)]
        line = bytearray(raw[row * (stride + 1) + 1:(row + 1) * (stride + 1)])
        for index in range(stride):
            left = line[index - step] if index >= step else 0
            up = previous[index]
            corner = previous[index - step] if index >= step else 0
            if kind == 1:
                line[index] = (line[index] + left) & 0xFF
            elif kind == 2:
                line[index] = (line[index] + up) & 0xFF
            elif kind == 3:
                line[index] = (line[index] + (left + up) // 2) & 0xFF
            elif kind == 4:
                guess = left + up - corner
                pick = min((abs(guess - left), 0, left), (abs(guess - up), 1, up), (abs(guess - corner), 2, corner))
                line[index] = (line[index] + pick[2]) & 0xFF
        pixels.extend(tuple(line[index:index + 3]) for index in range(0, stride, step))
        previous = line
    return pixels


def check_fields(version, shell_env, remote, stand_in, check):
    """Gives each field of a GTK `version` window the focus in turn and
    checks the field reports the agent sends."""
    def remote_says(line):
        remote.stdin.write(line + "\n")
        remote.stdin.flush()
        remote.stdout.readline()

    def type_keys(codes):
        for code in codes:
            remote_says("key %d" % code)
            time.sleep(0.2)

    last = [None]
    focused = [None]

    def take(timeout):
        """The next field report (None after `timeout`), following the focus on the way."""
        def accept(message):
            if message.get("type") == "focus":
                focused[0] = message.get("title")
            return message.get("type") == "field"

        message = stand_in.next(timeout, accept)
        if message is not None:
            last[0] = message
        return message

    def drain(seconds):
        deadline = time.time() + seconds
        while take(deadline - time.time()) is not None:
            pass

    def overview_shown():
        result = subprocess.run(
            ["gdbus", "call", "--session", "--dest", "org.gnome.Shell", "--object-path", "/org/gnome/Shell",
             "--method", "org.freedesktop.DBus.Properties.Get", "org.gnome.Shell", "OverviewActive"],
            env=shell_env, check=True, timeout=60, capture_output=True, text=True)
        return "true" in result.stdout

    def expect(what, roles, before):
        # The agent sends a field only when it changed: a PIN after a
        # password may say nothing new, so the field now may already do.
        initial, message, seen = last[0], last[0], []
        deadline = time.time() + 10
        while message is None or not matching(message, roles, before):
            message = take(deadline - time.time())
            if message is None:
                check(False, "GTK %s: %s (reports seen: %r, before them %r)" % (version, what, seen, initial))
                return
            seen.append((message.get("role"), message.get("before"), message.get("start", False)))
        check(True, "GTK %s: %s" % (version, what))

    app = None
    try:
        with check.asserting(BrokenPipeError):
            app = FieldsWindow("GTK " + version, ["/usr/bin/python3", os.path.join(HERE, "fields_app.py"), version],
                               dict(shell_env, GDK_BACKEND="wayland"),
                               open(os.path.join(OUTPUT, "gtk%s.log" % version), "w"))
            # Mutter gives a new window no focus without a user's action. The
            # window is maximized: a click in the middle of the screen (where
            # the pointer is) lands on it, or on it in the overview, which the
            # shell shows when the last window closes; either gives it the focus.
            drain(2)
            for attempt in range(5):
                if focused[0] == "vkbd fields, GTK " + version and not overview_shown():
                    break
                remote_says("button 272")
                drain(2)
            assert focused[0] == "vkbd fields, GTK " + version, "the GTK %s window did not get the focus" % version
            time.sleep(1)
            for name, roles, before in FIELDS:
                app.command("focus " + name)
                expect(describe(name, roles, before), roles, before)
                if name == "entry":
                    type_keys([57, 21, 24, 22])  # " you" on the us layout
                    expect("typing in the entry is reported", roles, before + " you")
            app.command("quit")
    finally:
        if app is not None:
            app.close()


def main():
    agent_binary, extension = sys.argv[1], sys.argv[2]
    os.makedirs(OUTPUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="vkbd-gnome-")
    home, runtime = os.path.join(work, "home"), os.path.join(work, "runtime")
    os.makedirs(os.path.join(home, ".local/share/gnome-shell/extensions"))
    os.makedirs(runtime, mode=0o700)
    shutil.copytree(extension, os.path.join(home, ".local/share/gnome-shell/extensions", os.path.basename(extension)))
    for name, text in (("system.conf", SYSTEM_BUS % os.path.join(work, "system.sock")), ("logind.py", LOGIND),
                       ("shoot.py", SHOOT), ("remote.py", REMOTE)):
        with open(os.path.join(work, name), "w") as file:
            file.write(text)
    agent_socket = os.path.join(work, "agent.sock")
    stand_in = StandIn(agent_socket)
    env = dict(PATH="/usr/bin:/bin", HOME=home, XDG_RUNTIME_DIR=runtime, XDG_CURRENT_DESKTOP="GNOME",
               XDG_SESSION_TYPE="wayland", LANG="C.UTF-8",
               DBUS_SYSTEM_BUS_ADDRESS="unix:path=" + os.path.join(work, "system.sock"))
    log = open(os.path.join(OUTPUT, "gnome-shell.log"), "w")
    system_bus = subprocess.Popen(["dbus-daemon", "--nofork", "--config-file=" + os.path.join(work, "system.conf")],
                                  stdout=log, stderr=log)
    time.sleep(0.5)
    # The session: its bus, logind's stand-in, the shell, then the agent.
    script = ("/usr/bin/python3 %s/logind.py & sleep 1; "
              "gnome-shell --headless --wayland --no-x11 --virtual-monitor 1280x800 & "
              "sleep 1000" % work)
    session = subprocess.Popen(["dbus-run-session", "--", "sh", "-c", script], env=env, stdout=log, stderr=log,
                               start_new_session=True)
    check = Checks()
    agent = None
    try:
        with check.asserting():
            deadline = time.time() + 120
            while not os.path.exists(os.path.join(runtime, "wayland-0")):
                assert time.time() < deadline, "GNOME Shell did not start (see .cache/desktop/gnome-shell.log)"
                time.sleep(0.5)
            time.sleep(5)
            # The session bus is the shell's: read from its environment.
            shell_env = dict(env)
            for pid in os.listdir("/proc"):
                try:
                    if pid.isdigit() and open("/proc/%s/comm" % pid).read().strip() == "gnome-shell":
                        shell_env["DBUS_SESSION_BUS_ADDRESS"] = session_bus_of(pid)
                except OSError:
                    continue
            assert shell_env.get("DBUS_SESSION_BUS_ADDRESS"), "the shell's session bus is not found"
            shell_env["WAYLAND_DISPLAY"] = "wayland-0"
            agent_log = open(os.path.join(OUTPUT, "agent.log"), "w")
            agent = subprocess.Popen(
                [agent_binary, "--socket", agent_socket, "--source", "gnome", "--log-level", "debug"],
                env=shell_env, stdout=agent_log, stderr=agent_log)
            hello = stand_in.accept()
            assert hello["type"] == "hello" and hello.get("picker") is True, hello
            # The agent enables the extension; the shell loads it.
            deadline = time.time() + 60
            while "the GNOME Shell extension is enabled" not in open(os.path.join(OUTPUT, "agent.log")).read():
                assert time.time() < deadline, "the agent did not enable the extension"
                time.sleep(0.5)
            time.sleep(3)

            def shot(name):
                path = os.path.join(OUTPUT, name)
                if os.path.exists(path):
                    os.remove(path)
                subprocess.run(["/usr/bin/python3", os.path.join(work, "shoot.py"), path], env=shell_env, check=True,
                               timeout=60, stdout=log, stderr=log)
                pixels = png_pixels(path)
                print("  %s: %d selected-row pixels, %d light, %d dark" % (
                    name, pixels.count(SELECTION), pixels.count(LIGHT), pixels.count(DARK)))
                return pixels

            stand_in.send(VIEW)
            time.sleep(2)
            pixels = shot("gnome-picker-light.png")
            check(pixels.count(SELECTION) > 5000, "the selected row is on screen")
            check(pixels.count(LIGHT) > 20000, "the picker is light")
            subprocess.run(["gsettings", "set", "org.gnome.desktop.interface", "color-scheme", "prefer-dark"],
                           env=shell_env, check=True, timeout=60)
            stand_in.send(dict(VIEW, selected=2))
            time.sleep(2)
            pixels = shot("gnome-picker-dark.png")
            check(pixels.count(SELECTION) > 5000 and pixels.count(LIGHT) < 1000, "the picker follows the dark scheme")
            stand_in.send({"version": 2, "type": "picker-hide"})
            time.sleep(2)
            pixels = shot("gnome-picker-hidden.png")
            check(pixels.count(SELECTION) == 0, "PickerHidden takes it away")
            remote = subprocess.Popen(["/usr/bin/python3", os.path.join(work, "remote.py")], env=shell_env,
                                      stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True)
            assert remote.stdout.readline().strip() == "ready", "mutter's remote desktop session did not start"
            # What the extension sends, as the bus carries it: the GTK windows
            # are Wayland ones, whose fields come from the Shell's input method;
            # IBus's kind (X11 clients') must never show, not even for the few
            # milliseconds after a field loses the focus.
            monitor_path = os.path.join(OUTPUT, "gnome-fields.monitor")
            monitor = subprocess.Popen(["dbus-monitor", "--session", "type='method_call',member='FieldChanged'"],
                                       env=shell_env, stdout=open(monitor_path, "w"), stderr=log)
            time.sleep(1)
            for version in ("4", "3"):
                check_fields(version, shell_env, remote, stand_in, check)
            stop(monitor)
            kinds = re.findall(r'member=FieldChanged\n\s+string "([^"]*)"', open(monitor_path).read())
            check(kinds.count("input-method") >= 10 and "ibus" not in kinds,
                  "the Wayland windows' fields come from the Shell's input method alone (kinds sent: %s)"
                  % ", ".join("%s %d" % (kind, kinds.count(kind)) for kind in sorted(set(kinds))))
            def click():
                # In the middle of the screen, where the page has no field.
                remote.stdin.write("button 272\n")
                remote.stdin.flush()
                remote.stdout.readline()

            check_browsers("on GNOME Shell", work, "wayland", shell_env, stand_in, log, check, click)
            check_status_icon_and_notifications(shell_env, stand_in, shot, check)
            shell_log = open(os.path.join(OUTPUT, "gnome-shell.log"), errors="replace").read()
            check("vkbd-focus@vkbd.github.io/extension.js" not in shell_log, "the extension logged no error")
            agent_text = open(os.path.join(OUTPUT, "agent.log")).read()
            check("Kind regards" not in agent_text, "no row reached the agent's log")
            check.no_field_text(os.path.join(OUTPUT, "agent.log"))
    finally:
        stop(agent, session, system_bus)
        shutil.rmtree(work, ignore_errors=True)
    version = subprocess.run(["gnome-shell", "--version"], capture_output=True, text=True).stdout.strip()
    return check.summary("gnome-shell: " + version)


APPINDICATOR = "ubuntu-appindicators@ubuntu.com"
STATE = {"version": 2, "type": "event", "event": "state", "state": "running", "layout": "us", "group": 1,
         "agents": 1, "config": "/etc/vkbd/config.yaml"}


def changed(before, after, rows):
    """How many pixels differ between two screenshots in `rows` (1280 wide)."""
    return sum(1 for index in range(rows.start * 1280, rows.stop * 1280) if before[index] != after[index])


def check_status_icon_and_notifications(shell_env, stand_in, shot, check):
    """Issue 30 on GNOME Shell: the status icon in the top bar through the
    AppIndicator extension (Debian's), which owns the tray's watcher, and
    the shell's own notifications of a pause and of a failed reload."""
    current = subprocess.run(["gsettings", "get", "org.gnome.shell", "enabled-extensions"], env=shell_env,
                             capture_output=True, text=True, timeout=60).stdout.strip()
    enabled = [name.strip(" '") for name in current.strip("@as []").split(",") if name.strip(" '")]
    subprocess.run(["gsettings", "set", "org.gnome.shell", "enabled-extensions",
                    str(enabled + [APPINDICATOR])], env=shell_env, check=True, timeout=60)
    time.sleep(3)
    before = shot("gnome-before-icon.png")
    stand_in.send(STATE)  # the daemon counts the agent: its icon appears
    deadline = time.time() + 30
    items = ""
    while "/StatusNotifierItem" not in items and time.time() < deadline:
        time.sleep(1)
        items = subprocess.run(
            ["gdbus", "call", "--session", "--dest", "org.kde.StatusNotifierWatcher", "--object-path",
             "/StatusNotifierWatcher", "--method", "org.freedesktop.DBus.Properties.Get",
             "org.kde.StatusNotifierWatcher", "RegisteredStatusNotifierItems"],
            env=shell_env, capture_output=True, text=True, timeout=60).stdout
    check("/StatusNotifierItem" in items, "the AppIndicator extension's watcher has the icon: " + items.strip())
    time.sleep(2)
    icon = shot("gnome-status-icon.png")
    check(changed(before, icon, range(0, 30)) > 50, "the icon is drawn in the top bar")
    # A GNOME session starts the shell's notification service (a D-Bus
    # service of gnome-shell, which owns org.freedesktop.Notifications);
    # this headless one does not: start it as the session would.
    subprocess.run(["gdbus", "call", "--session", "--dest", "org.freedesktop.DBus", "--object-path",
                    "/org/freedesktop/DBus", "--method", "org.freedesktop.DBus.StartServiceByName",
                    "org.gnome.Shell.Notifications", "0"], env=shell_env, capture_output=True, timeout=60)
    time.sleep(2)
    stand_in.send(dict(STATE, event="paused", state="paused", by="chord"))
    time.sleep(3)
    banner = shot("gnome-notification-paused.png")
    check(changed(icon, banner, range(30, 200)) > 2000, "the shell shows the pause's notification")
    agent_text = open(os.path.join(OUTPUT, "agent.log")).read()
    check("no notification shown" not in agent_text, "the notification service answered")


if __name__ == "__main__":
    sys.exit(main())
