"""The session agent (issue 15) on a real kernel: vkbd-agent in a sway
session with foot and a GTK editor, in an X11 session (Xvfb and Openbox),
its GNOME and KDE sources with the calls their extension and script make,
and logind's seat deciding whose agent counts."""

import json
import os
import re
import shutil
import signal
import subprocess
import time

from evdev import ecodes as e

import vmlib
from vmlib.daemon import started, tap_through
from vmlib.desktop import (agent_binary, as_user, DESKTOP, Desktop, desktop_with_editor, EDITOR_FILE, FILE, Process,
                           RawAgent, started_with_editor, status, type_us, USER, wait_focus, wait_status, wait_text,
                           x11_session)

# In the boot of the tests that start a desktop session, beside the rest (vm.py).
GROUP = "desktop"
HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OTHER_USER = 1001
def focused(report, app, rule_origin):
    focus = report["focus"]
    return focus.get("app") == app and focus.get("ruleOrigin") == rule_origin


def test_in_sway_the_aids_follow_the_focus_between_foot_and_a_gtk_editor():
    config = 'layout:\n  layout: us\nsession_users: ["%d"]\n' % USER
    began = time.time()
    agent = None
    with vmlib.SourceKeyboard() as source:
        # At debug the daemon logs each focus report's app and rule (never a
        # title or text): what a failure here needs to be read.
        daemon, reader = started(config, log_level="debug", grabbed=source.name)
        desktop = desktop_with_editor()
        try:
            agent = Process(as_user([agent_binary(), "--log-level", "debug"], desktop.client_env()))
            # Counted from its connection on; its source from its hello, read a moment later.
            report = wait_status(lambda report: any(a["active"] and a.get("source") for a in report["focus"]["agents"]),
                                 "the agent", timeout=90)
            assert report["focus"]["agents"][0]["source"] == "wlr-foreign-toplevel", report["focus"]
            assert report["focus"]["agents"][0]["uid"] == USER

            assert desktop.swaymsg('[app_id="foot"] focus').returncode == 0
            report = wait_focus("foot")
            # foot's text input says it is a terminal, or the app rule does.
            assert (focused(report, "foot", "built-in: terminals") or
                    focused(report, "foot", "built-in: terminal fields")), report["focus"]
            type_us(source, "ls\nls\n")
            deadline = time.time() + 60
            while desktop.lines()[:3] != ["ls", "ls", ""]:
                assert time.time() < deadline, "foot received %r" % desktop.lines()
                time.sleep(0.2)

            assert desktop.swaymsg('[app_id="vkbd-test-editor"] focus').returncode == 0
            report = wait_focus("vkbd-test-editor")
            assert report["focus"].get("rule") is None, report["focus"]
            type_us(source, "it is  so")
            deadline = time.time() + 60
            # The input method says the text view is empty: its first letter is a capital.
            while open(EDITOR_FILE, encoding="utf-8").read() != "It is. So":
                assert time.time() < deadline, "the editor received %r" % open(EDITOR_FILE).read()
                time.sleep(0.2)

            text = subprocess.run([os.environ["VKBD_BIN"], "status"], capture_output=True, text=True).stdout
            print("  foot received %r, the GTK editor %r" % ("\n".join(desktop.lines()[:2]) + "\n",
                                                             open(EDITOR_FILE).read()))
            print("  $ vkbd status (the end)\n" + "".join("  " + line + "\n" for line in text.splitlines()[-3:]))
            log = daemon.stderr_text() + "\n".join(agent.lines)
            assert "Notes" not in log, "a window title reached a log"

            # The daemon restarts: the agent connects again by itself and
            # reports the window that has the focus.
            daemon.stop()
            restarted = time.time()
            daemon, reader = started(config, grabbed=source.name)
            wait_focus("vkbd-test-editor")
            print("  the daemon restarted: the agent was back with the focus %.1f s after it was ready"
                  % (time.time() - restarted))
            # The session ends: the agent goes with it.
            desktop.close()
            assert agent.process.wait(timeout=30) == 0, agent.lines
            assert "the Wayland compositor closed" in "\n".join(agent.lines), agent.lines
            print("  %.0f s with the desktop's start" % (time.time() - began))
        finally:
            desktop.close()
            daemon.stop()


def test_in_sway_autocorrect_fixes_the_gtk_editor_and_leaves_foot_alone():
    """Issue 29 as a user sees it: misspelled words typed into the GTK
    editor arrive corrected, the same keys reach foot unchanged; Backspace
    right after a correction gives back what was typed and the agent keeps
    the word for the user, as the user; `vkbd words remove` makes it
    corrected again. A program of the user's own (`~/.local/bin/teh`) and
    the word after it stay as typed. No typed word reaches a log."""
    config = 'layout:\n  layout: us\nsession_users: ["%d"]\nautocorrect_languages: [en_US]\n' % USER
    words = os.path.join(DESKTOP, ".local/share/vkbd/words")
    with vmlib.SourceKeyboard() as source:
        daemon, desktop = started_with_editor(config, source, [words])
        agent = None
        try:
            # No agent, no dictionary: autocorrect is off.
            assert "dictionaries loaded" not in daemon.stderr_text()
            # A script of the user's, which the agent names to the daemon.
            programs = os.path.join(DESKTOP, ".local/bin")
            os.makedirs(programs, exist_ok=True)
            with open(os.path.join(programs, "teh"), "w") as script:
                script.write("#!/bin/sh\n")
            for path in (os.path.dirname(programs), programs, os.path.join(programs, "teh")):
                os.chown(path, USER, USER)
                os.chmod(path, 0o755)
            agent = Process(as_user([agent_binary(), "--log-level", "debug"], desktop.client_env()))
            wait_status(lambda report: any(a["active"] for a in report["focus"]["agents"]), "the agent", timeout=90)
            # The agent reports a window where autocorrect applies: the
            # dictionaries load on a thread of their own (the debug build
            # under emulation takes a while); the keys never wait for them.
            deadline = time.time() + 240
            while not [line for line in daemon.stderr_text().splitlines() if "dictionaries loaded" in line]:
                assert time.time() < deadline, "no dictionary loaded:\n" + daemon.stderr_text()[-2000:]
                time.sleep(0.5)
            loaded = [line for line in daemon.stderr_text().splitlines() if "dictionaries loaded" in line][0]
            assert "languages=en_US" in loaded, loaded
            print("  " + loaded[loaded.index(": ") + 2:])

            assert desktop.swaymsg('[app_id="foot"] focus').returncode == 0
            wait_focus("foot")
            type_us(source, "i saw hte wrold\n")
            deadline = time.time() + 60
            while desktop.lines()[:1] != ["i saw hte wrold"]:
                assert time.time() < deadline, "foot received %r" % desktop.lines()
                time.sleep(0.2)

            assert desktop.swaymsg('[app_id="vkbd-test-editor"] focus').returncode == 0
            wait_focus("vkbd-test-editor")
            time.sleep(0.5)
            type_us(source, "i saw hte wrold ")
            wait_text(EDITOR_FILE, "I saw the world ")
            # Backspace right after: what was typed comes back, and the word is the user's.
            source.tap(e.KEY_BACKSPACE)
            wait_text(EDITOR_FILE, "I saw the wrold ")
            deadline = time.time() + 30
            while not (os.path.exists(words) and open(words, encoding="utf-8").read() == "wrold\n"):
                assert time.time() < deadline, "the agent kept no word in %s" % words
                time.sleep(0.2)
            info = os.stat(words)
            assert (info.st_uid, info.st_mode & 0o777) == (USER, 0o600), (info.st_uid, oct(info.st_mode))
            type_us(source, "wrold ")
            wait_text(EDITOR_FILE, "I saw the wrold wrold ")

            env = desktop.client_env()
            reads = sum("the user's learned words" in line for line in agent.lines)
            listed = subprocess.run(as_user([os.environ["VKBD_BIN"], "words"], env), capture_output=True, text=True,
                                    timeout=60)
            assert (listed.returncode, listed.stdout) == (0, "wrold\n"), listed
            removed = subprocess.run(as_user([os.environ["VKBD_BIN"], "words", "remove", "wrold"], env),
                                     capture_output=True, text=True, timeout=60)
            assert removed.returncode == 0, removed
            # The agent sees the file change and tells the daemon: corrected again.
            deadline = time.time() + 60
            while sum("the user's learned words" in line for line in agent.lines) == reads:
                assert time.time() < deadline, "the agent never read the words again"
                time.sleep(0.2)
            time.sleep(1)
            type_us(source, "wrold ")
            wait_text(EDITOR_FILE, "I saw the wrold wrold world ")
            type_us(source, "teh hte ")
            wait_text(EDITOR_FILE, "I saw the wrold wrold world teh hte ")
            print("  foot received %r, the GTK editor %r" % (desktop.lines()[0], open(EDITOR_FILE).read()))
            log = daemon.stderr_text() + "\n".join(agent.lines)
            assert "wrold" not in log and "hte" not in log, "a typed word reached a log"
        finally:
            desktop.close()
            daemon.stop()


def session_bus(desktop):
    """A session bus for the desktop's user (sway starts none): its
    process, and the client environment with its address."""
    address = "unix:path=%s/runtime/bus" % DESKTOP
    if os.path.exists(DESKTOP + "/runtime/bus"):
        os.remove(DESKTOP + "/runtime/bus")
    bus = Process(as_user(["dbus-daemon", "--session", "--nofork", "--address=" + address], desktop.client_env()))
    deadline = time.time() + 60
    while not os.path.exists(DESKTOP + "/runtime/bus"):
        assert time.time() < deadline, "the session bus never started: %s" % bus.lines
        time.sleep(0.1)
    return bus, desktop.client_env() + ["DBUS_SESSION_BUS_ADDRESS=" + address]


def shown_notifications(env):
    """What mako shows now: (summary, body) of each notification."""
    result = subprocess.run(as_user(["makoctl", "list"], env), capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result
    listed = json.loads(result.stdout)["data"][0]
    return [(item["summary"]["data"], item["body"]["data"]) for item in listed]


def wait_notification(env, condition, what, timeout=60):
    deadline = time.time() + timeout
    while True:
        shown = shown_notifications(env)
        if any(condition(summary, body) for summary, body in shown):
            return shown
        assert time.time() < deadline, "mako never showed %s; it shows %r" % (what, shown)
        time.sleep(0.3)


def events(process):
    return [json.loads(line) for line in list(process.lines) if line.startswith("{")]


def wait_event(process, condition, what, timeout=60):
    deadline = time.time() + timeout
    while True:
        found = [event for event in events(process) if condition(event)]
        if found:
            return found[-1]
        assert time.time() < deadline, "no %s; lines:\n%s" % (what, "\n".join(process.lines[-20:]))
        time.sleep(0.2)


def test_in_sway_the_daemon_shows_itself_notifications_a_status_icon_listen_and_live_reload():
    """Issue 30 as a user sees it, under sway with mako and a tray: the
    pause chord and a broken config edit reach mako as notifications, the
    status icon follows the state and its menu resumes, `vkbd listen`
    prints each change as it happens, and the daemon reloads its config
    when the file changes (in place, by an editor's rename, deleted and
    back), keeping the old one while the file does not load."""
    config = ('layout:\n  layout: us\nsession_users: ["%d"]\ntoggle_key: rightctrl+pause\n'
              'autocorrect: false\n' % USER)
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, log_level="debug", grabbed=source.name)
        desktop = Desktop(layout="us")
        agent = None
        try:
            bus, env = session_bus(desktop)
            Process(as_user(["mako"], env))
            watcher = Process(as_user(["/usr/bin/python3", os.path.join(HERE, "sni_watcher.py")], env), stdin=True)
            wait_event(watcher, lambda event: event["event"] == "watcher-ready", "watcher")
            listen = Process([os.environ["VKBD_BIN"], "listen"])
            waybar = Process([os.environ["VKBD_BIN"], "listen", "--waybar"])
            state = wait_event(listen, lambda event: event["event"] == "state", "first line")
            assert (state["state"], state["layout"], state["agents"]) == ("running", "us", 0), state
            assert json.loads(waybar.wait_line(lambda line: line.startswith("{")))["class"] == "running"

            agent = Process(as_user([agent_binary(), "--log-level", "debug"], env))
            connected = wait_event(listen, lambda event: event["event"] == "agent-connected", "agent-connected", 90)
            assert (connected["uid"], connected["agents"]) == (USER, 1), connected
            app = wait_event(listen, lambda event: event["event"] == "app" and event.get("app") == "foot", "foot's app")
            assert app.get("rule") is not None, app
            item = wait_event(watcher, lambda event: event["event"] == "item", "the status icon", 60)
            assert (item["icon"], item["id"], item["category"], item["itemIsMenu"]) == (
                "input-keyboard", "vkbd", "ApplicationStatus", True), item
            assert item["tooltip"][0] == "vkbd running", item
            menu = wait_event(watcher, lambda event: event["event"] == "menu", "the menu")
            labels = [entry.get("label") for entry in menu["items"]]
            assert labels[0] == "Pause" and "Reload the configuration" in labels, menu
            print("  the tray saw %s with the menu %s" % (item["name"], [label for label in labels if label]))

            # A hub package installed as the user: the agent sends it at once.
            hub = os.path.join("/tmp", "hub")
            subprocess.run(["/usr/bin/python3", os.path.join(REPO, "Tests/Hub/make_hub.py"), hub,
                            "http://127.0.0.1:8931"], check=True, capture_output=True)
            subprocess.run(["ip", "link", "set", "lo", "up"], check=True)  # the VM's init leaves it down
            Process(["/usr/bin/python3", "-m", "http.server", "8931", "--bind", "127.0.0.1", "--directory", hub])
            deadline = time.time() + 60
            while subprocess.run(["python3", "-c", "import socket; socket.create_connection(('127.0.0.1', 8931))"],
                                 capture_output=True).returncode != 0:
                assert time.time() < deadline, "the hub's server never started"
                time.sleep(0.5)
            installed = subprocess.run(as_user([os.environ["VKBD_BIN"], "package", "install", "basic-emojis", "--hub",
                                                "http://127.0.0.1:8931/package_index.json"], env),
                                       capture_output=True, text=True, timeout=120)
            assert installed.returncode == 0, installed
            deadline = time.time() + 60
            while True:
                listed = subprocess.run([os.environ["VKBD_BIN"], "snippets", "--json"], capture_output=True, text=True)
                origins = [snippet["origin"] for snippet in json.loads(listed.stdout)]
                if any("/match/packages/basic-emojis/package.yml" in origin for origin in origins):
                    break
                assert time.time() < deadline, "the package's snippets never reached the daemon: %s" % origins[:5]
                time.sleep(0.3)
            print("  %s; the daemon has its snippets" % installed.stdout.strip())

            # The pause chord: an event, a notification, the icon changes.
            source.press(e.KEY_RIGHTCTRL)
            source.tap(e.KEY_PAUSE)
            source.release(e.KEY_RIGHTCTRL)
            paused = wait_event(listen, lambda event: event["event"] == "paused", "paused")
            assert (paused["by"], paused["state"]) == ("chord", "paused"), paused
            shown = wait_notification(env, lambda summary, body: summary == "vkbd paused", "the pause")
            print("  mako showed %r" % (shown,))
            wait_event(watcher, lambda event: event["event"] == "item" and event["icon"] == "media-playback-pause",
                       "the paused icon")
            wait_event(waybar, lambda event: event["class"] == "paused", "waybar's paused state")

            # The menu resumes (EventGroup, as waybar clicks): no notification for it.
            watcher.process.stdin.write("group 1\n")
            watcher.process.stdin.flush()
            resumed = wait_event(listen, lambda event: event["event"] == "resumed", "resumed")
            assert resumed["by"] == "the status icon", resumed
            wait_event(watcher, lambda event: event["event"] == "menu" and event["items"][0]["label"] == "Pause",
                       "the menu's Pause again")
            # By the CLI, twice at once: one notification of the cause, the last state.
            for command in ("pause", "resume"):
                assert subprocess.run([os.environ["VKBD_BIN"], command], capture_output=True).returncode == 0
            wait_notification(env, lambda summary, body: summary == "vkbd resumed", "the resume", timeout=30)
            pauses = [summary for summary, _ in shown_notifications(env) if summary in ("vkbd paused", "vkbd resumed")]
            assert pauses == ["vkbd resumed"], pauses

            # A broken edit in place: the old config keeps running, and says why.
            path = daemon.config_path
            with open(path, "w") as file:
                file.write(config + "autocapitalize: maybe\n")
            failed = wait_event(listen, lambda event: event["event"] == "reload-failed", "reload-failed")
            problem = "%s:6:17: autocapitalize must be true or false" % path
            assert failed["by"] == "file" and failed["problems"] == [problem], failed
            wait_notification(env, lambda summary, body: summary == "vkbd: the config did not load" and problem in body,
                              "the failed reload")
            text = subprocess.run([os.environ["VKBD_BIN"], "status"], capture_output=True, text=True).stdout
            assert "the last reload failed" in text and problem in text, text
            tap_through(source, reader, e.KEY_K)
            wait_event(watcher, lambda event: event["event"] == "item" and event["status"] == "NeedsAttention",
                       "the icon's attention")

            # Saved as editors do, a new file renamed over it: it loads.
            base = status()["snippets"]  # the package's
            with open(path + ".new", "w") as file:
                file.write(config + "matches:\n  - trigger: ';vk'\n    replace: 'vkbd'\n")
            os.rename(path + ".new", path)
            reloaded = wait_event(listen, lambda event: event["event"] == "reloaded", "reloaded")
            assert reloaded["by"] == "file", reloaded
            assert status().get("reloadProblems") is None
            assert status()["snippets"] == base + 1, status()

            # Deleted: nothing changes until it is back.
            os.remove(path)
            gone = wait_event(listen, lambda event: event["event"] == "reload-failed" and
                              "the file is gone" in event["problems"][0], "the deleted config")
            assert gone["by"] == "file", gone
            assert status()["snippets"] == base + 1
            reloads = len([event for event in events(listen) if event["event"] == "reloaded"])
            with open(path, "w") as file:
                file.write(config)
            deadline = time.time() + 60
            while len([event for event in events(listen) if event["event"] == "reloaded"]) == reloads:
                assert time.time() < deadline, "the config back was not reloaded: %s" % listen.lines[-3:]
                time.sleep(0.2)
            assert status()["snippets"] == base, status()
            print("  vkbd listen printed: " + ", ".join("%s%s" % (event["event"], " by " + event["by"] if
                                                                   event.get("by") else "") for event in events(listen)))

            # The daemon goes: so do the icon and `vkbd listen`.
            daemon.stop()
            wait_event(watcher, lambda event: event["event"] == "gone", "the icon gone")
            assert listen.process.wait(timeout=30) == 69, listen.lines
            assert json.loads(waybar.wait_line(lambda line: '"stopped"' in line))["class"] == "stopped"
            log = "\n".join(agent.lines)
            assert "no notification shown" not in log, log
        finally:
            desktop.close()
            daemon.stop()


FIELDS_FILE = os.path.join(DESKTOP, "fields")


def test_in_sway_the_agent_is_the_input_method_and_follows_the_layout():
    """The agent as sway's input method: the same keys give the raw keys in a
    password entry, the aided text in an entry and a text view (the empty
    field starts with a capital), the raw keys again in an entry that speaks
    to no input method (unknown stays unknown), none in foot; sway's layout switched to
    us,de group 2 makes an expansion's ü and ß arrive on the German keys,
    with vkbd's config naming no layout and typing no code points."""
    config = ('session_users: ["%d"]\nunicode_input: none\n'
              'matches:\n  - trigger: "qqgr"\n    replace: "grüße"\n' % USER)
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, grabbed=source.name)
        fields = "/usr/bin/python3 %s %s" % (os.path.join(HERE, "fields.py"), FIELDS_FILE)
        desktop = Desktop(layout="us", programs=[fields], ready=(FILE, FIELDS_FILE))
        agent = None
        try:
            agent = Process(as_user([agent_binary(), "--log-level", "debug"], desktop.client_env()))
            wait_status(lambda report: any(a["active"] for a in report["focus"]["agents"]), "the agent", timeout=90)
            assert desktop.swaymsg('[app_id="vkbd-test-fields"] focus').returncode == 0
            report = wait_status(lambda report: report["focus"].get("role") == "password", "the password field")
            assert report["focus"]["fieldSource"] == "input-method", report["focus"]
            assert report["focus"]["ruleOrigin"] == "built-in: secret fields", report["focus"]
            type_us(source, "secret  word")
            wait_text(FIELDS_FILE + ".password", "secret  word")

            os.kill(desktop.pid_of("fields.py"), signal.SIGUSR1)
            wait_status(lambda report: report["focus"].get("role") == "entry", "the entry")
            type_us(source, "hello  there")
            wait_text(FIELDS_FILE + ".entry", "Hello. There")

            os.kill(desktop.pid_of("fields.py"), signal.SIGUSR1)
            wait_status(lambda report: report["focus"].get("role") in ("text", "entry") and
                        report["focus"].get("rule") is None, "the text view")
            time.sleep(0.5)
            type_us(source, "it is  so")
            wait_text(FIELDS_FILE + ".view", "It is. So")

            # sway switches to us,de and to its second group: vkbd follows.
            assert desktop.swaymsg('input type:keyboard xkb_layout "us,de"').returncode == 0
            assert desktop.swaymsg("input type:keyboard xkb_switch_layout 1").returncode == 0
            report = wait_status(lambda report: report.get("layoutOrigin", "").startswith("desktop (sway), group 2"),
                                 "the desktop's layout")
            assert report["layout"] == "us,de", report
            # With the layout the agent reports its locale (LANG=C.UTF-8),
            # whose Compose file the daemon reads dead keys with.
            followed = [line for line in daemon.stderr_text().splitlines()
                        if "following the desktop's layout" in line and "us,de" in line]
            assert followed and "C.UTF-8" in followed[-1], followed
            type_us(source, " qqgr")
            wait_text(FIELDS_FILE + ".view", "It is. So grüße")

            # An entry that speaks to no input method, in the window whose
            # fields the input method told: unknown, so taken as secret.
            os.kill(desktop.pid_of("fields.py"), signal.SIGUSR1)
            report = wait_status(lambda report: report["focus"].get("role") == "unknown", "the unknown field")
            assert report["focus"]["ruleOrigin"] == "built-in: secret fields", report["focus"]
            type_us(source, "it is  so")
            wait_text(FIELDS_FILE + ".plain", "it is  so")

            assert desktop.swaymsg('[app_id="foot"] focus').returncode == 0
            wait_focus("foot")
            assert desktop.swaymsg("input type:keyboard xkb_switch_layout 0").returncode == 0
            wait_status(lambda report: report.get("layoutOrigin", "").endswith("group 1"), "the first group")
            type_us(source, "ls.  x\n")
            deadline = time.time() + 60
            while desktop.lines()[:1] != ["ls.  x"]:
                assert time.time() < deadline, "foot received %r" % desktop.lines()
                time.sleep(0.2)
            text = subprocess.run([os.environ["VKBD_BIN"], "status"], capture_output=True, text=True).stdout
            print("  password %r, entry %r, view %r, plain %r, foot %r" % tuple(
                [open(FIELDS_FILE + "." + name).read() for name in ("password", "entry", "view", "plain")] +
                [desktop.lines()[0]]))
            print("  $ vkbd status\n" + "".join("  " + line + "\n" for line in text.splitlines()))
            log = daemon.stderr_text() + "\n".join(agent.lines)
            for private in ("secret", "Hello", "grüße", "Fields"):
                assert private not in log, "typed text or a title reached a log: %r" % private
        except AssertionError:
            if agent is None:
                raise
            for query in ("get_seats", "get_tree"):
                print("  swaymsg -t %s:\n%s" % (query, desktop.swaymsg("-t", query).stdout[-3000:]))
            print(open(DESKTOP + "/desktop.log").read()[-3000:])
            raise
        finally:
            desktop.close()
            daemon.stop()


# The calls the GNOME Shell extension and the KWin script made, as
# dbus-monitor recorded them on GNOME Shell 43.9 and KWin 5.27.5 (headless,
# Debian 12) while GTK windows opened, took the focus, were retitled and
# closed: [ms since the last call (at most 300), window, app, instance,
# title]. Both start with no window; GNOME reports that twice when the
# agent enables the extension, KWin reports no window before every switch,
# and the second agent's start repeats the focused window's report.
GNOME_CALLS = [
    [0, "", "", "", ""],
    [2.0, "", "", "", ""],
    [300, "2778099651", "org.example.AppOne", "org.example.AppOne", "Window One"],
    [300, "2778099652", "org.example.AppTwo", "org.example.AppTwo", "Window Two"],
    [300, "2778099651", "org.example.AppOne", "org.example.AppOne", "Window One"],
    [300, "2778099651", "org.example.AppOne", "org.example.AppOne", "Window One (retitled)"],
    [300, "2778099651", "org.example.AppOne", "org.example.AppOne", "Window One (retitled)"],
    [300, "2778099652", "org.example.AppTwo", "org.example.AppTwo", "Window Two"],
    [300, "2778099652", "org.example.AppTwo", "org.example.AppTwo", "Window Two (retitled)"],
    [300, "2778099651", "org.example.AppOne", "org.example.AppOne", "Window One (retitled)"],
    [300, "2778099653", "twin.py", "org.example.AppThree", "Window Three"],
    [300, "2778099651", "org.example.AppOne", "org.example.AppOne", "Window One (retitled)"],
    [300, "", "", "", ""],
]
KDE_CALLS = [
    [0, "", "", "", ""],
    [300, "{ea12ebe4-dc78-4438-a038-d6e3decb2770}", "org.example.AppOne", "python3.11", "Window One"],
    [300, "", "", "", ""],
    [0.3, "{426e69a3-edf4-4247-ae43-7d032c83ae13}", "org.example.AppTwo", "python3.11", "Window Two"],
    [300, "", "", "", ""],
    [0.1, "{ea12ebe4-dc78-4438-a038-d6e3decb2770}", "org.example.AppOne", "python3.11", "Window One"],
    [300, "{ea12ebe4-dc78-4438-a038-d6e3decb2770}", "org.example.AppOne", "python3.11", "Window One (retitled)"],
    [300, "{ea12ebe4-dc78-4438-a038-d6e3decb2770}", "org.example.AppOne", "python3.11", "Window One (retitled)"],
    [300, "", "", "", ""],
    [0.3, "{426e69a3-edf4-4247-ae43-7d032c83ae13}", "org.example.AppTwo", "python3.11", "Window Two"],
    [300, "{426e69a3-edf4-4247-ae43-7d032c83ae13}", "org.example.AppTwo", "python3.11", "Window Two (retitled)"],
    [300, "", "", "", ""],
    [0.0, "{ea12ebe4-dc78-4438-a038-d6e3decb2770}", "org.example.AppOne", "python3.11", "Window One (retitled)"],
    [300, "", "", "", ""],
    [1.1, "{a1155a40-598c-4b77-aca7-1adb5a7e4f18}", "twin.py", "python3.11", "Window Three"],
    [300, "", "", "", ""],
    [0.1, "{ea12ebe4-dc78-4438-a038-d6e3decb2770}", "org.example.AppOne", "python3.11", "Window One (retitled)"],
    [300, "", "", "", ""],
]
# What the daemon takes from either, through the agent: the app and the
# rule of each report (its debug log), the same from both desktops. KDE's
# report of no window before each switch does not reach it; the window
# of GTK's default program name matches the rule of its application id
# through the instance on GNOME only.
RECORDED_CONFIG = """layout:
  layout: us
session_users: ["%d"]
apps:
  - app: "^org.example.AppOne$"
    autocapitalize: false
  - app: "^org.example.AppThree$"
    snippets: false
""" % USER
SEEN = {
    "gnome": ["(none) -", "org.example.AppOne 1", "org.example.AppTwo -", "org.example.AppOne 1", "org.example.AppOne 1",
              "org.example.AppTwo -", "org.example.AppTwo -", "org.example.AppOne 1", "twin.py 2", "org.example.AppOne 1",
              "(none) -"],
    "kde": ["(none) -", "org.example.AppOne 1", "org.example.AppTwo -", "org.example.AppOne 1", "org.example.AppOne 1",
            "org.example.AppTwo -", "org.example.AppTwo -", "org.example.AppOne 1", "twin.py -", "org.example.AppOne 1",
            "(none) -"],
}


def focus_log(daemon):
    """The app and rule of each report the daemon took, from its debug log."""
    seen = []
    for line in daemon.stderr_text().splitlines():
        match = re.search(r" app=(.*) rule=(\S+) \[\w+\] focus$", line)
        if match:
            seen.append("%s %s" % match.groups())
    return seen


def test_in_sway_the_agent_reports_the_focus_while_a_form_dialog_is_open():
    """A snippet with a form: the agent opens the dialog (a stand-in for
    zenity, a GTK window that waits for its answer) as a child its loop
    watches, so that while it is open the focus moving between foot and an
    editor still reaches the daemon at once; then the answer is typed into
    foot with the keys typed after it. The agent of before ran the dialog on
    its only loop and reported nothing until it closed."""
    # The stand-in is Python and GTK: the emulated machine takes seconds to
    # show it, beyond the 2 s a dialog has by default to take the keyboard.
    config = ('session_users: ["%d"]\nexpansion:\n  variable_timeout_ms: 60000\n'
              'matches:\n  - trigger: "qqform"\n    form: "Dear [[name]]"\n' % USER)
    answer = os.path.join(DESKTOP, "dialog.answer")
    bin_directory = os.path.join(DESKTOP, "bin")
    with vmlib.SourceKeyboard() as source:
        daemon, desktop = started_with_editor(config, source, [answer])
        os.makedirs(bin_directory, exist_ok=True)
        with open(os.path.join(bin_directory, "zenity"), "w") as stand_in:
            stand_in.write('#!/bin/sh\nexec /usr/bin/python3 %s %s "$@"\n' % (os.path.join(HERE, "dialog.py"), answer))
        os.chmod(os.path.join(bin_directory, "zenity"), 0o755)
        env = [entry.replace("PATH=", "PATH=%s:" % bin_directory, 1) if entry.startswith("PATH=") else entry
               for entry in desktop.client_env()]
        Process(as_user([agent_binary(), "--log-level", "debug"], env))
        try:
            wait_status(lambda report: any(a["active"] for a in report["focus"]["agents"]), "the agent", timeout=90)
            assert desktop.swaymsg('[app_id="foot"] focus').returncode == 0
            wait_focus("foot")
            type_us(source, "qqform", gap=0.05)
            wait_focus("vkbd-test-dialog", timeout=120)
            opened = time.time()
            # The dialog is open: the focus moves, and every move is reported.
            moves = 0
            for app in ("vkbd-test-editor", "foot", "vkbd-test-editor", "foot"):
                assert desktop.swaymsg('[app_id="%s"] focus' % app).returncode == 0
                wait_focus(app, timeout=30)
                moves += 1
            assert os.path.exists("/proc/%d" % desktop.pid_of("dialog.py")), "the dialog closed early"
            print("  %d focus moves reported while the form dialog was open (%.1f s)" % (moves, time.time() - opened))
            with open(answer + ".new", "w") as file:
                file.write("Ada")
            os.rename(answer + ".new", answer)
            wait_focus("foot", timeout=60)
            time.sleep(1)
            type_us(source, " x\n", gap=0.05)
            deadline = time.time() + 60
            while desktop.lines()[:1] != ["Dear Ada x"]:
                assert time.time() < deadline, "foot received %r" % desktop.lines()
                time.sleep(0.2)
            print("  foot received %r" % desktop.lines()[0])
        finally:
            if not os.path.exists(answer):
                with open(answer, "w") as file:
                    file.write("")
            desktop.close()
            daemon.stop()


def test_the_gnome_and_kde_sources_carry_what_the_real_extension_and_script_sent():
    desktop = Desktop(layout="us")
    # The agent installed as `make install` lays it out: the KWin script in
    # PREFIX/share/vkbd/kwin beside PREFIX/bin.
    prefix = os.path.join(DESKTOP, "prefix")
    os.makedirs(os.path.join(prefix, "bin"))
    os.makedirs(os.path.join(prefix, "share", "vkbd", "kwin"))
    shutil.copy(agent_binary(), os.path.join(prefix, "bin"))
    script = os.path.join(prefix, "share", "vkbd", "kwin", "vkbd-focus.js")
    shutil.copy(os.path.join(HERE, "..", "..", "desktop", "kwin", "vkbd-focus.js"), script)
    try:
        bus = Process(as_user(["dbus-daemon", "--session", "--nofork", "--print-address=1"], desktop.client_env()))
        address = bus.wait_line(lambda line: line.startswith("unix:"))
        env = desktop.client_env() + ["DBUS_SESSION_BUS_ADDRESS=" + address]
        for name, calls, asked in [
                ("kde", KDE_CALLS, ['call /Scripting unloadScript ["vkbd-focus"]',
                                    'call /Scripting loadScript ["%s", "vkbd-focus"]' % script,
                                    "call /Scripting/Script3 run []"]),
                ("gnome", GNOME_CALLS, ['call /org/gnome/Shell EnableExtension ["vkbd-focus@vkbd.github.io"]'])]:
            daemon, reader = started(RECORDED_CONFIG, log_level="debug")
            fake = Process(as_user(["/usr/bin/python3", os.path.join(HERE, "fake_desktop.py"), name,
                                    json.dumps(calls)], env))
            fake.wait_line(lambda line: line == "ready")
            agent = Process(as_user([os.path.join(prefix, "bin", "vkbd-agent"), "--source", name], env))
            fake.wait_line(lambda line: line == "played", timeout=120)
            deadline = time.time() + 30
            while len(focus_log(daemon)) < len(SEEN[name]) and time.time() < deadline:
                time.sleep(0.2)
            time.sleep(1)
            assert focus_log(daemon) == SEEN[name], "%s: %s\nagent: %s" % (name, focus_log(daemon), agent.lines)
            assert fake.lines[1:1 + len(asked)] == asked, fake.lines
            assert "Window" not in daemon.stderr_text() + "\n".join(agent.lines), "a title reached a log"
            print("  %s: %d calls recorded on the real desktop, %d reports reached the daemon" % (
                name, len(calls), len(SEEN[name])))
            agent.close()
            fake.close()
            daemon.stop()
    finally:
        desktop.close()


def test_in_an_x11_session_the_agent_reports_wm_class_and_title():
    config = """session_users: ["%d"]
apps:
  - app: "^terminal-like$"
    autocapitalize: false
  - title: "Secret"
    enabled: false
""" % USER
    daemon, reader = started(config)
    agent = None
    try:
        env = x11_session(7, "800x600")
        agent = Process(as_user([agent_binary(), "--log-level", "debug"], env))
        wait_status(lambda report: any(a.get("source") == "x11" for a in report["focus"]["agents"]), "the agent")
        Process(as_user(["xmessage", "-name", "terminal-like", "-title", "shell", "one"], env))
        report = wait_focus("Xmessage")
        assert report["focus"]["rule"] == 1 and report["focus"]["ruleOrigin"].endswith(":3"), report["focus"]
        Process(as_user(["xmessage", "-name", "other", "-title", "Secret plan", "two"], env))
        report = wait_status(lambda report: report["focus"].get("rule") == 2, "the title rule")
        assert report["focus"]["settings"] == "enabled: false", report["focus"]
        activate = subprocess.run(as_user(["xdotool", "search", "--name", "^shell$", "windowactivate"], env),
                                  capture_output=True, text=True, timeout=60)
        assert activate.returncode == 0, activate
        wait_status(lambda report: report["focus"].get("rule") == 1, "the instance rule again")
        print("  Xvfb and Openbox: WM_CLASS instance matched rule 1, the title \"Secret plan\" rule 2, "
              "and back to rule 1 on activation")
        assert "Secret" not in daemon.stderr_text() and "Secret" not in "\n".join(agent.lines)
    finally:
        daemon.stop()


def write_seat(active_session, uid):
    """logind's state for seat0, written as logind writes it: a new file
    renamed over the old one (sd-login's monitor wakes on the rename)."""
    os.makedirs("/run/systemd/sessions", exist_ok=True)
    os.makedirs("/run/systemd/users", exist_ok=True)
    os.makedirs("/run/systemd/seats", exist_ok=True)
    with open("/run/systemd/sessions/%s" % active_session, "w") as session:
        session.write("UID=%d\nACTIVE=1\nSEAT=seat0\nTYPE=wayland\n" % uid)
    with open("/run/systemd/seats/.#seat0new", "w") as seat:
        seat.write("# This is private data. Do not parse.\nIS_SEAT0=1\nACTIVE=%s\nACTIVE_UID=%d\n" % (active_session, uid))
    os.rename("/run/systemd/seats/.#seat0new", "/run/systemd/seats/seat0")


def test_logind_decides_whose_agent_counts_and_a_seat_switch_follows_at_once():
    write_seat("c1", USER)
    try:
        # session_users is ignored where logind keeps the seat's state.
        daemon, reader = started('session_users: ["%d"]\n' % OTHER_USER)
        ours = RawAgent(USER)
        theirs = RawAgent(OTHER_USER)
        ours.wait_line(lambda line: '"type":"session"' in line)
        theirs.wait_line(lambda line: '"type":"session"' in line)
        assert ours.sessions() == [True] and theirs.sessions() == [False], (ours.lines, theirs.lines)
        report = status()["focus"]
        assert report["seat"] == "logind" and report["activeUsers"] == [USER], report

        ours.send(type="hello", agent="test", source="test")
        ours.send(type="focus", window=1, app="foot", title="the active user's terminal")
        wait_focus("foot")
        # The other user's agent, and a report forged to look like one from
        # a terminal: nothing changes, and the log says so once, without
        # the report's content.
        for window in range(2, 6):
            theirs.send(type="focus", window=window, app="firefox", title="forged title")
        time.sleep(2)
        assert status()["focus"]["app"] == "foot"
        log = daemon.stderr_text()
        assert log.count("ignoring the reports of a session agent") == 1, log
        assert "forged" not in log and "firefox" not in log

        # A seat switch: the other user's session becomes the active one.
        write_seat("c2", OTHER_USER)
        theirs.wait_line(lambda line: '"active":true' in line)
        ours.wait_line(lambda line: '"active":false' in line)
        report = wait_status(lambda report: report["focus"]["activeUsers"] == [OTHER_USER], "the switch")
        assert report["focus"].get("app") is None, "the former user's focus still counts: %s" % report["focus"]
        theirs.send(type="focus", window=7, app="kitty", title="now theirs")
        report = wait_focus("kitty")
        assert report["focus"]["ruleOrigin"] == "built-in: terminals"
        ours.send(type="focus", window=8, app="code", title="not any more")
        time.sleep(2)
        assert status()["focus"]["app"] == "kitty"
        print("  uid %d active: its agent counts, uid %d's forged reports change nothing; after the switch the "
              "other way round" % (USER, OTHER_USER))
        daemon.stop()
    finally:
        shutil.rmtree("/run/systemd", ignore_errors=True)

