"""What the session agent does for the daemon's snippets, on a real kernel
in a sway session: a shell variable run as the user, and a long snippet
pasted through the clipboard (the user's own match files:
test_user_snippets.py)."""

import os
import subprocess
import time

import vmlib
from vmlib.daemon import started
from vmlib.desktop import (EDITOR_FILE, USER, Desktop, Process, agent_binary, as_user, desktop_with_editor,
                           type_us, wait_focus, wait_status)

GROUP = "desktop"


def test_in_sway_a_shell_snippet_types_what_the_agent_ran_as_the_user():
    """A snippet with a shell variable typed into foot: the daemon, which
    runs no program, asks the agent; the agent runs the command as the
    session's user; the keys typed meanwhile arrive after the output, in
    order."""
    config = ('session_users: ["%d"]\n'
              'matches:\n  - trigger: "qqsh"\n    replace: "{{out}}"\n    vars:\n'
              '      - name: out\n        type: shell\n        params:\n'
              '          cmd: "echo \\"  uid $(id -u) \\""\n' % USER)
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, log_level="debug", grabbed=source.name)
        desktop = Desktop(layout="us")
        agent = Process(as_user([agent_binary(), "--log-level", "debug"], desktop.client_env()))
        try:
            wait_status(lambda report: any(a["active"] for a in report["focus"]["agents"]), "the agent", timeout=90)
            assert desktop.swaymsg('[app_id="foot"] focus').returncode == 0
            wait_focus("foot")
            type_us(source, "qqsh then\n", gap=0.03)
            deadline = time.time() + 60
            while desktop.lines()[:1] != ["uid %d then" % USER]:
                assert time.time() < deadline, "foot received %r" % desktop.lines()
                time.sleep(0.2)
            print("  foot received %r" % desktop.lines()[0])
            log = daemon.stderr_text() + "\n".join(agent.lines)
            assert "uid %d" % USER not in log and "qqsh" not in log, "typed text or a program's output reached a log"
        finally:
            desktop.close()
            daemon.stop()


def test_in_sway_a_long_snippet_is_pasted_whole_and_the_clipboard_comes_back():
    """A 2,000-character snippet into the GTK editor: the agent puts it in
    the clipboard, the daemon types Ctrl+V, the editor receives it whole,
    and the clipboard holds what it held before. The time from the trigger
    to the whole text in the editor, beside typing 400 characters
    (clipboard_threshold 0, bursts 50 ms apart) in the same boot: typed at
    the default pace, sway under emulation cannot drain them with an input
    method attached (the daemon writes every event), which is what pasting
    is for."""
    lines = "".join("line %04d of the long snippet, pasted whole.\n" % number for number in range(50))
    # Three clipboard programs in a row take seconds on the emulated machine:
    # the paste gets more than the 2 s it has by default.
    base = 'session_users: ["%d"]\nautocapitalize: false\ndouble_space_period: false\n' % USER
    timings = {}
    # Typed, the bursts are 50 ms apart instead of 8: sway under emulation
    # stalls for longer than two bursts take, its evdev buffer (64 events)
    # overflows and libinput drops what it missed.
    for mode, extra, length in (("pasted", "expansion:\n  variable_timeout_ms: 20000\n", 2000),
                                ("typed", "clipboard_threshold: 0\nexpansion:\n  gap_ms: 50\n", 400)):
        shown = lines[:length]
        text = shown.replace("\n", "\\n")  # as YAML writes it between double quotes
        snippet = 'matches:\n  - trigger: "qqlong"\n    replace: "%s"\n' % text
        with vmlib.SourceKeyboard() as source:
            daemon, reader = started(base + extra + snippet, grabbed=source.name)
            desktop = desktop_with_editor()
            agent = Process(as_user([agent_binary(), "--log-level", "debug"], desktop.client_env()))
            try:
                wait_status(lambda report: any(a["active"] for a in report["focus"]["agents"]), "the agent",
                            timeout=90)
                clipboard = as_user(["wl-paste", "--no-newline"], desktop.client_env())
                subprocess.run(as_user(["wl-copy", "what the user copied"], desktop.client_env()), check=True,
                               timeout=30)
                assert desktop.swaymsg('[app_id="vkbd-test-editor"] focus').returncode == 0
                wait_focus("vkbd-test-editor")
                time.sleep(0.5)
                began = time.time()
                type_us(source, "qqlong", gap=0.03)
                deadline = time.time() + 120
                while (received := open(EDITOR_FILE, encoding="utf-8").read()) != shown:
                    assert time.time() < deadline, "%s: the editor received %d characters, the first %d right" % (
                        mode, len(received), len(os.path.commonprefix([received, shown])))
                    time.sleep(0.05)
                timings[mode] = (time.time() - began, length)
                deadline = time.time() + 30
                while True:
                    held = subprocess.run(clipboard, capture_output=True, text=True, timeout=30).stdout
                    if held == "what the user copied":
                        break
                    assert time.time() < deadline, "the clipboard holds %r" % held[:60]
                    time.sleep(0.2)
                log = daemon.stderr_text() + "\n".join(agent.lines)
                assert "long snippet" not in log and "what the user copied" not in log, "text reached a log"
            finally:
                desktop.close()
                daemon.stop()
    rates = {mode: length / seconds for mode, (seconds, length) in timings.items()}
    print("  from the trigger's first key to the whole text in the GTK editor: 2000 characters pasted in %.2f s "
          "(%.0f a second), 400 typed in %.2f s (%.0f a second)" % (
              timings["pasted"][0], rates["pasted"], timings["typed"][0], rates["typed"]))
