"""Keyboards that are not all alike: a keypad with no letters and a keyboard
set `grab: false` are read, not grabbed, and a key there that types makes
vkbd forget the text; media, system and high key codes, scan codes and a
device's own repeats pass through exactly."""

import signal
import time

from evdev import ecodes as e

import vmlib
from vmlib.daemon import AIDS, PLAIN, capital_after, presses, started, tap_through

KEYPAD_KEYS = [e.KEY_NUMLOCK, e.KEY_KPSLASH, e.KEY_KPASTERISK, e.KEY_KPMINUS, e.KEY_KPPLUS, e.KEY_KPENTER,
               e.KEY_KPDOT] + list(range(e.KEY_KP7, e.KEY_KP0 + 1))


def devices_listed():
    return vmlib.answer("devices", "devices")


def wait_listed(name, timeout=30):
    deadline = time.time() + timeout
    while True:
        for device in devices_listed():
            if device["name"] == name:
                return device
        assert time.time() < deadline, "%s not listed" % name
        time.sleep(0.2)


def is_grabbed(device):
    """Whether someone holds `device` grabbed: a grab of our own fails then."""
    try:
        device.grab()
    except OSError:
        return True
    device.ungrab()
    return False


def test_a_keypad_is_read_not_grabbed_and_its_digit_ends_the_capital():
    with vmlib.SourceKeyboard() as source, vmlib.SourceKeyboard("vkbd test keypad", keys=KEYPAD_KEYS) as keypad:
        daemon, reader = started(AIDS, grabbed=source.name)
        listed = wait_listed(keypad.name)
        assert not listed["grabbed"] and "keys but no letters" in listed["state"], listed
        assert not is_grabbed(keypad.device())
        # Without the keypad the capital is due; with a digit typed there, not.
        assert capital_after(source, reader, lambda: None)
        tap_through(source, reader, e.KEY_ENTER)
        assert not capital_after(source, reader, lambda: keypad.tap(e.KEY_KP1))
        # Num Lock there changes no text: the capital stays due.
        tap_through(source, reader, e.KEY_ENTER)
        assert capital_after(source, reader, lambda: keypad.tap(e.KEY_NUMLOCK))
        assert not any(code in KEYPAD_KEYS for code, _ in presses(reader.events)), "a keypad key went through vkbd"
        print("  %s: %s" % (keypad.name, listed["state"]))
        daemon.stop(signal.SIGTERM)


def test_a_keyboard_set_grab_false_is_read_not_grabbed():
    config = AIDS + 'devices:\n  include:\n    - device: "vkbd test read-only"\n      grab: false\n'
    with vmlib.SourceKeyboard() as source, vmlib.SourceKeyboard("vkbd test read-only") as other:
        daemon, reader = started(config, grabbed=source.name)
        listed = wait_listed(other.name)
        assert not listed["grabbed"] and "grab: false" in listed["state"], listed
        assert not is_grabbed(other.device())
        assert not capital_after(source, reader, lambda: other.tap(e.KEY_X))
        assert (e.KEY_X, 1) not in presses(reader.events), "its key went through vkbd"
        print("  %s: %s" % (other.name, listed["state"]))
        daemon.stop(signal.SIGTERM)


# Media, brightness, power and other system keys, and codes high in the
# table (the macro keys, the LCD menu keys, an unassigned code).
SYSTEM_KEYS = [e.KEY_VOLUMEUP, e.KEY_VOLUMEDOWN, e.KEY_MUTE, e.KEY_BRIGHTNESSUP, e.KEY_BRIGHTNESSDOWN, e.KEY_POWER,
               e.KEY_SLEEP, e.KEY_MICMUTE, e.KEY_FN, e.KEY_PLAYPAUSE, e.KEY_CALC, e.KEY_WLAN, e.KEY_RFKILL,
               e.KEY_ALS_TOGGLE, 0x290, 0x2bc, 0x2f0]


def test_media_system_and_high_keys_scan_codes_and_device_repeats_pass_exactly():
    keys = vmlib.KEYBOARD_KEYS + [code for code in SYSTEM_KEYS if code not in vmlib.KEYBOARD_KEYS]
    source = vmlib.SourceKeyboard("vkbd test media keyboard", keys=keys, other={e.EV_MSC: [e.MSC_SCAN]})
    try:
        daemon, reader = started(PLAIN, grabbed=source.name)
        sent = []
        for code in SYSTEM_KEYS:
            # As USB keyboards send them: the scan code, then the key, in one frame.
            # Pressed, two repeats the device made itself, released: the
            # repeats stay behind (a desktop repeats keys itself, and the
            # virtual keyboard's own kernel repeat serves the console).
            for value in (1, 2, 2, 0):
                source.frame([(e.EV_MSC, e.MSC_SCAN, 0x70000 + code), (e.EV_KEY, code, value)])
                if value != 2:
                    sent.append((code, value))
                time.sleep(0.01)
        tap_through(source, reader, e.KEY_A)
        got = [(code, value) for code, value, _ in reader.events if code != e.KEY_A]
        assert got == sent, (got[:12], sent[:12])
        assert not reader.dropped and not vmlib.wait_for_device(source.name).active_keys()
        print("  %d system keys, each with its scan code and two device repeats, passed exactly" % len(SYSTEM_KEYS))
        daemon.stop(signal.SIGTERM)
    finally:
        source.close()
