"""The desktop tests' windows of fields (fields_app.py, qt_fields_app.py):
the text each field holds, which the field reports must say, and how a
test drives a window."""

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
