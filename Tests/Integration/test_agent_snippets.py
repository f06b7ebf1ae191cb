"""What the session agent does for snippets, on a real kernel in a sway
session: a shell variable run as the user, the user's own espanso match
files, and a long snippet pasted through the clipboard."""

import os
import shutil
import subprocess
import time

import vmlib
from vmlib.daemon import started, wait_grabbed
from vmlib.desktop import (DESKTOP, EDITOR_FILE, USER, Desktop, Process, agent_binary, as_user, desktop_with_editor,
                           type_us, wait_focus, wait_status)

# In the main boot, though they start desktop sessions: their three
# minutes even out the two lanes vm.py runs at once (each about eleven
# minutes on two cores).
GROUP = "main"


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
        daemon, reader = started(config, log_level="debug")
        wait_grabbed(daemon, source.name)
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


def expansion_of(trigger):
    result = subprocess.run([os.environ["VKBD_BIN"], "expand", trigger], capture_output=True, text=True, timeout=60)
    return result.stdout.rstrip("\n") if result.returncode == 0 else None


def test_in_sway_the_users_own_espanso_snippets_expand_and_follow_an_edit():
    """A match file in the user's ~/.config/espanso/match/, which only the
    user can read: the agent reads it as the user and sends it, the daemon
    expands it in foot; the user edits it, without root, and the next
    expansion is the new one."""
    config_home = os.path.join(DESKTOP, "config")
    match = os.path.join(config_home, "espanso", "match")
    os.makedirs(match, exist_ok=True)
    for path in (config_home, os.path.dirname(match), match):
        os.chown(path, USER, USER)
        os.chmod(path, 0o700)
    base = os.path.join(match, "base.yml")

    def write_as_user(text):
        subprocess.run(["setpriv", "--reuid", str(USER), "--regid", str(USER), "--clear-groups", "sh", "-c",
                        "cat > %s.tmp && mv %s.tmp %s" % (base, base, base)], input=text, text=True, check=True)

    write_as_user('matches:\n  - trigger: "qqme"\n    replace: "mine first"\n')
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started('session_users: ["%d"]\n' % USER)
        wait_grabbed(daemon, source.name)
        desktop = Desktop(layout="us")
        environment = desktop.client_env() + ["XDG_CONFIG_HOME=" + config_home]
        agent = Process(as_user([agent_binary(), "--log-level", "debug"], environment))
        try:
            wait_status(lambda report: any(a["active"] for a in report["focus"]["agents"]), "the agent", timeout=90)
            deadline = time.time() + 60
            while expansion_of("qqme") != "mine first":
                assert time.time() < deadline, "the user's snippet never loaded"
                time.sleep(0.2)
            assert desktop.swaymsg('[app_id="foot"] focus').returncode == 0
            wait_focus("foot")
            type_us(source, "qqme x\n")
            write_as_user('matches:\n  - trigger: "qqme"\n    replace: "mine second"\n')
            deadline = time.time() + 60
            while expansion_of("qqme") != "mine second":
                assert time.time() < deadline, "the edit never took effect"
                time.sleep(0.2)
            type_us(source, "qqme y\n")
            deadline = time.time() + 60
            while desktop.lines()[:2] != ["mine first x", "mine second y"]:
                assert time.time() < deadline, "foot received %r" % desktop.lines()
                time.sleep(0.2)
            print("  foot received %r" % desktop.lines()[:2])
            log = daemon.stderr_text() + "\n".join(agent.lines)
            assert "mine" not in log, "a snippet's text reached a log"
        finally:
            desktop.close()
            daemon.stop()
            shutil.rmtree(os.path.dirname(match))  # the later tests' desktops share the config home


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
            daemon, reader = started(base + extra + snippet)
            wait_grabbed(daemon, source.name)
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
