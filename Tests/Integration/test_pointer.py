"""A keyboard that is also a pointer (letter keys, motion, wheels and buttons
in one evdev node, as wireless keyboards with a touchpad have): vkbd grabs it
for its keys and passes its pointer half on through "vkbd virtual pointer",
read back here with python3-evdev frame by frame."""

import os
import random
import shutil
import signal
import subprocess
import tempfile
import time

import evdev
from evdev import ecodes as e

import vmlib
from vmlib.daemon import AIDS, PLAIN, capital_after, presses, started, tap_through, wait_grabbed

POINTER = "vkbd virtual pointer"
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
COMBINED = {e.EV_REL: [e.REL_X, e.REL_Y, e.REL_WHEEL, e.REL_WHEEL_HI_RES]}
BUTTONS = [e.BTN_LEFT, e.BTN_RIGHT]


def test_a_keyboard_that_is_also_a_pointer_keeps_its_pointer():
    source = vmlib.SourceKeyboard("vkbd test combo", keys=vmlib.KEYBOARD_KEYS + BUTTONS, other=COMBINED)
    daemon, reader = started(PLAIN)
    try:
        wait_grabbed(daemon, source.name)
        pointer = vmlib.Reader(vmlib.wait_for_device(POINTER))
        capabilities = pointer.device.capabilities()
        assert set(capabilities[e.EV_REL]) == set(COMBINED[e.EV_REL]), capabilities
        assert set(BUTTONS) <= set(capabilities[e.EV_KEY]) and e.KEY_A not in capabilities[e.EV_KEY], capabilities

        # Motion, wheel steps and clicks, each frame as a mouse sends it.
        rng = random.Random(20261124)
        sent = []
        for index in range(400):
            kind = rng.random()
            if kind < 0.8:
                # (The kernel drops a relative motion of 0 at the source.)
                frame = [(e.EV_REL, axis, rng.choice([-1, 1]) * rng.randint(1, 40)) for axis in (e.REL_X, e.REL_Y)]
            elif kind < 0.9:
                step = rng.choice([-1, 1])
                frame = [(e.EV_REL, e.REL_WHEEL, step), (e.EV_REL, e.REL_WHEEL_HI_RES, 120 * step)]
            else:
                button = rng.choice(BUTTONS)
                sent.append([(e.EV_KEY, button, 1)])
                source.frame(sent[-1])
                frame = [(e.EV_KEY, button, 0)]
            sent.append(frame)
            source.frame(frame)
            time.sleep(0.002)
        # Its keys still type, through the engine.
        tap_through(source, reader, e.KEY_A)
        got = pointer.wait_frames(len(sent))
        if got != sent:
            first = next(i for i, (a, b) in enumerate(zip(got, sent + [None] * len(got))) if a != b)
            raise AssertionError("frame %d: sent %r, got %r" % (first, sent[first:first + 3], got[first:first + 3]))
        assert not pointer.dropped
        assert (e.KEY_A, 1) in presses(reader.events) and not any(
            code in BUTTONS for code, _, _ in reader.events), "a button reached the virtual keyboard"
        moved = [sum(v for f in got for t, c, v in f if c == axis and t == e.EV_REL) for axis in (e.REL_X, e.REL_Y)]
        print("  %d frames passed exactly: motion sums %s, %d clicks" % (
            len(got), moved, sum(1 for f in got if f[0][0] == e.EV_KEY and f[0][2] == 1)))

        # Unplugged mid-click: the button goes up, then the pointer goes.
        source.frame([(e.EV_KEY, e.BTN_LEFT, 1)])
        pointer.wait_frames(len(sent) + 1)
        source.close()
        frames = pointer.wait_frames(len(sent) + 2)
        assert frames[len(sent) + 1] == [(e.EV_KEY, e.BTN_LEFT, 0)], frames[-3:]
        deadline = time.time() + 30
        while not pointer.gone:
            assert time.time() < deadline, "the virtual pointer outlived its keyboard"
            time.sleep(0.1)
    finally:
        source.close()
        daemon.stop(signal.SIGTERM)


def test_an_absolute_pointer_keeps_its_ranges_and_properties():
    """A keyboard with a touchpad that reports absolute positions: the
    virtual pointer has its axes' ranges and resolution and its
    INPUT_PROP_POINTER, and its touches and positions pass exactly."""
    axes = [(e.ABS_X, evdev.AbsInfo(value=0, min=0, max=1920, fuzz=0, flat=0, resolution=12)),
            (e.ABS_Y, evdev.AbsInfo(value=0, min=0, max=1080, fuzz=0, flat=0, resolution=12))]
    source = vmlib.SourceKeyboard("vkbd test touch keyboard", keys=vmlib.KEYBOARD_KEYS + [e.BTN_TOUCH, e.BTN_LEFT],
                                  other={e.EV_ABS: axes}, properties=[e.INPUT_PROP_POINTER])
    try:
        daemon, reader = started(PLAIN, grabbed=source.name)
        pointer = vmlib.Reader(vmlib.wait_for_device(POINTER))
        assert e.INPUT_PROP_POINTER in pointer.device.input_props(), pointer.device.input_props()
        for code, info in axes:
            got = pointer.device.absinfo(code)
            assert (got.min, got.max, got.resolution) == (info.min, info.max, info.resolution), (code, got)
        sent = [[(e.EV_KEY, e.BTN_TOUCH, 1), (e.EV_ABS, e.ABS_X, 100), (e.EV_ABS, e.ABS_Y, 200)]]
        sent += [[(e.EV_ABS, e.ABS_X, 100 + step), (e.EV_ABS, e.ABS_Y, 200 + 2 * step)] for step in range(1, 50)]
        sent += [[(e.EV_KEY, e.BTN_TOUCH, 0)]]
        for frame in sent:
            source.frame(frame)
            time.sleep(0.002)
        assert pointer.wait_frames(len(sent)) == sent
        print("  %d absolute frames passed exactly; ranges %s" % (
            len(sent), [(pointer.device.absinfo(c).min, pointer.device.absinfo(c).max) for c, _ in axes]))
        daemon.stop(signal.SIGTERM)
    finally:
        source.close()


def test_a_click_on_its_pointer_forgets_the_text():
    source = vmlib.SourceKeyboard("vkbd test combo", keys=vmlib.KEYBOARD_KEYS + BUTTONS, other=COMBINED)
    try:
        daemon, reader = started(AIDS, grabbed=source.name)
        pointer = vmlib.Reader(vmlib.wait_for_device(POINTER))

        def click():
            source.frame([(e.EV_KEY, e.BTN_LEFT, 1)])
            source.frame([(e.EV_KEY, e.BTN_LEFT, 0)])
            pointer.wait_frames(2)

        assert capital_after(source, reader, lambda: None)
        tap_through(source, reader, e.KEY_ENTER)
        # The click may have put the cursor anywhere: no capital.
        assert not capital_after(source, reader, click)
        daemon.stop(signal.SIGTERM)
    finally:
        source.close()


def test_the_virtual_pointer_is_marked_by_the_udev_rule_and_the_libinput_quirk():
    source = vmlib.SourceKeyboard("vkbd test combo", keys=vmlib.KEYBOARD_KEYS + BUTTONS, other=COMBINED)
    daemon, reader = started(PLAIN)
    rules = "/etc/udev/rules.d"
    node = None
    try:
        wait_grabbed(daemon, source.name)
        node = vmlib.wait_for_device(POINTER).path
        quirks = tempfile.mkdtemp()
        shutil.copy(os.path.join(REPO, "udev-rules", "50-vkbd.quirks"), quirks)
        listed = subprocess.run(["libinput", "quirks", "list", "--data-dir", quirks, node],
                                capture_output=True, text=True, timeout=60)
        assert "AttrPointingStickIntegration=external" in listed.stdout, listed
        subprocess.run(["mount", "-t", "tmpfs", "rules", rules], check=True)
        try:
            shutil.copy(os.path.join(REPO, "udev-rules", "70-vkbd.rules"), rules)
            tested = subprocess.run(["udevadm", "test", "--action=add", "/sys/class/input/" + os.path.basename(node)],
                                    capture_output=True, text=True, timeout=120)
            properties = tested.stdout + tested.stderr
            assert "VKBD_VIRTUAL=1" in properties and "VKBD_IGNORE=1" in properties, properties[-2000:]
        finally:
            subprocess.run(["umount", rules])
        print("  %s: %s; VKBD_VIRTUAL=1 VKBD_IGNORE=1" % (node, listed.stdout.strip()))
    finally:
        if node is not None:
            vmlib.forget_udev_data([node])
        source.close()
        daemon.stop(signal.SIGTERM)
