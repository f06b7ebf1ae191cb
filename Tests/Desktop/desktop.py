"""What the desktop tests share: the text each field of their windows
(fields_app.py, qt_fields_app.py) holds and what the field reports must
say of it; how a test drives such a window, hears the agent's reports
(as the daemon, or from --print) and finds a session's bus; its checks."""

import json
import queue
import socket
import subprocess
import threading
import time

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
        """Waits for a field report of one of `roles` with `before`; whether
        it came, and the reports seen on the way (source, role, text, start)."""
        seen = []
        deadline = time.time() + timeout
        while True:
            message = self.field(deadline - time.time(), accept)
            if message is None:
                return False, seen
            seen.append((message.get("source"), message.get("role"), message.get("before"),
                         message.get("start", False)))
            if matching(message, roles, before):
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


class Checks:
    """The checks of one desktop test: each printed as it is made, the
    failures counted for the summary."""

    SECRETS = ("Thanks", "hunter2", "Second")

    def __init__(self):
        self.failures = []

    def __call__(self, condition, what):
        print("  %s %s" % ("ok  " if condition else "FAIL", what))
        if not condition:
            self.failures.append(what)

    def no_field_text(self, log_path):
        """The agent's log holds none of the fields' text."""
        text = open(log_path, errors="replace").read()
        self(not any(secret in text for secret in self.SECRETS), "no field's text reached the agent's log")

    def summary(self, what):
        """Prints the result; the exit status."""
        print("%s: %s" % (what, "%d failed" % len(self.failures) if self.failures else "passed"))
        return 1 if self.failures else 0
