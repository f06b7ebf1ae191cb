"""Runs the integration tests inside the VM: every `test_*` function of the
`test_*.py` modules here, in file then definition order, each under a time
limit, a failure never stopping the others. Ends with the line the host
runner reads: `integration: N passed, M failed in S s`.

    harness.py [PATTERN]   only tests whose name contains PATTERN

A module's tests run in the boot of its GROUP ($VKBD_GROUP): "main" (the
default), "desktop" (the tests that start a desktop session), or "timing",
the boot whose clock counts instructions (vm.py). A
module may give its tests a TIME_LIMIT of their own."""

import fcntl
import glob
import importlib
import inspect
import os
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(1, os.path.dirname(HERE))

import vmlib  # noqa: E402
from checks import Checks  # noqa: E402

TIME_LIMIT = 240 * vmlib.SOAK  # seconds per test


class TimeLimit(Exception):
    pass


limit = TIME_LIMIT  # the running test's


def on_alarm(signum, frame):
    raise TimeLimit("over the %d s limit" % limit)


def quiet_console():
    """Switches tty1's keyboard off (KDSKBMODE K_OFF), as a desktop session
    does, so test keys do not become console input."""
    try:
        with open("/dev/tty1", "wb") as tty:
            fcntl.ioctl(tty, 0x4B45, 0x04)
    except OSError:
        pass


def tests(pattern):
    # "bench_…" selects the benchmarks (bench_*.py, `make bench-latency`) instead.
    kind = "bench_" if pattern.startswith("bench") else "test_"
    group = os.environ.get("VKBD_GROUP", "main")
    for path in sorted(glob.glob(os.path.join(HERE, kind + "*.py"))):
        module = importlib.import_module(os.path.basename(path)[:-3])
        if kind == "test_" and getattr(module, "GROUP", "main") != group:
            continue
        functions = [
            (name, function) for name, function in vars(module).items()
            if name.startswith(kind) and inspect.isfunction(function) and function.__module__ == module.__name__
        ]
        functions.sort(key=lambda item: item[1].__code__.co_firstlineno)
        for name, function in functions:
            full = "%s.%s" % (module.__name__, name)
            if pattern in full:
                yield full, function, getattr(module, "TIME_LIMIT", TIME_LIMIT)


def main():
    pattern = sys.argv[1] if len(sys.argv) > 1 else ""
    quiet_console()
    signal.signal(signal.SIGALRM, on_alarm)
    started = time.time()
    check = Checks()
    print("integration: kernel %s, vkbd %s, %s tests" % (
        os.uname().release, os.environ.get("VKBD_BIN"), os.environ.get("VKBD_GROUP", "main")), flush=True)
    global limit
    for name, function, limit in tests(pattern):
        signal.alarm(limit)
        passed = False
        try:
            passed = check.run(name, function)
        finally:
            signal.alarm(0)
            for line in vmlib.cleanup(failed=not passed):
                print("    " + line, flush=True)
    print("integration: %d passed, %d failed in %d s" % (check.passed, len(check.failures), time.time() - started),
          flush=True)


if __name__ == "__main__":
    main()
