"""The daemon as the tests start it: with a config, its virtual keyboard
up and a reader on it; the keys a test taps through it."""

import time

from evdev import ecodes as e

import vmlib

VIRTUAL = "vkbd virtual keyboard"

# Every aid and every snippet off: vkbd must be a perfect pass-through.
PLAIN = """
autocapitalize: false
double_space_period: false
backspace:
  accelerate: false
matches: []
"""


def started(config, log_level="info", environment=None, grabbed=None):
    """vkbd running with `config`, its virtual keyboard up, and a reader on
    it; with the keyboard named `grabbed` grabbed, when one is named."""
    daemon = vmlib.Daemon(["run", "--log-level", log_level], config_text=config, environment=environment)
    daemon.wait_ready(timeout=90)
    reader = vmlib.Reader(vmlib.wait_for_device(VIRTUAL))
    if grabbed is not None:
        wait_grabbed(daemon, grabbed)
    return daemon, reader


def wait_grabbed(daemon, name, timeout=60):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if any("grabbed keyboard" in line and ("device=%s " % name) in line
               for line in daemon.stderr_text().splitlines()):
            return
        time.sleep(0.2)
    raise AssertionError("%s never grabbed; log:\n%s" % (name, daemon.stderr_text()))


def tap_through(source, reader, code):
    """Taps `code` on `source` and waits for its release on the virtual keyboard."""
    source.tap(code)
    reader.wait_for(lambda events: (code, 0) in presses(events), timeout=30)


def hold_through(source, reader, *codes):
    """Presses `codes` on `source`, in order, and holds them until the last
    is down on the virtual keyboard."""
    for code in codes:
        source.press(code)
    reader.wait_for(lambda events: (codes[-1], 1) in presses(events), timeout=30)


def presses(events):
    """The (code, value) pairs of a reader's events, kernel repeats left out."""
    return [(code, value) for code, value in vmlib.key_values(events) if value != 2]


AIDS = "double_space_period: false\nmatches: []\n"  # automatic capitals on


def capital_after(source, reader, elsewhere):
    """Types "done. " on `source`, runs `elsewhere`, then n: whether the n
    went out with Shift."""
    for code in (e.KEY_D, e.KEY_O, e.KEY_N, e.KEY_E, e.KEY_DOT, e.KEY_SPACE):
        tap_through(source, reader, code)
    elsewhere()
    time.sleep(0.5)
    before = len(reader.events)
    source.tap(e.KEY_N)
    after = reader.wait_for(lambda events: (e.KEY_N, 0) in presses(events[before:]))[before:]
    return (e.KEY_LEFTSHIFT, 1) in presses(after)
