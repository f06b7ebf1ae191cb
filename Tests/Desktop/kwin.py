#!/usr/bin/python3
"""vkbd in a real KWin, on this machine: kwin_wayland --virtual (KDE
Plasma's compositor, headless) on a private session bus. The agent is laid
out as `make install` lays it out (bin/, share/applications/,
share/vkbd/kwin/); `vkbd-agent --setup-kwin` makes it KWin's input method
in a fresh kwinrc, KWin starts that part itself, and the agent proper
(--source kde, with a stand-in daemon on its socket) loads its KWin script.

A GTK 3 and a GTK 4 window (fields_app.py, text-input-v3) and a Qt 5
window (qt_fields_app.py, text-input-v2) give the focus to an entry, a
password entry, a PIN entry, a text view and a button in turn; the field
reports that reach the stand-in from KWin's input method must say the
role and the text before the cursor that each really has. Then the agent's input
method is killed (KWin starts it again: it must not take the focused
password field for another) and the agent restarted (it is told the
field again). Before that, Firefox and Chromium, Wayland clients, show
browser_fields.html (desktop.check_browsers).

    kwin.py VKBD_AGENT

Exits 0 when every check passed."""

import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

from desktop import (FIELDS, TEXTS, Checks, FieldsWindow, StandIn, check_browsers, describe, session_bus_of,
                     stop)

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUTPUT = os.path.join(REPO, ".cache", "desktop")
APPS = [("GTK 3", ["/usr/bin/python3", os.path.join(HERE, "fields_app.py"), "3"], dict(GDK_BACKEND="wayland")),
        ("GTK 4", ["/usr/bin/python3", os.path.join(HERE, "fields_app.py"), "4"], dict(GDK_BACKEND="wayland")),
        ("Qt 5", ["/usr/bin/python3", os.path.join(HERE, "qt_fields_app.py")], dict(QT_QPA_PLATFORM="wayland"))]


def from_kwin(message):
    """A report of KWin's input method, not of the accessibility bus."""
    return message.get("source") == "kwin"


def check_fields(name, argv, extra_env, env, stand_in, check):
    app = None
    try:
        with check.asserting(BrokenPipeError):
            app = FieldsWindow(name, argv, dict(env, **extra_env),
                               open(os.path.join(OUTPUT, "kwin-%s.log" % name.replace(" ", "")), "w"))
            time.sleep(1)
            for field, roles, before in FIELDS:
                app.command("focus " + field)
                passed, seen = stand_in.expect(roles, before, accept=from_kwin)
                check(passed, "%s: %s (reports seen: %r)" % (name, describe(field, roles, before), seen))
            app.command("quit")
    finally:
        if app is not None:
            app.close()


def input_method_pids():
    pids = []
    for pid in os.listdir("/proc"):
        try:
            if pid.isdigit() and b"--kwin-input-method" in open("/proc/%s/cmdline" % pid, "rb").read():
                pids.append(int(pid))
        except OSError:
            continue
    return pids


def main():
    agent_binary = sys.argv[1]
    os.makedirs(OUTPUT, exist_ok=True)
    # Beside the build (the same file system), not in /tmp.
    work = tempfile.mkdtemp(prefix="kwin-", dir=os.path.join(REPO, ".cache"))
    prefix, config, runtime = (os.path.join(work, name) for name in ("prefix", "config", "runtime"))
    for directory in ("bin", "share/applications", "share/vkbd/kwin"):
        os.makedirs(os.path.join(prefix, directory))
    os.makedirs(config)
    os.makedirs(runtime, mode=0o700)
    agent = os.path.join(prefix, "bin", "vkbd-agent")
    shutil.copy(agent_binary, agent)
    with open(os.path.join(REPO, "desktop/kwin/vkbd-agent-kwin.desktop.in")) as template:
        text = template.read().replace("@BINDIR@", os.path.join(prefix, "bin"))
    with open(os.path.join(prefix, "share/applications/vkbd-agent-kwin.desktop"), "w") as desktop_file:
        desktop_file.write(text)
    shutil.copy(os.path.join(REPO, "desktop/kwin/vkbd-focus.js"), os.path.join(prefix, "share/vkbd/kwin"))
    # kwin_wayland carries a file capability, which this machine's
    # containers refuse to execute: a copy has none.
    kwin = os.path.join(work, "kwin_wayland")
    shutil.copy("/usr/bin/kwin_wayland", kwin)
    env = dict(PATH="/usr/bin:/bin", HOME=work, XDG_CONFIG_HOME=config, XDG_RUNTIME_DIR=runtime,
               XDG_CURRENT_DESKTOP="KDE", XDG_SESSION_TYPE="wayland", LANG="C.UTF-8")
    check = Checks()

    # A user with another input method keeps it.
    with open(os.path.join(config, "kwinrc"), "w") as kwinrc:
        kwinrc.write("[Wayland]\nInputMethod=/usr/share/applications/org.fcitx.Fcitx5.desktop\n")
    refused = subprocess.run([agent, "--setup-kwin"], env=env, capture_output=True, text=True, timeout=60)
    check(refused.returncode == 1 and "org.fcitx.Fcitx5.desktop: it stays" in refused.stderr,
          "--setup-kwin keeps another input method (%r)" % refused.stderr.strip())
    with open(os.path.join(config, "kwinrc"), "w") as kwinrc:
        kwinrc.write("[Compositing]\nBackend=OpenGL\n\n[Wayland]\nVirtualKeyboardEnabled=false\n")
    setup = subprocess.run([agent, "--setup-kwin"], env=env, capture_output=True, text=True, timeout=60)
    kwinrc = open(os.path.join(config, "kwinrc")).read()
    check(setup.returncode == 0 and "InputMethod=%s/share/applications/vkbd-agent-kwin.desktop" % prefix in kwinrc
          and "VirtualKeyboardEnabled=true" in kwinrc and "Backend=OpenGL" in kwinrc,
          "--setup-kwin sets kwinrc's input method (%r)" % kwinrc)

    log = open(os.path.join(OUTPUT, "kwin.log"), "w")
    stand_in = StandIn(os.path.join(work, "agent.sock"))
    script = "%s --virtual --no-lockscreen --socket wayland-kwin & sleep 1000" % kwin
    session = subprocess.Popen(["dbus-run-session", "--", "sh", "-c", script], env=env, stdout=log, stderr=log,
                               start_new_session=True)
    agent_process = None
    try:
        with check.asserting():
            deadline = time.time() + 120
            while not os.path.exists(os.path.join(runtime, "wayland-kwin")) or not input_method_pids():
                assert time.time() < deadline, "KWin did not start its input method (see .cache/desktop/kwin.log)"
                time.sleep(0.5)
            check(True, "KWin starts the agent as its input method, from kwinrc")
            # The session bus is KWin's: read from its environment.
            kwin_env = dict(env, WAYLAND_DISPLAY="wayland-kwin",
                            DBUS_SESSION_BUS_ADDRESS=session_bus_of(input_method_pids()[0]))
            assert kwin_env["DBUS_SESSION_BUS_ADDRESS"], "KWin's session bus is not found"
            agent_log = open(os.path.join(OUTPUT, "kwin-agent.log"), "w")

            def start_agent():
                return subprocess.Popen([agent, "--socket", os.path.join(work, "agent.sock"), "--source", "kde",
                                         "--log-level", "debug"], env=kwin_env, stdout=agent_log, stderr=agent_log)

            agent_process = start_agent()
            hello = stand_in.accept()
            check(hello.get("fields") == "kwin+at-spi", "the agent names its field sources: %r" % hello.get("fields"))
            for name, argv, extra_env in APPS:
                check_fields(name, argv, extra_env, kwin_env, stand_in, check)
            check_browsers("on KWin", work, "wayland", kwin_env, stand_in, log, check)

            # KWin starts a crashed (killed) input method again; the new one tells
            # nothing of a field it has not seen, then the fields as before.
            app = FieldsWindow(APPS[0][0], APPS[0][1], dict(kwin_env, **APPS[0][2]), subprocess.DEVNULL)
            time.sleep(1)
            app.command("focus password")
            passed, _ = stand_in.expect(("password",), None, accept=from_kwin)
            old = input_method_pids()
            os.kill(old[0], signal.SIGKILL)
            deadline = time.time() + 30
            while not [pid for pid in input_method_pids() if pid not in old] and time.time() < deadline:
                time.sleep(0.2)
            restarted = [pid for pid in input_method_pids() if pid not in old]
            later = stand_in.field(3, from_kwin)
            check(passed and restarted and (later is None or later.get("role") == "password"),
                  "a restarted input method does not take the password field for another (%r %r %r)"
                  % (passed, restarted, later))
            app.command("focus entry")
            passed, seen = stand_in.expect(("entry",), TEXTS["entry"], accept=from_kwin)
            check(passed, "the restarted input method reports the next field (%r)" % seen)
            # The agent restarts: the input method tells it the field again.
            stop(agent_process)
            agent_process = start_agent()
            stand_in.accept()
            passed, seen = stand_in.expect(("entry",), TEXTS["entry"], accept=from_kwin)
            check(passed, "a restarted agent is told the field again (%r)" % seen)
            app.close()
            check.no_field_text(os.path.join(OUTPUT, "kwin-agent.log"))
    finally:
        stop(agent_process, session)
        shutil.rmtree(work, ignore_errors=True)
    version = subprocess.run(["dpkg-query", "-W", "-f", "${Version}", "kwin-wayland"], capture_output=True,
                             text=True).stdout.strip()
    return check.summary("kwin-wayland " + version)

if __name__ == "__main__":
    sys.exit(main())
