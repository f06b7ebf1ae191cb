"""The VM itself: uinput and the i8042 keyboard work, before vkbd is tried."""

import random
import time

from evdev import ecodes as e

import vmlib


def test_uinput_keyboard_round_trip():
    with vmlib.SourceKeyboard(name="vm self-test keyboard") as source:
        reader = vmlib.Reader(source.device())
        rng = random.Random(1)
        codes = [rng.choice([e.KEY_A, e.KEY_B, e.KEY_LEFTSHIFT, e.KEY_SPACE, e.KEY_ENTER]) for _ in range(50)]
        for code in codes:
            source.tap(code)
            time.sleep(0.01)  # a reader's buffer holds a few dozen events
        expected = [(code, value) for code in codes for value in (1, 0)]
        reader.wait_for(lambda events: len(events) >= len(expected), timeout=30)
        assert vmlib.key_values(reader.events) == expected
        assert not reader.dropped


def test_i8042_keyboard_through_qmp():
    reader = vmlib.Reader(vmlib.i8042_keyboard())
    vmlib.qmp_type(["q", "w"])
    wanted = [(e.KEY_Q, 1), (e.KEY_Q, 0), (e.KEY_W, 1), (e.KEY_W, 0)]
    reader.wait_for(lambda events: [ev for ev in vmlib.key_values(events) if ev[1] != 2] == wanted, timeout=60)
