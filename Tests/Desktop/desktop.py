"""What the desktop tests share: the text each field of their windows
(fields_app.py, qt_fields_app.py) holds, which the field reports must
say; how a test drives such a window; its checks."""

import subprocess

TEXTS = {"entry": "Grüße 😀. Thanks", "password": "hunter2", "pin": "1234", "text": "First line.\nSecond. And"}


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
