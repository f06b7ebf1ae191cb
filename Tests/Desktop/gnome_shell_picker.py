#!/usr/bin/python3
"""The snippet picker in a real GNOME Shell (issue 27), on this machine:
GNOME Shell headless (--headless --virtual-monitor) on a private session
bus, with a private system bus where a stand-in answers for logind (the
shell asks it at start; no systemd runs here). The real vkbd-agent enables
the real vkbd-focus extension (the form for the installed shell), and a
stand-in daemon on the agent socket speaks the agent protocol: it sends a
picker, the dark scheme is set, it sends it again, then hides it. Each step
is checked on a screenshot the shell takes (its Screenshot API, as a caller
it allows: the owner of org.gnome.Screenshot), which stays in
.cache/desktop/ to be looked at.

    gnome_shell_picker.py VKBD_AGENT EXTENSION_DIR

Exits 0 when every check passed."""

import json
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import time
import zlib

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


def main():
    agent_binary, extension = sys.argv[1], sys.argv[2]
    os.makedirs(OUTPUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="vkbd-gnome-")
    home, runtime = os.path.join(work, "home"), os.path.join(work, "runtime")
    os.makedirs(os.path.join(home, ".local/share/gnome-shell/extensions"))
    os.makedirs(runtime, mode=0o700)
    shutil.copytree(extension, os.path.join(home, ".local/share/gnome-shell/extensions", os.path.basename(extension)))
    for name, text in (("system.conf", SYSTEM_BUS % os.path.join(work, "system.sock")), ("logind.py", LOGIND),
                       ("shoot.py", SHOOT)):
        with open(os.path.join(work, name), "w") as file:
            file.write(text)
    agent_socket = os.path.join(work, "agent.sock")
    listener = socket.socket(socket.AF_UNIX)
    listener.bind(agent_socket)
    listener.listen(1)
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
    failures = []
    agent = None
    try:
        deadline = time.time() + 120
        while not os.path.exists(os.path.join(runtime, "wayland-0")):
            assert time.time() < deadline, "GNOME Shell did not start (see .cache/desktop/gnome-shell.log)"
            time.sleep(0.5)
        time.sleep(5)
        # The session bus is the shell's: read from its environment.
        shell_env = dict(env)
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    if open("/proc/%s/comm" % pid).read().strip() == "gnome-shell":
                        variables = open("/proc/%s/environ" % pid, "rb").read().split(b"\0")
                        for variable in variables:
                            if variable.startswith(b"DBUS_SESSION_BUS_ADDRESS="):
                                shell_env["DBUS_SESSION_BUS_ADDRESS"] = variable.split(b"=", 1)[1].decode()
                except OSError:
                    continue
        assert "DBUS_SESSION_BUS_ADDRESS" in shell_env, "the shell's session bus is not found"
        shell_env["WAYLAND_DISPLAY"] = "wayland-0"
        agent_log = open(os.path.join(OUTPUT, "agent.log"), "w")
        agent = subprocess.Popen([agent_binary, "--socket", agent_socket, "--source", "gnome", "--log-level", "debug"],
                                 env=shell_env, stdout=agent_log, stderr=agent_log)
        listener.settimeout(60)
        connection, _ = listener.accept()
        reader = connection.makefile("rb")
        hello = json.loads(reader.readline())
        assert hello["type"] == "hello" and hello.get("picker") is True, hello
        connection.sendall(b'{"version":2,"type":"session","active":true}\n')
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

        def check(condition, what):
            print("  %s %s" % ("ok  " if condition else "FAIL", what))
            if not condition:
                failures.append(what)

        connection.sendall((json.dumps(VIEW) + "\n").encode())
        time.sleep(2)
        pixels = shot("gnome-picker-light.png")
        check(pixels.count(SELECTION) > 5000, "the selected row is on screen")
        check(pixels.count(LIGHT) > 20000, "the picker is light")
        subprocess.run(["gsettings", "set", "org.gnome.desktop.interface", "color-scheme", "prefer-dark"],
                       env=shell_env, check=True, timeout=60)
        connection.sendall((json.dumps(dict(VIEW, selected=2)) + "\n").encode())
        time.sleep(2)
        pixels = shot("gnome-picker-dark.png")
        check(pixels.count(SELECTION) > 5000 and pixels.count(LIGHT) < 1000, "the picker follows the dark scheme")
        connection.sendall(b'{"version":2,"type":"picker-hide"}\n')
        time.sleep(2)
        pixels = shot("gnome-picker-hidden.png")
        check(pixels.count(SELECTION) == 0, "PickerHidden takes it away")
        shell_log = open(os.path.join(OUTPUT, "gnome-shell.log"), errors="replace").read()
        check("vkbd-focus@vkbd.github.io/extension.js" not in shell_log, "the extension logged no error")
        check("Kind regards" not in open(os.path.join(OUTPUT, "agent.log")).read(), "no row reached the agent's log")
    except AssertionError as error:
        failures.append(str(error))
        print("  FAIL %s" % error)
    finally:
        if agent is not None:
            agent.terminate()
        os.killpg(session.pid, 15)
        session.wait(timeout=30)
        system_bus.terminate()
        system_bus.wait(timeout=30)
        shutil.rmtree(work, ignore_errors=True)
    version = subprocess.run(["gnome-shell", "--version"], capture_output=True, text=True).stdout.strip()
    print("gnome-shell picker: %s, %s" % (version, "%d failed" % len(failures) if failures else "passed"))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
