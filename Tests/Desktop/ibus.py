#!/usr/bin/python3
"""vkbd with IBus on X11, on this machine: Xvfb, a private session bus and
ibus-daemon (its panel off: the agent needs none). The agent (--print,
--source x11) follows ibus-daemon's bus beside the accessibility bus.

A GTK 3 window (fields_app.py, GTK's IBus module) gives the focus to an
entry, a password entry, a PIN entry, a text view and a button in turn:
the role must come from IBus, the text from AT-SPI (GTK 3 keeps input
methods off in hidden entries: AT-SPI tells those). A Qt 5 window
(qt_fields_app.py, Qt's IBus module) then has its entry known as text and
its password field as a password (AT-SPI's, which wins over IBus's free
form). Then ibus-daemon exits (AT-SPI's field then) and starts again: the
agent follows it again. Last, under openbox, Firefox and Chromium show
browser_fields.html, which gives its fields the focus in turn
(desktop.check_browser says what each must be reported as).

    ibus.py VKBD_AGENT

Exits 0 when every check passed."""

import os
import shutil
import subprocess
import sys
import tempfile
import time

from desktop import TEXTS, Checks, FieldsWindow, Reports, check_browsers, describe, session_bus_of, stop

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
OUTPUT = os.path.join(REPO, ".cache", "desktop")
# The role IBus gives each GTK 3 field (free form is text) and the text
# AT-SPI reads for it. GTK 3 keeps input methods off in hidden entries:
# AT-SPI says what they are.
GTK_FIELDS = [("entry", ("text",), TEXTS["entry"]), ("password", ("password",), None),
              ("pin", ("pin", "password"), None), ("text", ("text",), "Second. And"), ("button", (None,), None)]
# Qt 5 tells IBus no purpose (free form: text) and AT-SPI no text; AT-SPI
# knows its password field, which wins.
QT_FIELDS = [("entry", ("text",), None), ("password", ("password",), None)]


def main():
    agent_binary = sys.argv[1]
    os.makedirs(OUTPUT, exist_ok=True)
    work = tempfile.mkdtemp(prefix="vkbd-ibus-")
    config = os.path.join(work, "config")
    os.makedirs(config)
    env = dict(PATH="/usr/bin:/bin", HOME=work, XDG_CONFIG_HOME=config, DISPLAY=":61", LANG="C.UTF-8",
               GTK_IM_MODULE="ibus", QT_IM_MODULE="ibus", QT_QPA_PLATFORM="xcb")
    log = open(os.path.join(OUTPUT, "ibus.log"), "w")
    check = Checks()

    xvfb = subprocess.Popen(["Xvfb", ":61", "-screen", "0", "1024x768x24", "-nolisten", "tcp"], stdout=log,
                            stderr=log)
    session = subprocess.Popen(["dbus-run-session", "--", "sleep", "1000"], env=env, stdout=subprocess.PIPE,
                               stderr=log, start_new_session=True)
    agent = None
    try:
        with check.asserting():
            time.sleep(1)
            # The session bus: dbus-run-session's child has it in its environment.
            bus = None
            deadline = time.time() + 30
            while bus is None and time.time() < deadline:
                for pid in os.listdir("/proc"):
                    try:
                        if pid.isdigit() and int(open("/proc/%s/stat" % pid).read().split()[3]) == session.pid:
                            bus = session_bus_of(pid)
                    except (OSError, ValueError, IndexError):
                        continue
                time.sleep(0.2)
            assert bus, "the private session bus did not start"
            env["DBUS_SESSION_BUS_ADDRESS"] = bus

            def start_ibus():
                subprocess.run(["ibus-daemon", "--panel=disable", "--replace", "--daemonize"], env=env, check=True,
                               timeout=60, stdout=log, stderr=log)
                deadline = time.time() + 30
                while subprocess.run(["ibus", "address"], env=env, capture_output=True, text=True,
                                     timeout=30).stdout.strip() in ("", "(null)"):
                    assert time.time() < deadline, "ibus-daemon did not start"
                    time.sleep(0.2)

            start_ibus()
            agent_log = open(os.path.join(OUTPUT, "ibus-agent.log"), "w")
            agent = subprocess.Popen([agent_binary, "--print", "--source", "x11", "--log-level", "debug"], env=env,
                                     stdout=subprocess.PIPE, stderr=agent_log, text=True)
            reports = Reports()
            reports.follow(agent.stdout)

            def run(name, argv, fields):
                app = None
                try:
                    app = FieldsWindow(name, argv, env, log)
                    window = subprocess.run(["xdotool", "search", "--sync", "--name", "vkbd fields"], env=env,
                                            capture_output=True, text=True, timeout=30).stdout.split()[0]
                    subprocess.run(["xdotool", "windowfocus", "--sync", window], env=env, timeout=30)
                    time.sleep(1)
                    for field, roles, before in fields:
                        app.command("focus " + field)
                        passed, seen = reports.expect(roles, before)
                        check(passed, "%s: %s (reports seen: %r)" % (name, describe(field, roles, before), seen))
                    return app
                except (AssertionError, BrokenPipeError, IndexError) as error:
                    check(False, "%s: %s" % (name, error))
                    if app is not None:
                        app.close()
                    return None

            gtk = run("GTK 3", ["/usr/bin/python3", os.path.join(HERE, "fields_app.py"), "3"], GTK_FIELDS)
            if gtk is not None:
                gtk.close()
            qt = run("Qt 5", ["/usr/bin/python3", os.path.join(HERE, "qt_fields_app.py")], QT_FIELDS)
            if qt is not None:
                qt.command("focus entry")
                reports.expect(("text",), None)
                subprocess.run(["ibus", "exit"], env=env, timeout=30, stdout=log, stderr=log)
                message = reports.field(10, lambda message: message.get("source") == "at-spi")
                check(message is not None and message.get("role") == "text",
                      "IBus gone: the field is AT-SPI's (%r)" % message)
                qt.close()
                start_ibus()
                time.sleep(6)  # the agent tries again every 5 s
                qt = run("Qt 5 after IBus restarted", ["/usr/bin/python3", os.path.join(HERE, "qt_fields_app.py")],
                         QT_FIELDS[:1])
                if qt is not None:
                    qt.close()
            # The browsers, under a window manager (the agent follows the active
            # window). They register on the accessibility bus only when asked
            # to: Firefox when the session's switch is on, which the agent turns
            # on as it has the focus; Chromium with its flag (desktop.browsers).
            window_manager = subprocess.Popen(["openbox", "--sm-disable"], env=env, stdout=log, stderr=log)
            try:
                check_browsers("on X11 with IBus", work, "x11", env, reports, log, check)
            finally:
                stop(window_manager)
            agent_text = open(os.path.join(OUTPUT, "ibus-agent.log")).read()
            check("switched the session's assistive technologies on" in agent_text,
                  "the agent switched the session's assistive technologies on for Firefox")
            check("following IBus's bus again" in agent_text, "the agent follows a restarted ibus-daemon")
            check.no_field_text(os.path.join(OUTPUT, "ibus-agent.log"))
    finally:
        stop(agent)
        subprocess.run(["ibus", "exit"], env=env, timeout=30, capture_output=True)
        stop(session, xvfb)
        shutil.rmtree(work, ignore_errors=True)
    version = subprocess.run(["ibus", "version"], capture_output=True, text=True).stdout.strip()
    return check.summary("ibus: " + version)


if __name__ == "__main__":
    sys.exit(main())
