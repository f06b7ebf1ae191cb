"""Faults and load (issue 10, quick versions): the daemon killed with keys
held, a reader that stops reading, expansions while the user types, and a
storm of keyboards coming and going."""

import os
import signal
import time

from evdev import ecodes as e

import vmlib
from vmlib.daemon import PLAIN, hold_through, presses, started, tap_through
from xkb import Typist


def open_fds(pid):
    return len(os.listdir("/proc/%d/fd" % pid))


def test_sigkill_with_keys_held_then_a_restart_leaves_nothing_held():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, grabbed=source.name)
        hold_through(source, reader, e.KEY_LEFTSHIFT, e.KEY_A)
        daemon.process.kill()  # no chance to release anything
        daemon.wait_exit()
        # The kernel destroyed the virtual keyboard with the process, and with
        # it every key it held; the source is free again.
        deadline = time.time() + 30
        while any(vmlib.evdev.InputDevice(p).name == "vkbd virtual keyboard" for p in vmlib.evdev.list_devices()):
            assert time.time() < deadline, "the virtual keyboard outlived vkbd"
            time.sleep(0.1)
        source.release(e.KEY_A)
        source.release(e.KEY_LEFTSHIFT)
        daemon, reader = started(PLAIN, grabbed=source.name)
        tap_through(source, reader, e.KEY_B)
        assert presses(reader.events) == [(e.KEY_B, 1), (e.KEY_B, 0)]
        assert reader.keys_down() == set()
        daemon.stop(signal.SIGTERM)


def test_a_reader_that_stops_reading_does_not_stop_the_daemon():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, grabbed=source.name)
        stuck = vmlib.wait_for_device("vkbd virtual keyboard")  # opened, never read
        count = 300 * vmlib.SOAK
        for _ in range(count):
            source.tap(e.KEY_S)
            time.sleep(0.005)
        source.tap(e.KEY_Q)
        reader.wait_for(lambda events: (e.KEY_Q, 0) in presses(events), timeout=60 * vmlib.SOAK)
        assert not reader.dropped
        through = presses(reader.events).count((e.KEY_S, 1))
        assert through == count, through
        print("  %d keys through while another reader of the virtual keyboard read nothing: 0 lost" % count)
        stuck.close()
        daemon.stop(signal.SIGTERM)


def started_with_probe(config, source):
    """vkbd running with `config`, `source` grabbed, and the project's C
    probe recording the virtual keyboard's events (Python under TCG reads
    too slowly for expansions at full speed)."""
    daemon, reader = started(config, grabbed=source.name)
    reader.close()
    return daemon, vmlib.start_probe("vkbd virtual keyboard", realtime=True)


def typed_by(probe):
    """What the events the probe recorded type on a US layout."""
    lines = vmlib.probe_lines(probe)
    assert "dropped" not in lines
    return Typist("us").typed([tuple(int(field) for field in line.split())[:2] for line in lines if line])


def wait_until_typed(probe, deadline):
    """Until the probe's output has not grown for a second: what the daemon
    was typing is typed (the probe writes in blocks of some 200 events)."""
    size, since = -1, time.time()
    while time.time() - since < 1:
        assert time.time() < deadline, "the expansion never ended"
        now = os.fstat(probe.output.fileno()).st_size
        if now != size:
            size, since = now, time.time()
        time.sleep(0.1)


LONG_TEXT = ("pack my box with five dozen liquor jugs " * 50)[:2000]
LONG_EXPANSION = PLAIN.replace("matches: []", 'matches:\n  - trigger: ";l"\n    replace: "%s"' % LONG_TEXT)


def test_ten_long_expansions_while_the_user_types_lose_nothing():
    text = LONG_TEXT
    with vmlib.SourceKeyboard() as source:
        daemon, probe = started_with_probe(LONG_EXPANSION, source)
        expected = ""
        rounds = 10 * vmlib.SOAK
        for round in range(rounds):
            for code in (e.KEY_SEMICOLON, e.KEY_L):
                source.tap(code)
            for code in (e.KEY_X, e.KEY_Y, e.KEY_Z):  # typed while the expansion goes out
                source.tap(code)
                time.sleep(0.01)
            expected += text + "xyz"
            time.sleep(1.5)
        typed = typed_by(probe)
        assert typed == expected, "%d of %d characters right" % (
            sum(a == b for a, b in zip(typed, expected)), len(expected))
        print("  %d expansions of %d characters with 3 keys typed during each: %d characters, all in order, "
              "0 lost" % (rounds, len(text), len(expected)))
        daemon.stop(signal.SIGTERM)


def test_a_reload_during_a_long_expansion_cuts_nothing_and_takes_effect_after():
    text = LONG_TEXT
    with vmlib.SourceKeyboard() as source:
        daemon, probe = started_with_probe(LONG_EXPANSION, source)
        with open(daemon.config_path, "w") as file:
            file.write(LONG_EXPANSION.replace(text, "the new text"))
        for code in (e.KEY_SEMICOLON, e.KEY_L):
            source.tap(code)
        # The signal goes once the expansion is under way: the probe's first
        # block of output (some 200 events of the 2,000 characters' 8,000)
        # has come. A fixed sleep raced the daemon under load.
        deadline = time.time() + 60
        while os.fstat(probe.output.fileno()).st_size == 0:
            assert time.time() < deadline, "the expansion never started"
            time.sleep(0.01)
        daemon.process.send_signal(signal.SIGHUP)
        while "configuration reloaded" not in daemon.stderr_text():
            assert time.time() < deadline, daemon.stderr_text()
            time.sleep(0.1)
        # The new config is in use once the expansion is typed.
        wait_until_typed(probe, deadline)
        while vmlib.expansion_of(";l") != "the new text":
            assert time.time() < deadline, "the new config never came into use"
            time.sleep(0.1)
        for code in (e.KEY_SEMICOLON, e.KEY_L):
            source.tap(code)
        time.sleep(2)
        typed = typed_by(probe)
        assert typed == text + "the new text", "%d characters: %r…%r" % (len(typed), typed[:40], typed[-40:])
        assert "waits for the expansion" in daemon.stderr_text(), "the reload came after the expansion"
        print("  SIGHUP while a %d-character expansion was typed: all of it arrived, then the new config's"
              " expansion" % len(text))
        daemon.stop(signal.SIGTERM)


def test_a_storm_of_keyboards_coming_and_going_leaks_nothing():
    with vmlib.SourceKeyboard() as survivor:
        daemon, reader = started(PLAIN, grabbed=survivor.name)
        pid = daemon.process.pid
        fds_before, rss_before = open_fds(pid), vmlib.rss_kib(pid)
        cycles = 200 * vmlib.SOAK
        for cycle in range(cycles):
            storm = vmlib.evdev.UInput({e.EV_KEY: vmlib.KEYBOARD_KEYS}, name="vkbd storm keyboard")
            if cycle % 2:
                storm.write(e.EV_KEY, e.KEY_V, 1)  # removed mid-press
                storm.syn()
            survivor.tap(e.KEY_W)
            storm.close()
        survivor.tap(e.KEY_E)
        reader.wait_for(lambda events: (e.KEY_E, 0) in presses(events), timeout=120 * vmlib.SOAK)
        time.sleep(2)
        typed = presses(reader.events)
        assert typed.count((e.KEY_W, 1)) == cycles and typed.count((e.KEY_W, 0)) == cycles, typed.count((e.KEY_W, 1))
        assert reader.keys_down() == set()
        fds_after, rss_after = open_fds(pid), vmlib.rss_kib(pid)
        print("  %d keyboards created and destroyed while typing: %d of %d keys through, none held; "
              "fds %d -> %d, RSS %d -> %d KiB" % (cycles, cycles, cycles, fds_before, fds_after, rss_before, rss_after))
        assert fds_after <= fds_before + 2
        daemon.stop(signal.SIGTERM)



def test_after_a_jump_of_boottime_held_keys_are_read_again_from_the_kernel():
    # A suspend-like jump: CLOCK_BOOTTIME moves 30 s ahead of CLOCK_MONOTONIC
    # (Tests/Integration/boottime_jump.c, preloaded), as it does across a
    # suspend, which the VM itself cannot come back from.
    # In a folder of its own: the daemon watches its config's folder (/tmp
    # here), and a write there would wake its loop before the key event
    # this test means to wake it.
    os.makedirs("/tmp/vkbd-boottime", exist_ok=True)
    jump = "/tmp/vkbd-boottime/jump"
    with open(jump, "w") as seconds:
        seconds.write("0")
    preload = {"LD_PRELOAD": os.path.join(os.environ["VKBD_LATENCY_TOOLS"], "boottime_jump.so"),
               "VKBD_BOOTTIME_JUMP": jump}
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, environment=preload, grabbed=source.name)
        source.press(e.KEY_LEFTSHIFT)
        source.tap(e.KEY_A)
        source.press(e.KEY_X)
        reader.wait_for(lambda events: (e.KEY_X, 1) in presses(events), timeout=30)
        assert "the system slept" not in daemon.stderr_text()
        with open(jump, "w") as seconds:
            seconds.write("30")
        # After the "wake": X is let go and B tapped, with Shift still held.
        source.release(e.KEY_X)
        tap_through(source, reader, e.KEY_B)
        assert "the system slept" in daemon.stderr_text()
        # Everything went up; Shift, still down in the kernel, went down
        # again; X stayed up; B came once, from its own events.
        assert presses(reader.events) == [
            (e.KEY_LEFTSHIFT, 1), (e.KEY_A, 1), (e.KEY_A, 0), (e.KEY_X, 1),
            (e.KEY_LEFTSHIFT, 0), (e.KEY_X, 0),
            (e.KEY_LEFTSHIFT, 1), (e.KEY_B, 1), (e.KEY_B, 0)], presses(reader.events)
        source.release(e.KEY_LEFTSHIFT)
        reader.wait_for(lambda events: reader.keys_down() == set(), timeout=30)
        print("  BOOTTIME 30 s past MONOTONIC: every key released; Shift, still held, pressed again; "
              "X released after it stayed up; B typed once")
        daemon.stop(signal.SIGTERM)
