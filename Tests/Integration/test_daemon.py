"""vkbd run on a real kernel: a uinput source keyboard that vkbd grabs, and
independent readers of "vkbd virtual keyboard" (python3-evdev, libxkbcommon)."""

import os
import random
import re
import signal
import subprocess
import time

from evdev import ecodes as e

import vmlib
from vmlib.daemon import PLAIN, VIRTUAL, hold_through, presses, started, tap_through, wait_grabbed
from xkb import Typist

def test_pass_through_is_exact_for_2000_random_keys():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, log_level="debug", grabbed=source.name)
        rng = random.Random(20261122)
        keys = [getattr(e, "KEY_" + c) for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZ"] + [
            e.KEY_1, e.KEY_2, e.KEY_SPACE, e.KEY_DOT, e.KEY_COMMA, e.KEY_TAB, e.KEY_LEFT, e.KEY_RIGHT,
            e.KEY_LEFTSHIFT, e.KEY_RIGHTSHIFT, e.KEY_LEFTCTRL, e.KEY_LEFTALT, e.KEY_RIGHTALT, e.KEY_LEFTMETA,
        ]
        held, sent = [], []
        while len(sent) < 2000:
            if held and (rng.random() < 0.5 or len(held) > 3):
                code = held.pop(rng.randrange(len(held)))
                source.release(code)
                sent.append((code, 0))
            else:
                code = rng.choice(keys)
                if code in held:
                    continue
                held.append(code)
                source.press(code)
                sent.append((code, 1))
            time.sleep(0.004)
        for code in reversed(held):
            source.release(code)
            sent.append((code, 0))
        reader.wait_for(lambda events: len(presses(events)) >= len(sent), timeout=120)
        time.sleep(0.5)
        assert presses(reader.events) == sent, "first difference at %d" % next(
            i for i, (a, b) in enumerate(zip(presses(reader.events), sent)) if a != b)
        assert daemon.stop(signal.SIGTERM) == 0
        log = daemon.stderr_text()
        latency = re.search(r"events=(\d+).*?max=(\d+).*?p50=(\d+).*?p99=(\d+)", log)
        print("  %d keys identical and in order; vkbd's latency: %s" % (
            len(sent), latency.group(0) if latency else "(not logged)"))


def test_aids_and_a_snippet_type_the_right_characters_on_de():
    config = """
layout:
  layout: de
matches:
  - trigger: qqg
    replace: "Grüße\\n€"
"""
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, grabbed=source.name)
        # "hallo welt  das qqg" on a German keyboard (the same keys as US for these letters).
        for character in "hallo welt  das qqg":
            source.tap(e.KEY_SPACE if character == " " else getattr(e, "KEY_" + character.upper()))
            time.sleep(0.08)
        expected = "hallo welt. Das Grüße\n€"
        typist = Typist("de")
        reader.wait_for(lambda events: Typist("de").typed(vmlib.key_values(events)) == expected, timeout=60)
        assert typist.typed(vmlib.key_values(reader.events)) == expected
        assert reader.keys_down() == set()
        daemon.stop(signal.SIGTERM)


def test_a_key_held_at_start_is_not_left_repeating():
    with vmlib.SourceKeyboard() as source:
        source.press(e.KEY_A)
        daemon, reader = started(PLAIN)
        deadline = time.time() + 60
        while "waiting for keys to be released" not in daemon.stderr_text():
            assert time.time() < deadline, daemon.stderr_text()
            time.sleep(0.2)
        time.sleep(1)  # held well past the kernel's repeat delay
        source.release(e.KEY_A)
        wait_grabbed(daemon, source.name)
        tap_through(source, reader, e.KEY_B)
        assert (e.KEY_A, 1) not in vmlib.key_values(reader.events)
        assert reader.keys_down() == set()
        daemon.stop(signal.SIGTERM)


def test_hotplugged_keyboard_is_grabbed_and_its_held_keys_released_on_removal():
    with vmlib.SourceKeyboard() as first:
        daemon, reader = started(PLAIN, grabbed=first.name)
        second = vmlib.SourceKeyboard(name="vkbd test keyboard two")
        wait_grabbed(daemon, second.name)
        second.tap(e.KEY_Q)
        second.press(e.KEY_X)
        reader.wait_for(lambda events: (e.KEY_X, 1) in presses(events), timeout=30)
        second.close()  # removed with X held
        reader.wait_for(lambda events: (e.KEY_X, 0) in presses(events), timeout=30)
        tap_through(first, reader, e.KEY_W)
        assert reader.keys_down() == set()
        daemon.stop(signal.SIGTERM)


def test_panic_chord_releases_everything_and_exits():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, grabbed=source.name)
        source.press(e.KEY_LEFTSHIFT)
        for code in (e.KEY_BACKSPACE, e.KEY_ESC, e.KEY_ENTER):
            source.press(code)
            time.sleep(0.05)
        status = daemon.wait_exit(timeout=30)
        assert status == 75, "exit status %s" % status
        assert reader.keys_down() == set()
        assert "panic chord" in daemon.stderr_text()
        for code in (e.KEY_ENTER, e.KEY_ESC, e.KEY_BACKSPACE, e.KEY_LEFTSHIFT):
            source.release(code)
        source.device().grab()  # nobody holds the grab any more
        source.device().ungrab()


def test_sigterm_with_keys_held_leaves_nothing_held():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, grabbed=source.name)
        hold_through(source, reader, e.KEY_LEFTSHIFT, e.KEY_A)
        assert daemon.stop(signal.SIGTERM) == 0
        assert reader.keys_down() == set()


def test_sighup_with_a_broken_config_keeps_typing_working():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, grabbed=source.name)
        with open(daemon.config_path, "w") as config:
            config.write("autocapitalize: maybe\n")
        daemon.process.send_signal(signal.SIGHUP)
        deadline = time.time() + 30
        while "reload failed" not in daemon.stderr_text():
            assert time.time() < deadline, daemon.stderr_text()
            time.sleep(0.2)
        assert "%s:1:17: autocapitalize must be true or false" % daemon.config_path in daemon.stderr_text()
        tap_through(source, reader, e.KEY_K)
        assert daemon.process.poll() is None
        daemon.stop(signal.SIGTERM)


def test_syn_dropped_leaves_no_key_held():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, grabbed=source.name)
        daemon.process.send_signal(signal.SIGSTOP)
        # Far more than the kernel's buffer for vkbd's fd, while it cannot read.
        for round in range(300):
            source.press(e.KEY_J)
            source.press(e.KEY_LEFTSHIFT)
            source.release(e.KEY_J)
            source.release(e.KEY_LEFTSHIFT)
        source.press(e.KEY_M)
        daemon.process.send_signal(signal.SIGCONT)
        reader.wait_for(lambda events: (e.KEY_M, 1) in presses(events), timeout=30)
        source.release(e.KEY_M)
        reader.wait_for(lambda events: (e.KEY_M, 0) in presses(events), timeout=30)
        assert reader.keys_down() == set()
        assert "the kernel dropped events; resynced held keys" in daemon.stderr_text()
        daemon.stop(signal.SIGTERM)


def test_the_i8042_keyboard_through_qmp_reaches_the_virtual_keyboard():
    daemon, reader = started(PLAIN, grabbed="AT Translated Set 2 keyboard")
    vmlib.qmp_type(["v", "k", "b", "d"])
    wanted = [(e.KEY_V, 1), (e.KEY_V, 0), (e.KEY_K, 1), (e.KEY_K, 0), (e.KEY_B, 1), (e.KEY_B, 0), (e.KEY_D, 1),
              (e.KEY_D, 0)]
    reader.wait_for(lambda events: presses(events) == wanted, timeout=60)
    assert reader.keys_down() == set()
    daemon.stop(signal.SIGTERM)


def test_without_uinput_vkbd_exits_69_and_says_how_to_load_it():
    # A private /dev without the uinput node, as on a kernel without the module.
    with open("/tmp/vkbd-empty.yaml", "w"):
        pass
    result = subprocess.run(
        ["unshare", "--mount", "sh", "-c", 'mount -t tmpfs none /dev && exec "$0" run --config /tmp/vkbd-empty.yaml',
         os.environ["VKBD_BIN"]], capture_output=True, text=True, timeout=60)
    assert result.returncode == 69, result
    assert "modprobe uinput" in result.stderr, result.stderr


def test_leds_set_on_the_virtual_keyboard_reach_the_physical_one():
    daemon, reader = started(PLAIN, grabbed="AT Translated Set 2 keyboard")
    keyboard = vmlib.i8042_keyboard()
    sysfs = os.path.realpath("/sys/class/input/%s/device" % os.path.basename(keyboard.path))
    capslock = os.path.join("/sys/class/leds", os.path.basename(sysfs) + "::capslock", "brightness")
    virtual = vmlib.wait_for_device(VIRTUAL)
    for state in (1, 0):
        virtual.set_led(e.LED_CAPSL, state)  # as a desktop does on Caps Lock
        deadline = time.time() + 30
        while int(open(capslock).read()) != state:
            assert time.time() < deadline, "%s never became %d" % (capslock, state)
            time.sleep(0.1)
    daemon.stop(signal.SIGTERM)


def test_a_mouse_click_makes_the_text_before_the_cursor_unknown():
    def typed(click):
        with vmlib.SourceKeyboard() as source:
            mouse = vmlib.SourceMouse()
            daemon, reader = started("matches: []\n", grabbed=source.name)
            for code in (e.KEY_H, e.KEY_I, e.KEY_DOT, e.KEY_SPACE):
                source.tap(code)
                time.sleep(0.08)
            if click:
                mouse.click()
                time.sleep(0.5)
            tap_through(source, reader, e.KEY_X)
            daemon.stop(signal.SIGTERM)
            mouse.close()
            return Typist("us").typed(vmlib.key_values(reader.events))

    assert typed(click=False) == "hi. X"  # a sentence start: capitalized
    assert typed(click=True) == "hi. x"  # after a click, what came before is unknown


def test_an_excluded_keyboard_is_left_alone():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN + "devices:\n  exclude: [vkbd test keyboard]\n", grabbed="AT Translated Set 2 keyboard")
        own = vmlib.Reader(source.device())
        source.tap(e.KEY_Z)
        own.wait_for(lambda events: (e.KEY_Z, 0) in presses(events), timeout=30)
        time.sleep(0.5)
        assert (e.KEY_Z, 1) not in presses(reader.events)
        listed = subprocess.run([os.environ["VKBD_BIN"], "devices"], capture_output=True, text=True).stdout
        assert any(source.name in line and line.endswith("excluded by the devices setting")
                   for line in listed.splitlines()), listed
        daemon.stop(signal.SIGTERM)


def test_a_config_others_could_edit_is_refused():
    daemon = vmlib.Daemon(["run"], config_text=PLAIN)
    daemon.wait_ready()
    daemon.stop(signal.SIGTERM)
    os.chmod(daemon.config_path, 0o666)
    refused = subprocess.run([os.environ["VKBD_BIN"], "run", "--config", daemon.config_path],
                             capture_output=True, text=True, timeout=60)
    assert refused.returncode == 78, refused
    assert "writable by its group or others: vkbd refuses files that others could edit" in refused.stderr


def test_typed_text_never_reaches_the_log():
    config = 'matches:\n  - trigger: zqx\n    replace: "opensesame"\n'
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, log_level="trace", grabbed=source.name)
        for character in "hunter two zebra zqx":
            source.tap(e.KEY_SPACE if character == " " else getattr(e, "KEY_" + character.upper()))
            time.sleep(0.05)
        reader.wait_for(lambda events: Typist("us").typed(vmlib.key_values(events)) == "hunter two zebra opensesame",
                        timeout=60)
        vmlib.qmp_type(["s", "e", "c", "r", "e", "t"])  # and through the real keyboard driver
        reader.wait_for(lambda events: Typist("us").typed(vmlib.key_values(events)).endswith("secret"), timeout=60)
        daemon.stop(signal.SIGTERM)
        log = daemon.stderr_text()
        assert log.count("\n") > 5  # trace logging did log
        for word in ("hunter", "zebra", "opensesame", "secret"):
            assert word not in log, "%r in the log" % word


def test_once_started_the_daemon_holds_no_capability_and_cannot_exec():
    daemon, reader = started(PLAIN)
    status = {}
    with open("/proc/%d/status" % daemon.process.pid) as lines:
        for line in lines:
            name, _, value = line.partition(":")
            status[name] = value.strip()
    assert status["NoNewPrivs"] == "1", status["NoNewPrivs"]
    assert status["CapEff"] == status["CapPrm"] == "0000000000000000", (status["CapEff"], status["CapPrm"])
    assert status["Seccomp"] == "2" and status["Seccomp_filters"] == "1", status["Seccomp"]
    assert "more privilege than needed" not in daemon.stderr_text()
    # A keyboard plugged in afterwards is still opened and grabbed, with no
    # capability: its node belongs to root.
    with vmlib.SourceKeyboard() as source:
        wait_grabbed(daemon, source.name)
        tap_through(source, reader, e.KEY_J)
    print("  after start: NoNewPrivs 1, CapEff %s, seccomp filter on; a keyboard plugged in later typed" %
          status["CapEff"])
    daemon.stop(signal.SIGTERM)


def test_the_loop_runs_in_real_time_and_the_threads_it_makes_do_not():
    """The loop under SCHED_FIFO 49 and RLIMIT_RTTIME; every other thread
    (a reload's loader, the typist of an expansion's bursts) under an
    ordinary policy, without capabilities, under the seccomp filter."""
    config = PLAIN.replace("matches: []", 'matches:\n  - trigger: ";l"\n    replace: "%s"' % ("lorem ipsum " * 100))
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, grabbed=source.name)
        pid = daemon.process.pid
        policy = os.sched_getscheduler(pid)
        assert policy == os.SCHED_FIFO | os.SCHED_RESET_ON_FORK, policy
        assert os.sched_getparam(pid).sched_priority == 49
        with open("/proc/%d/limits" % pid) as limits:
            bound = next(line for line in limits if line.startswith("Max realtime timeout")).split()[3:5]
        assert bound == ["5000000", "10000000"], bound
        # Sampled while reloads run and an expansion's bursts go out.
        seen = {}
        for _ in range(3):
            daemon.process.send_signal(signal.SIGHUP)
            for code in (e.KEY_SEMICOLON, e.KEY_L):
                source.tap(code)
            deadline = time.time() + 3
            while time.time() < deadline:
                for thread in os.listdir("/proc/%d/task" % pid):
                    if int(thread) == pid:
                        continue
                    try:
                        thread_policy = os.sched_getscheduler(int(thread))
                        status = dict(line.split(":\t", 1) for line in
                                      open("/proc/%d/task/%s/status" % (pid, thread)).read().splitlines())
                    except OSError:
                        continue  # it ended
                    assert thread_policy in (os.SCHED_OTHER, os.SCHED_IDLE), (thread, thread_policy)
                    assert int(status["CapEff"], 16) == 0 and status["NoNewPrivs"] == "1" and \
                        status["Seccomp"] == "2", (thread, status)
                    seen[thread] = thread_policy
        ordinary = sum(1 for policy in seen.values() if policy == os.SCHED_OTHER)
        assert ordinary >= 1, "the typist's thread was never seen: %r" % seen
        print("  the loop: SCHED_FIFO 49, reset on fork, RLIMIT_RTTIME 5 s / 10 s; %d other threads seen (%d"
              " ordinary, the rest idle), none real-time, none with a capability or without the filter" % (
                  len(seen), ordinary))
        daemon.stop(signal.SIGTERM)
