"""A real Wayland desktop: sway (layout de) with foot running `cat > FILE`,
udevd, libinput and seatd, all in the VM; vkbd between a source keyboard and
sway. FILE holds exactly what the application received."""

import json
import signal
import time

from evdev import ecodes as e

import vmlib
from vmlib.daemon import VIRTUAL, presses, started
from vmlib.desktop import Desktop

# In the main boot, though it starts a desktop session: the desktop boot is
# the longer lane (vm.py).
# The keys of a German keyboard for the characters the test types:
# (key, shift, altgr).
GERMAN = {" ": (e.KEY_SPACE, False, False), "\n": (e.KEY_ENTER, False, False), ".": (e.KEY_DOT, False, False),
          ",": (e.KEY_COMMA, False, False), "ö": (e.KEY_SEMICOLON, False, False), "ä": (e.KEY_APOSTROPHE, False, False),
          "ß": (e.KEY_MINUS, False, False), "@": (e.KEY_Q, False, True), '"': (e.KEY_2, True, False),
          "y": (e.KEY_Z, False, False), "z": (e.KEY_Y, False, False)}
for letter in "abcdefghijklmnopqrstuvwx":
    GERMAN.setdefault(letter, (getattr(e, "KEY_" + letter.upper()), False, False))
for letter in "abcdefghijklmnopqrstuvwxyz":
    key, _, _ = GERMAN[letter]
    GERMAN[letter.upper()] = (key, True, False)


def type_german(source, text, gap=0.09):
    for character in text:
        key, shift, altgr = GERMAN[character]
        if shift:
            source.press(e.KEY_LEFTSHIFT)
        if altgr:
            source.press(e.KEY_RIGHTALT)
        source.tap(key)
        if altgr:
            source.release(e.KEY_RIGHTALT)
        if shift:
            source.release(e.KEY_LEFTSHIFT)
        time.sleep(gap)


def wait_for_lines(desktop, count, timeout=60):
    deadline = time.time() + timeout
    while len(desktop.lines()) <= count:
        assert time.time() < deadline, "FILE has %r" % desktop.lines()
        time.sleep(0.2)
    return desktop.lines()[count - 1]


def test_sway_on_de_receives_exactly_what_vkbd_types():
    config = """
layout:
  layout: de
matches:
  - trigger: qqg
    replace: "Grüße\\naus München, 5 €"
"""
    began = time.time()
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, grabbed=source.name)
        desktop = Desktop()
        try:
            inputs = json.loads(desktop.swaymsg("-t", "get_inputs", "-r").stdout)
            virtual = [device for device in inputs if device["name"] == VIRTUAL]
            assert virtual and virtual[0]["type"] == "keyboard", inputs
            print("  sway sees %r as a %s; its libinput layout: %s" % (
                VIRTUAL, virtual[0]["type"], virtual[0].get("xkb_active_layout_name")))

            # 1. AltGr and Shift strokes on de.
            type_german(source, 'ö ß @ "\n')
            assert wait_for_lines(desktop, 1) == 'ö ß @ "', desktop.lines()
            # 2. A sentence end, two spaces, a lowercase word: the capital.
            type_german(source, "das ist gut.  neu\n")
            assert wait_for_lines(desktop, 2) == "Das ist gut.  Neu", desktop.lines()
            # 3. A snippet with ü, € and a newline.
            type_german(source, "qqg\n")
            assert wait_for_lines(desktop, 4) == "aus München, 5 €", desktop.lines()
            assert desktop.lines()[2] == "Grüße", desktop.lines()
            # 4. Backspace held over a long line: characters, then words.
            line = "eins zwei drei vier fuenf sechs sieben acht neun zehn elf zwoelf dreizehn vierzehn"
            type_german(source, line, gap=0.06)
            time.sleep(1)
            backspaces_before = presses(reader.events).count((e.KEY_BACKSPACE, 1))
            source.press(e.KEY_BACKSPACE)
            time.sleep(3.5)
            source.release(e.KEY_BACKSPACE)
            time.sleep(1)
            type_german(source, "\n")
            left = wait_for_lines(desktop, 5)
            shown = "E" + line[1:]  # auto-capitalized at the start of the line
            downs = [t for (code, value, t) in reader.events if code == e.KEY_BACKSPACE and value == 1]
            downs = downs[backspaces_before:]
            taps = len(downs)
            assert shown.startswith(left) and len(left) == len(shown) - taps, (left, taps)
            assert left == "" or left.endswith(" "), "not at a word boundary: %r" % left
            # Characters one at a time (50 ms apart), then words: a burst of
            # taps at one instant per word.
            bursts = [[downs[0]]]
            for down in downs[1:]:
                if down - bursts[-1][-1] < 0.01:
                    bursts[-1].append(down)
                else:
                    bursts.append([down])
            sizes = [len(burst) for burst in bursts]
            assert sizes[:20] == [1] * 20 and max(sizes[20:]) > 1, sizes
            ups = [t for (code, value, t) in reader.events if code == e.KEY_BACKSPACE and value == 0]
            held = [up - down for down, up in zip(downs, ups[backspaces_before:])]
            assert max(held) < 0.05, "Backspace held on the output for %.3f s" % max(held)
            # 5. A key held for a second: the compositor's own repeat.
            source.press(e.KEY_K)
            time.sleep(1.5)
            source.release(e.KEY_K)
            type_german(source, "\n")
            repeated = wait_for_lines(desktop, 6)
            # Capitalized at the line's start; the repeats are lowercase, as
            # after a tap of Shift.
            assert len(repeated) >= 3 and repeated[0] == "K" and set(repeated[1:]) == {"k"}, repeated
            print("  FILE:")
            for number, text in enumerate(desktop.lines()[:6], 1):
                print("    %d: %r" % (number, text))
            print("  Backspace held 3.5 s: %d characters one by one, then words of %s characters; "
                  "k held 1.5 s repeated by sway to %d; %.0f s in all" % (
                      sizes.count(1), [size for size in sizes if size > 1], len(repeated), time.time() - began))
        finally:
            desktop.close()
            daemon.stop(signal.SIGTERM)


def test_locks_set_before_vkbd_saw_a_key_third_levels_and_compose_under_sway():
    """sway turns Caps Lock and Num Lock on when it takes the virtual
    keyboard (its LEDs tell vkbd); us(dvorak) reaches its third level only
    through the keymap's Level 3 key, and compose:ralt makes right Alt the
    Compose key, with which the rest is typed."""
    config = """
layout:
  layout: us
  variant: dvorak
  options: compose:ralt
matches:
  - trigger: ";;1"
    replace: "mixed Case ¦ · © ½ ß"
"""
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, grabbed=source.name)
        desktop = Desktop(layout="us", input=("xkb_variant dvorak", "xkb_options compose:ralt",
                                              "xkb_capslock enabled", "xkb_numlock enabled"))
        try:
            # Dvorak's ; is on the Z key; Caps Lock leaves ; and 1 alone.
            for key in (e.KEY_Z, e.KEY_Z, e.KEY_1, e.KEY_ENTER):
                source.tap(key)
                time.sleep(0.09)
            # Without the LED the daemon would type with Caps Lock on:
            # "MIXED cASE".
            line = wait_for_lines(desktop, 1)
            assert line == "mixed Case ¦ · © ½ ß", desktop.lines()
            level3 = sum(1 for (code, value, _) in reader.events if code == 84 and value == 1)
            compose = sum(1 for (code, value, _) in reader.events if code == e.KEY_RIGHTALT and value == 1)
            assert level3 >= 2 and compose >= 3, (level3, compose)
            print("  FILE: %r; the Level 3 key pressed %d times, Compose %d times" % (line, level3, compose))
        finally:
            desktop.close()
            daemon.stop(signal.SIGTERM)
