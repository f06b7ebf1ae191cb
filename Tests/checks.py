"""The one way the Python suites check (Tests/Desktop, Tests/Hub and the
VM's harness): each check is printed as it is made, `  ok   what` or
`  FAIL what`, the failures are counted, and the suite ends with one line
and an exit status. A check that is a function of asserts (the VM's
tests) is made with `run`."""

import contextlib
import time
import traceback


class Checks:
    def __init__(self):
        self.passed = 0
        self.failures = []

    def __call__(self, condition, what):
        """Prints the check `what`, passed if `condition`; returns it."""
        print("  %s %s" % ("ok  " if condition else "FAIL", what), flush=True)
        if condition:
            self.passed += 1
        else:
            self.failures.append(what)
        return condition

    @contextlib.contextmanager
    def asserting(self, *errors):
        """A block of asserts: the first that fails, or one of `errors` (a
        window's pipe that broke), is a failed check with its message, and
        ends the block."""
        try:
            yield
        except (AssertionError, *errors) as error:
            self(False, str(error))

    def run(self, name, function):
        """Calls `function`, which asserts: a check named `name` with its
        time; on a failure of any kind (a time limit's too), its first line
        and the end of its traceback."""
        began = time.time()
        try:
            function()
        except BaseException as error:  # noqa: B036 - a test's failure of any kind is reported
            first = str(error).splitlines()[0] if str(error) else type(error).__name__
            self(False, "%s (%.1f s): %s" % (name, time.time() - began, first))
            for line in traceback.format_exc().splitlines()[-12:]:
                print("    " + line, flush=True)
            return False
        return self(True, "%s (%.1f s)" % (name, time.time() - began))

    def summary(self, what):
        """Prints `what` and the result; the exit status."""
        print("%s: %s" % (what, "%d failed" % len(self.failures) if self.failures else "passed"), flush=True)
        return 1 if self.failures else 0
