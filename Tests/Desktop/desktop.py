"""What the desktop tests share: the text each field of their windows
(fields_app.py, qt_fields_app.py) holds and what the field reports must
say of it; how a test drives such a window, hears the agent's reports
(as the daemon, or from --print) and finds a session's bus; its checks."""

import json
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import checks  # noqa: E402

TEXTS = {"entry": "Grüße 😀. Thanks", "password": "hunter2", "pin": "1234", "text": "First line.\nSecond. And"}

# What each field must be reported as: its role (a PIN is as secret as a
# password: either will do; GTK 4.8 marks no text view as multi-line), and
# the text before the cursor: none for a secret field, the whole text for
# an entry, and for a text view what the toolkit sends of it (GTK 4 a few
# words before the line, GTK 3 the paragraph), which must end the view's text.
FIELDS = [("entry", ("entry",), TEXTS["entry"]), ("password", ("password",), None),
          ("pin", ("pin", "password"), None), ("text", ("text", "entry"), "Second. And"),
          ("button", (None,), None)]
TEXT_VIEW = TEXTS["text"]


def matching(message, roles, before):
    """Whether a field report says one of `roles` and the text `before`."""
    reported = message.get("before")
    if before is None or reported is None:
        matches = reported == before
    elif before == TEXT_VIEW[-len(before):]:
        matches = reported.endswith(before) and TEXT_VIEW.endswith(reported)
    else:
        matches = reported == before and message.get("start", False)
    return message.get("role") in roles and matches


def describe(field, roles, before):
    """A check's words for a field reported as one of `roles` with `before`."""
    return "the %s is reported as %s%s" % (field, " or ".join(map(str, roles)), ", with its text" if before else "")


# The fields of browser_fields.html, in the order the page focuses them,
# naming each in its title first: the roles a report may give each (a
# browser that tells IBus no purpose makes every field text) and the text
# before the caret it must end with (the page puts the caret at the end;
# an email or number field has no caret to place: at its start).
BROWSER_PAGE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "browser_fields.html")
BROWSER_FIELDS = [
    ("text", ("text", "entry"), "Grüße 😀. Thanks"), ("password", ("password",), None),
    ("email", ("email", "text", "entry"), ""), ("url", ("url", "text", "entry"), "https://example.org"),
    ("number", ("number", "text", "entry"), ""), ("tel", ("number", "text", "entry"), "0123"),
    ("search", ("text", "entry"), "query"), ("textarea", ("text", "entry"), "First line.\nSecond. And"),
    ("editable", ("text", "entry"), "Editable. Text"), ("username", ("text", "entry"), "ada"),
    ("button", (None,), None),
]
SECRET_ROLES = ("password", "pin")


def browsers(work, display):
    """The browsers' names and command lines showing the page, each with a
    profile of its own under `work`, on `display` ("x11" or "wayland";
    Chromium's input method on Wayland is a flag), and the environment
    they add. The page names each field a third of a step before it gives
    it the focus, for a step of 700 ms."""
    page = "file://%s?step=700" % BROWSER_PAGE
    chromium = ["chromium", "--no-sandbox", "--no-first-run", "--password-store=basic", "--disable-gpu",
                "--user-data-dir=" + os.path.join(work, "chromium"), "--ozone-platform=" + display,
                "--force-renderer-accessibility", "--app=" + page]
    if display == "wayland":
        chromium[-1:-1] = ["--enable-wayland-ime", "--wayland-text-input-version=3"]
    firefox = ["firefox-esr", "--no-remote", "--new-instance", "--profile", os.path.join(work, "firefox"), page]
    os.makedirs(os.path.join(work, "firefox"), exist_ok=True)
    extra = dict(MOZ_ENABLE_WAYLAND="1") if display == "wayland" else {}
    return [("Firefox", firefox, extra), ("Chromium", chromium, extra)]


def check_browsers(where, work, display, env, reports, log, check, give_focus=lambda: None):
    """Firefox and Chromium on the page, one after the other, with `env`
    (see browsers()): each field must be reported as check_browser says.
    `give_focus` is called each second until the browser's window has the
    focus (mutter gives a new window none without a click)."""
    for name, argv, extra in browsers(work, display):
        browser = subprocess.Popen(argv, env=dict(env, **extra), stdout=log, stderr=log)
        try:
            with check.asserting():
                deadline = time.time() + 60
                while True:
                    message = reports.next(1, lambda message: message.get("type") == "focus")
                    if message is not None and "vkbd browser fields" in (message.get("title") or ""):
                        break
                    assert time.time() < deadline, "%s %s: its window did not get the focus" % (name, where)
                    give_focus()
                check_browser("%s %s" % (name, where), reports, check)
        finally:
            stop(browser)


def browser_fields(reports, timeout):
    """The field reports of each field of the page, by the window's title
    as the agent reports it ("vkbd field NAME", Firefox's with its own name
    after), until the page says it is done: {field: (reports in its time,
    the field as it stood at the end)}; None when the page did not finish."""
    fields, current, standing = {}, None, None
    deadline = time.time() + timeout
    while True:
        message = reports.next(deadline - time.time())
        if message is None:
            return None
        if message.get("type") == "focus":
            title = message.get("title") or ""
            if title.startswith("vkbd field "):
                if current is not None:
                    fields[current] = (fields[current][0], standing)
                current = title[len("vkbd field "):].split(" ")[0]
                if current == "done":
                    return fields
                fields[current] = ([], None)
        elif message.get("type") == "field":
            standing = message
            if current is not None:
                fields[current][0].append(message)


def check_browser(name, reports, check, timeout=90):
    """Checks the reports while a browser shows browser_fields.html: each
    field ends reported with one of its roles and its text; a secret one
    never with text nor as anything but secret (or no field), not even
    for a moment; no other one with a role or a text not its own (a
    secret's, or a maybe-secret, is the safe side and may pass)."""
    fields = browser_fields(reports, timeout)
    if fields is None:
        check(False, "%s: the page did not give each field the focus in time" % name)
        return
    asked = ["%s %s/%s" % (field, *[{True: "+", False: "-"}.get((standing or {}).get(aid), "?")
                                     for aid in ("capitals", "correction")])
             for field, (_, standing) in fields.items() if field in ("text", "textarea", "editable", "username")]
    print("  %s: capitals/correction asked (+), refused (-), not said (?): %s" % (name, ", ".join(asked)),
          flush=True)
    # A browser that asks for capitals in a field (Chromium on Wayland) has
    # the page's autocapitalize="off" reach the engine.
    if (fields.get("text", ([], None))[1] or {}).get("capitals"):
        username = fields.get("username", ([], None))[1] or {}
        check(username.get("capitals") is False, "%s: the username (autocapitalize=\"off\") refuses capitals (%r)" % (
            name, username))
    for field, roles, before in BROWSER_FIELDS:
        seen, standing = fields.get(field, ([], None))
        summary = [(m.get("source"), m.get("role"), m.get("before"), m.get("maybe-secret", False)) for m in seen]
        def text(message):
            # Firefox gives AT-SPI a zero-width no-break space after a character beyond 16 bits.
            return None if message.get("before") is None else message["before"].replace("\ufeff", "")
        def own(message):
            reported = text(message)
            return reported is None or (before is not None and before.endswith(reported))
        def ends_right():
            if standing is None or standing.get("role") not in roles or standing.get("maybe-secret", False):
                return False
            reported = text(standing)
            if before is None:
                return reported is None
            if before == "":
                return reported in ("", None)
            return bool(reported) and before.endswith(reported)
        ends = ends_right()
        check(ends, "%s: the %s ends reported as %s%s (reports: %r; at the end %r)" % (
            name, field, " or ".join(map(str, roles)), ", with its text" if before else "", summary, standing))
        if roles[0] in SECRET_ROLES:
            safe = all(m.get("before") is None and (m.get("role") in SECRET_ROLES + (None,) or m.get("maybe-secret"))
                       for m in seen)
            check(safe, "%s: the %s is never reported as anything but secret, never with text%s" % (
                name, field, "" if safe else " (reports: %r)" % summary))
        else:
            safe = all(own(m) and (m.get("role") in roles + SECRET_ROLES + (None,) or m.get("maybe-secret"))
                       for m in seen)
            check(safe, "%s: the %s is never reported with another field's role or text%s" % (
                name, field, "" if safe else " (reports: %r)" % summary))


def stop(*processes):
    """Ends each process a test started (None: one it did not get to) and
    waits for it: a session (a process that leads its own group) with
    every process in it."""
    for process in processes:
        if process is None:
            continue
        try:
            leads_group = os.getpgid(process.pid) == process.pid
        except ProcessLookupError:
            leads_group = False
        if leads_group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.terminate()
        process.wait(timeout=30)


def session_bus_of(pid):
    """The session bus address in the environment of process `pid`; None
    when it has none or is gone."""
    try:
        for variable in open("/proc/%s/environ" % pid, "rb").read().split(b"\0"):
            if variable.startswith(b"DBUS_SESSION_BUS_ADDRESS="):
                return variable.split(b"=", 1)[1].decode()
    except OSError:
        pass
    return None


class Reports:
    """The agent's reports as they come, one JSON object a line of `lines`
    (read on a thread of its own)."""

    def __init__(self):
        self.messages = queue.Queue()

    def follow(self, lines):
        threading.Thread(target=lambda: [self.messages.put(json.loads(line)) for line in lines], daemon=True).start()

    def next(self, timeout, accept=lambda message: True):
        """The next report that `accept` takes (it sees every one); None
        after `timeout` seconds."""
        deadline = time.time() + timeout
        while True:
            try:
                message = self.messages.get(timeout=max(0.01, deadline - time.time()))
            except queue.Empty:
                return None
            if accept(message):
                return message

    def field(self, timeout, accept=lambda message: True):
        """The next field report that `accept` takes; None after `timeout` seconds."""
        return self.next(timeout, lambda message: message.get("type") == "field" and accept(message))

    def expect(self, roles, before, timeout=10, accept=lambda message: True):
        """Waits for a field report that `accept` takes of one of `roles`
        with `before`; whether it came, and every report seen on the way
        (source, role, text, start)."""
        seen = []
        deadline = time.time() + timeout
        while True:
            message = self.field(deadline - time.time())
            if message is None:
                return False, seen
            seen.append((message.get("source"), message.get("role"), message.get("before"),
                         message.get("start", False)))
            if accept(message) and matching(message, roles, before):
                return True, seen


class StandIn(Reports):
    """The daemon's side of the agent socket: it takes the hello, says the
    session counts, then hears every report."""

    def __init__(self, path):
        super().__init__()
        self.listener = socket.socket(socket.AF_UNIX)
        self.listener.bind(path)
        self.listener.listen(1)
        self.listener.settimeout(60)
        self.connection = None

    def accept(self):
        """Waits for the agent; its hello."""
        self.connection, _ = self.listener.accept()
        reader = self.connection.makefile("rb")
        hello = json.loads(reader.readline())
        self.send({"version": 2, "type": "session", "active": True})
        self.follow(reader)
        return hello

    def send(self, message):
        self.connection.sendall((json.dumps(message) + "\n").encode())


class FieldsWindow:
    """One of those windows, driven through its standard input."""

    def __init__(self, name, argv, env, log):
        self.name = name
        self.process = subprocess.Popen(argv, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log,
                                        text=True)
        assert self.process.stdout.readline().strip() == "ready", "the %s window did not start" % name

    def command(self, line):
        """Sends a command and waits for its "done"."""
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()
        assert line == "quit" or self.process.stdout.readline().strip() == "done", \
            "the %s window did not answer" % self.name

    def close(self):
        self.process.kill()
        self.process.wait()


class Checks(checks.Checks):
    """The checks of one desktop test; and that the agent's log holds no
    field's text."""

    SECRETS = ("Thanks", "hunter2", "Second")

    def no_field_text(self, log_path):
        """The agent's log holds none of the fields' text."""
        text = open(log_path, errors="replace").read()
        self(not any(secret in text for secret in self.SECRETS), "no field's text reached the agent's log")
