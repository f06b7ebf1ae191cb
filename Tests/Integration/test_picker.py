"""The snippet picker (issue 27) on a real desktop: the daemon routes the
keys, the session agent shows the rows in a window that never takes the
focus: a layer-shell surface under sway (with the GTK editor, which keeps
its focus all along), an override-redirect window under Xvfb and Openbox.
Screenshots go to the host (.cache/vm/artifacts)."""

import os
import re
import signal
import struct
import subprocess
import time

from evdev import ecodes as e

import vmlib
from vmlib.daemon import started
from vmlib.desktop import (agent_binary, as_user, desktop_with_editor, EDITOR_FILE, Process, type_us, USER, wait_focus,
                           wait_status, wait_text, x11_session)

# In the boot of the tests that start a desktop session (vm.py).
GROUP = "desktop"
MATCHES = """matches:
  - replace: "no trigger here"
    label: "Hidden gem"
  - trigger: "qqcur"
    replace: "€"
    label: "euro sign"
  - trigger: "qqcur"
    replace: "$"
    label: "dollar sign"
"""
# The selected row's colour (PickerTheme), and the dark theme's background.
SELECTION = (0x35, 0x84, 0xE4)
DARK_BACKGROUND = (0x2B, 0x2B, 0x2B)
FRAME = "the picker's frame is on screen"


def ppm_pixels(data):
    """The pixels of a binary PPM (P6, 8 bits) as (red, green, blue) tuples."""
    fields = re.match(rb"P6\s+(\d+)\s+(\d+)\s+(\d+)\s", data)
    start = fields.end()
    pixels = data[start:]
    return [tuple(pixels[index:index + 3]) for index in range(0, len(pixels) - 2, 3)]


def xwd_pixels(data):
    """The pixels of a 24-bit TrueColor XWD dump (xwd -root), as (red,
    green, blue) tuples: a header of big-endian 32-bit fields, the colour
    map, then 32-bit pixels in the dump's byte order."""
    header = struct.unpack(">25I", data[:100])
    header_size, width, height, byte_order, bytes_per_line, colours = (header[0], header[4], header[5], header[7],
                                                                       header[12], header[19])
    start = header_size + colours * 12
    order = "<" if byte_order == 0 else ">"
    pixels = []
    for row in range(height):
        line = data[start + row * bytes_per_line:start + row * bytes_per_line + width * 4]
        for (value,) in struct.iter_unpack(order + "I", line):
            pixels.append((value >> 16 & 0xFF, value >> 8 & 0xFF, value & 0xFF))
    return pixels


def count(pixels, colour):
    return sum(1 for pixel in pixels if pixel == colour)


def chord(source):
    """Alt+Space, the picker's default shortcut; the time its Space went down."""
    source.press(e.KEY_LEFTALT)
    time.sleep(0.05)
    source.press(e.KEY_SPACE)
    down = time.monotonic()
    source.release(e.KEY_SPACE)
    source.release(e.KEY_LEFTALT)
    time.sleep(0.1)
    return down


def frames(agent):
    """The monotonic times (s) at which the agent's frames were on screen."""
    return [int(re.search(r"monotonic_us=(\d+)", line).group(1)) / 1e6 for line in list(agent.lines) if FRAME in line]


def wait_frame(agent, after, timeout=60):
    """The first frame on screen after `after`."""
    deadline = time.time() + timeout
    while True:
        shown = [moment for moment in frames(agent) if moment > after]
        if shown:
            return shown[0]
        assert time.time() < deadline, "no picker frame came"
        time.sleep(0.05)


def editor_text():
    return open(EDITOR_FILE, encoding="utf-8").read()


def test_in_sway_the_picker_shows_above_the_editor_and_inserts_while_it_keeps_the_focus():
    config = 'layout:\n  layout: us\nsession_users: ["%d"]\n' % USER + MATCHES
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, grabbed=source.name)
        desktop = desktop_with_editor()
        if os.path.exists(EDITOR_FILE + ".focus"):
            os.remove(EDITOR_FILE + ".focus")
        agent = Process(as_user([agent_binary(), "--log-level", "debug"], desktop.client_env()))

        def screenshot(name):
            png = subprocess.run(as_user(["grim", "-"], desktop.client_env()), capture_output=True, timeout=60)
            assert png.returncode == 0, png.stderr
            vmlib.save(name, png.stdout)
            ppm = subprocess.run(as_user(["grim", "-t", "ppm", "-"], desktop.client_env()), capture_output=True,
                                 timeout=60)
            return ppm_pixels(ppm.stdout)

        try:
            wait_status(lambda report: any(a["active"] and a.get("picker") for a in report["focus"]["agents"]),
                        "an agent that shows the picker", timeout=90)
            assert desktop.swaymsg('[app_id="vkbd-test-editor"] focus').returncode == 0
            wait_focus("vkbd-test-editor")
            time.sleep(1)
            focus_lost_before = open(EDITOR_FILE + ".focus").read() if os.path.exists(EDITOR_FILE + ".focus") else "0"
            type_us(source, "hi ")
            wait_text(EDITOR_FILE, "Hi ")
            assert count(screenshot("sway-before.png"), SELECTION) == 0

            # The chord opens it on every snippet; a query narrows it.
            down = chord(source)
            shown = wait_frame(agent, down)
            print("  the chord's key-down to the first rows on screen (sway's frame done): %.0f ms" %
                  ((shown - down) * 1000))
            type_us(source, "gem")
            time.sleep(2)
            pixels = screenshot("sway-picker.png")
            assert count(pixels, SELECTION) > 2000, "no selected row on screen"
            assert editor_text() == "Hi ", "a key reached the editor while the picker was open"

            # Enter inserts the selection where the editor's cursor is.
            source.tap(e.KEY_ENTER)
            wait_text(EDITOR_FILE, "Hi no trigger here")
            time.sleep(1)
            assert count(screenshot("sway-after.png"), SELECTION) == 0, "the picker stayed on screen"

            # A trigger two matches share opens it on them; Down, Enter.
            typed = time.monotonic()
            type_us(source, " qqcur")
            wait_frame(agent, typed)
            time.sleep(1)
            screenshot("sway-shared-trigger.png")
            source.tap(e.KEY_DOWN)
            time.sleep(0.3)
            source.tap(e.KEY_ENTER)
            wait_text(EDITOR_FILE, "Hi no trigger here $")

            # Escape closes it and types nothing; the keys go on to the editor.
            chord(source)
            type_us(source, "x")
            source.tap(e.KEY_ESC)
            time.sleep(0.5)
            type_us(source, " ok")
            wait_text(EDITOR_FILE, "Hi no trigger here $ ok")

            # The agent goes while the picker is open: the keys go back to
            # the editor at once.
            wait_frame(agent, chord(source))
            agent.process.send_signal(signal.SIGKILL)
            agent.process.wait(timeout=30)
            time.sleep(1)
            type_us(source, " fine")
            wait_text(EDITOR_FILE, "Hi no trigger here $ ok fine")

            focus_lost = open(EDITOR_FILE + ".focus").read() if os.path.exists(EDITOR_FILE + ".focus") else "0"
            assert focus_lost == focus_lost_before, "the editor lost the focus %s times" % focus_lost
            print("  the GTK editor received %r and never lost the focus" % editor_text())
            log = daemon.stderr_text() + "\n".join(agent.lines)
            assert "Hidden gem" not in log and "no trigger" not in log and "dollar" not in log, \
                "a snippet reached a log"
        finally:
            desktop.close()
            daemon.stop()


def test_in_an_x11_session_the_picker_is_an_override_redirect_window_in_the_dark_theme():
    config = 'session_users: ["%d"]\n' % USER + MATCHES
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, grabbed=source.name)
        agent = None
        env = []

        def picker_window():
            tree = subprocess.run(as_user(["xwininfo", "-root", "-tree"], env), capture_output=True, text=True,
                                  timeout=60).stdout
            found = re.search(r"(0x[0-9a-f]+) \"vkbd-picker\"", tree)
            if not found:
                return None
            return subprocess.run(as_user(["xwininfo", "-id", found.group(1)], env), capture_output=True, text=True,
                                  timeout=60).stdout

        try:
            env[:] = x11_session(8, "1024x768", extra_env=["GTK_THEME=Adwaita:dark"])
            agent = Process(as_user([agent_binary(), "--log-level", "debug"], env))
            wait_status(lambda report: any(a.get("source") == "x11" and a.get("picker")
                                           for a in report["focus"]["agents"]), "the agent")
            Process(as_user(["xmessage", "-name", "target", "-geometry", "400x200+500+400", "the focus"], env))
            wait_focus("Xmessage")
            down = chord(source)
            shown = wait_frame(agent, down)
            print("  the chord's key-down to the rows drawn on the X server: %.0f ms" % ((shown - down) * 1000))
            info = picker_window()
            assert info is not None, "xwininfo finds no vkbd-picker window"
            assert "Map State: IsViewable" in info and "Override Redirect State: yes" in info, info
            # Centred over the focused xmessage, and so on its monitor.
            x = int(re.search(r"Absolute upper-left X:\s+(-?\d+)", info).group(1))
            assert 400 <= x + 280 <= 1000, info
            dump = subprocess.run(as_user(["xwd", "-root", "-silent"], env), capture_output=True, timeout=60).stdout
            vmlib.save("x11-picker.xwd", dump)
            pixels = xwd_pixels(dump)
            assert count(pixels, DARK_BACKGROUND) > 20000, "the picker is not dark"
            assert count(pixels, SELECTION) > 2000, "no selected row on screen"
            source.tap(e.KEY_ESC)
            deadline = time.time() + 30
            while "IsViewable" in (picker_window() or ""):
                assert time.time() < deadline, "the picker stayed mapped after Escape"
                time.sleep(0.2)
            wait_status(lambda report: report["focus"].get("app") == "Xmessage", "the focus kept")
            print("  Xvfb and Openbox: an override-redirect vkbd-picker over the focused window, dark, "
                  "unmapped on Escape")
        finally:
            daemon.stop()
