"""What the guest tests drive vkbd with: uinput source keyboards, readers of
input devices (python3-evdev), the daemon as a process, and the host's QMP
for the VM's i8042 keyboard. Everything a test starts is stopped by
`cleanup()`, which the harness calls after each test."""

import base64
import json
import os
import select
import signal
import socket
import subprocess
import tempfile
import threading
import time

import evdev
from evdev import ecodes as e

_started = []  # daemons, keyboards and readers to clean up after a test

# How many times over the fault tests repeat their load: 1 in make check, more
# in make soak (vm.py --soak).
SOAK = int(os.environ.get("VKBD_SOAK", "1"))


def ask(command, timeout=60, **fields):
    """The daemon's reply to `command` (with the request's other `fields`)
    on its control socket, one JSON line each way as vkbd's CLI asks it:
    for the tests' polls. The debug CLI takes 0.6 s of the emulated core a
    run, and a poll five times a second slowed what it waited for (an agent
    starting) to a third. test_control runs the CLI itself."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as client:
        client.settimeout(timeout)
        client.connect("/run/vkbd/control.sock")
        client.sendall(json.dumps(dict(fields, version=1, command=command)).encode() + b"\n")
        reply = b""
        while not reply.endswith(b"\n"):
            chunk = client.recv(1 << 16)
            assert chunk, "the daemon closed the control socket after %r" % reply[:200]
            reply += chunk
    return json.loads(reply)


def answer(command, field, **fields):
    """The `field` of the daemon's reply to `command`, which must succeed."""
    reply = ask(command, **fields)
    assert reply["ok"], reply
    return reply[field]


def expansion_of(trigger):
    """What the daemon's snippet for `trigger` types now; None for none."""
    return ask("expand", trigger=trigger).get("expansion")


def wait_for_device(name, timeout=60):
    """The evdev device called `name`, once it appears."""
    deadline = time.time() + timeout
    while True:
        for path in evdev.list_devices():
            try:
                device = evdev.InputDevice(path)
            except OSError:
                continue
            if device.name == name:
                return device
            device.close()
        if time.time() > deadline:
            raise AssertionError("no input device %r after %d s" % (name, timeout))
        time.sleep(0.1)


def i8042_keyboard():
    return wait_for_device("AT Translated Set 2 keyboard")


# A keyboard's keys: every key code up to KEY_MICMUTE, which has letters,
# digits, modifiers, Enter, Backspace, Escape, arrows and F-keys.
KEYBOARD_KEYS = list(range(e.KEY_ESC, e.KEY_MICMUTE + 1))


class SourceKeyboard:
    """A keyboard made with uinput, for vkbd to grab."""

    def __init__(self, name="vkbd test keyboard", keys=KEYBOARD_KEYS, other=None, properties=()):
        """`other`: more capabilities, {EV_REL: [REL_X, …]}, and
        `properties` (INPUT_PROP_…), for a keyboard that is also a pointer."""
        self.name = name
        self.uinput = evdev.UInput({e.EV_KEY: keys, **(other or {})}, name=name, input_props=list(properties))
        self._device = None
        _started.append(self)
        wait_for_device(name)

    def device(self):
        """The keyboard's own event node, as an evdev device."""
        if self._device is None:
            self._device = wait_for_device(self.name)
        return self._device

    def press(self, code):
        self.uinput.write(e.EV_KEY, code, 1)
        self.uinput.syn()

    def release(self, code):
        self.uinput.write(e.EV_KEY, code, 0)
        self.uinput.syn()

    def tap(self, code):
        self.press(code)
        self.release(code)

    def frame(self, events):
        """Writes (type, code, value) events and one SYN_REPORT after them."""
        for kind, code, value in events:
            self.uinput.write(kind, code, value)
        self.uinput.syn()

    def type_keys(self, codes, gap=0.05):
        for code in codes:
            self.tap(code)
            time.sleep(gap)

    def close(self):
        if self._device is not None:
            self._device.close()
            self._device = None
        if self.uinput is not None:
            self.uinput.close()
            self.uinput = None

    def __enter__(self):
        return self

    def __exit__(self, *exception):
        self.close()


class SourceMouse:
    """A mouse made with uinput: vkbd reads its buttons, never grabs it."""

    def __init__(self, name="vkbd test mouse"):
        self.uinput = evdev.UInput({e.EV_KEY: [e.BTN_LEFT, e.BTN_RIGHT], e.EV_REL: [e.REL_X, e.REL_Y]}, name=name)
        _started.append(self)
        wait_for_device(name)

    def click(self):
        for value in (1, 0):
            self.uinput.write(e.EV_KEY, e.BTN_LEFT, value)
            self.uinput.syn()

    def close(self):
        if self.uinput is not None:
            self.uinput.close()
            self.uinput = None


def key_values(events):
    """The (code, value) pairs of a reader's events."""
    return [(code, value) for code, value, _ in events]


class Reader:
    """Reads a device's events in a thread: `events` holds its key events
    as (code, value, kernel time in seconds), `frames` every frame as the
    (type, code, value) events before its SYN_REPORT; `dropped` tells
    whether the kernel dropped any, `gone` whether the device went away."""

    def __init__(self, device):
        self.device = device
        self.events = []
        self.frames = []
        self.dropped = False
        self.gone = False
        self._pending = []
        self._stop = False
        self._lock = threading.Lock()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()
        _started.append(self)

    def _run(self):
        while not self._stop:
            try:
                ready, _, _ = select.select([self.device.fd], [], [], 0.1)
                if not ready:
                    continue
                for event in self.device.read():
                    if event.type == e.EV_KEY:
                        with self._lock:
                            self.events.append((event.code, event.value, event.timestamp()))
                    if event.type == e.EV_SYN and event.code == e.SYN_REPORT:
                        with self._lock:
                            self.frames.append(self._pending)
                        self._pending = []
                    elif event.type == e.EV_SYN and event.code == e.SYN_DROPPED:
                        self.dropped = True
                    elif event.type != e.EV_SYN:
                        self._pending.append((event.type, event.code, event.value))
            except (OSError, ValueError):
                self.gone = True
                return  # the device went away

    def wait_frames(self, count, timeout=60):
        """Waits for `count` frames and returns them."""
        deadline = time.time() + timeout
        while True:
            with self._lock:
                if len(self.frames) >= count:
                    return list(self.frames)
            assert time.time() < deadline, "%d of %d frames after %d s" % (len(self.frames), count, timeout)
            time.sleep(0.05)

    def wait_for(self, condition, timeout=30):
        """Waits until `condition(events)` holds (or `len(events) >= condition`)."""
        if isinstance(condition, int):
            count = condition
            condition = lambda events: len(events) >= count  # noqa: E731
        deadline = time.time() + timeout
        while True:
            with self._lock:
                events = list(self.events)
            if condition(events):
                return events
            if time.time() > deadline:
                raise AssertionError("the reader did not see what it waited for within %d s; saw %d events: %s" % (
                    timeout, len(events), key_values(events)[-12:]))
            time.sleep(0.05)

    def keys_down(self):
        """The keys down after the events seen (kernel repeats leave it as is)."""
        down = set()
        with self._lock:
            for code, value, _ in self.events:
                if value == 1:
                    down.add(code)
                elif value == 0:
                    down.discard(code)
        return down

    def close(self):
        self._stop = True
        self._thread.join(timeout=2)
        try:
            self.device.close()
        except OSError:
            pass


class Daemon:
    """`$VKBD_BIN args… --config FILE` as a process, its stderr in a file;
    `prefix` is a command it runs under (setpriv …)."""

    def __init__(self, args, config_text=None, environment=None, prefix=()):
        self.config_path = None
        if config_text is not None:
            handle, self.config_path = tempfile.mkstemp(prefix="vkbd-config-", suffix=".yaml")
            with os.fdopen(handle, "w") as config:
                config.write(config_text)
            args = list(args) + ["--config", self.config_path]
        handle, self.log_path = tempfile.mkstemp(prefix="vkbd-log-", suffix=".txt")
        self._log = os.fdopen(handle, "w")
        self.process = subprocess.Popen([*prefix, os.environ["VKBD_BIN"], *args], stdout=self._log, stderr=self._log,
                                        env=dict(os.environ, **(environment or {})))
        _started.append(self)

    def stderr_text(self):
        with open(self.log_path, errors="replace") as log:
            return log.read()

    def failure_log(self):
        """The end of its log, for a failed test."""
        return ["the daemon's log, its end:"] + self.stderr_text()[-3000:].splitlines()

    def wait_ready(self, timeout=90):
        """Waits for the daemon's "ready" line (virtual keyboard up, devices taken)."""
        deadline = time.time() + timeout
        while "] ready" not in self.stderr_text():
            if self.process.poll() is not None:
                raise AssertionError("vkbd exited %d before it was ready:\n%s" % (
                    self.process.returncode, self.stderr_text()))
            if time.time() > deadline:
                raise AssertionError("vkbd not ready after %d s:\n%s" % (timeout, self.stderr_text()))
            time.sleep(0.1)

    def wait_exit(self, timeout=30):
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError("vkbd still running after %d s:\n%s" % (timeout, self.stderr_text()))

    def stop(self, signum=signal.SIGTERM, timeout=30):
        if self.process.poll() is None:
            self.process.send_signal(signum)
        return self.wait_exit(timeout)

    def close(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self._log.close()


def rss_kib(pid):
    """A process's resident memory (/proc/PID/status VmRSS), in KiB."""
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def read_ahead(*programs):
    """Reads each program and every library it links whole, into the
    guest's page cache (9p, cache=loose). Under a clock that skips idle
    time, a page fault that waits on the host's file moves the clock on to
    the next timer: a client's first `vkbd status` then took seconds of
    guest time, and the daemon dropped it as too slow. Once read, its
    pages come from memory. Each file once a boot: under emulation, reading
    the 38 MB of a release build costs seconds."""
    paths = set()
    for program in set(programs) - _read:
        paths.add(program)
        linked = subprocess.run(["ldd", program], capture_output=True, text=True).stdout
        paths.update(word for word in linked.split() if word.startswith("/"))
    for path in sorted(paths - _read):
        with open(path, "rb") as file:
            while file.read(1 << 20):
                pass
        _read.add(path)


_read = set()  # the files read_ahead read


def cpu_seconds(pid):
    """User and system CPU time a process has used (/proc/PID/stat)."""
    with open("/proc/%d/stat" % pid) as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


class SchedulerTrace:
    """The kernel's record (ftrace, CLOCK_MONOTONIC) of what the guest's CPU
    ran: each switch between threads, each wake-up, interrupt and softirq,
    the 9p file system's requests (the host's files), and the system calls
    of the thread `pid`. A timing test starts it before its stream and, when
    an event came late, prints what ran between the event's write and its
    arrival."""

    ROOT = "/sys/kernel/tracing"
    EVENTS = ["sched/sched_switch", "sched/sched_wakeup", "irq/irq_handler_entry", "irq/softirq_entry",
              "irq/softirq_exit", "9p/9p_client_req", "raw_syscalls/sys_enter"]

    def __init__(self, pid, buffer_kib=65536):
        if not os.path.exists(os.path.join(self.ROOT, "trace")):
            subprocess.run(["mount", "-t", "tracefs", "nodev", self.ROOT], check=True)
        self._write("tracing_on", "0")
        self._write("trace_clock", "mono")
        self._write("buffer_size_kb", str(buffer_kib))
        self._write("trace", "")
        self._write("events/raw_syscalls/sys_enter/filter", "common_pid == %d" % pid)
        for event in self.EVENTS:
            self._write("events/%s/enable" % event, "1")
        self._write("tracing_on", "1")

    def _write(self, name, text):
        with open(os.path.join(self.ROOT, name), "w") as file:
            file.write(text)

    def stop(self):
        self._write("tracing_on", "0")
        for event in self.EVENTS:
            self._write("events/%s/enable" % event, "0")
        self._write("events/raw_syscalls/sys_enter/filter", "0")

    def _lines(self):
        """(time in µs, line) of each record, in order."""
        with open(os.path.join(self.ROOT, "trace")) as trace:
            for line in trace:
                if line.startswith("#"):
                    continue
                try:
                    yield float(line.split(": ", 1)[0].split()[-1]) * 1e6, line.rstrip()
                except (ValueError, IndexError):
                    continue

    def between(self, start_us, end_us):
        """The records from `start_us` to `end_us` (CLOCK_MONOTONIC)."""
        lines = []
        for moment, line in self._lines():
            if moment > end_us:
                break
            if moment >= start_us:
                lines.append(line)
        return lines

    def file_requests(self, pid):
        """The 9p requests the thread `pid` made, each after the system call
        that made it."""
        thread = "-%d " % pid
        found = []
        call = "?"
        for _, line in self._lines():
            if thread in line and "sys_enter" in line:
                call = line
            elif thread in line and "9p_client_req" in line:
                found += [call, line]
        return found


def forget_udev_data(nodes):
    """`udevadm test` writes udev's database for the devices it tests, and no
    udevd runs here to forget it: a later device with the number of one of
    `nodes` would read what the rule set there (VKBD_IGNORE=1). Nodes gone
    already are passed over."""
    for node in nodes:
        if os.path.exists(node):
            number = os.stat(node).st_rdev
            database = "/run/udev/data/c%d:%d" % (os.major(number), os.minor(number))
            if os.path.exists(database):
                os.unlink(database)


def forget_udevd():
    """What a udevd that a test ran leaves once it stopped: its control
    socket, whose presence says udevd runs (vkbd would then wait for
    udevd's device events, which never come, instead of the kernel's), and
    its database of input devices, /run/udev/data/c13:N (a later device
    with one of those numbers would read it: VKBD_IGNORE=1, the virtual
    keyboard's mark, makes vkbd pass it over)."""
    if os.path.exists("/run/udev/control"):
        os.unlink("/run/udev/control")
    directory = "/run/udev/data"
    for name in os.listdir(directory) if os.path.isdir(directory) else []:
        if name.startswith("c13:"):
            os.unlink(os.path.join(directory, name))


def start_probe(name, excluded="-", count=2000000000, ready=True, motion=False, realtime=False):
    """The project's C probe (Benchmarks/Latency/probe.c, built into
    $VKBD_LATENCY_TOOLS) reading the device `name` (its key events, or with
    `motion` its relative motion), for readers Python under TCG is too slow
    to be: its output goes to a file (a pipe nobody reads yet would fill and
    stall it). It stops after `count` events or 5 s idle. `realtime`: it
    reads at a realtime priority (SCHED_FIFO), as a compositor that asks
    for one does (KWin), so that the guest's one emulated core, busy with
    the daemon and the test, never keeps it from reading for the 16 ms in
    which a long expansion fills the kernel's 64-event buffer."""
    output = tempfile.TemporaryFile("w+")
    command = [os.path.join(os.environ["VKBD_LATENCY_TOOLS"], "probe"), name, excluded, str(count), "5000"]
    command = (["chrt", "--fifo", "50"] if realtime else []) + command + (["rel"] if motion else [])
    probe = subprocess.Popen(command, stdout=output, stderr=subprocess.PIPE, text=True)
    probe.output = output
    if ready:
        while "probe: ready" not in probe.stderr.readline():
            if probe.poll() is not None:
                raise AssertionError("the probe found no device %r" % name)
    return probe


def probe_lines(probe, timeout=600):
    """What the probe recorded: `code value microseconds` lines (and `dropped`)."""
    probe.wait(timeout=timeout)
    probe.output.seek(0)
    return [line for line in probe.output.read().split("\n") if line]


def save(name, data):
    """Gives the host a file (a screenshot): vm.py keeps it as
    .cache/vm/artifacts/NAME."""
    print("@@FILE %s %s" % (name, base64.b64encode(data).decode()), flush=True)


def qmp(command, delay_ms=0):
    """Asks the host to run a QMP command (after `delay_ms`)."""
    print("@@QMP " + json.dumps({"delay_ms": delay_ms, "command": command}), flush=True)


def qmp_type(qcodes, gap_ms=60):
    """Presses and releases each QEMU key code on the i8042 keyboard."""
    for qcode in qcodes:
        for down in (True, False):
            qmp({"execute": "input-send-event", "arguments": {"events": [
                {"type": "key", "data": {"down": down, "key": {"type": "qcode", "data": qcode}}}]}},
                delay_ms=gap_ms)


def cleanup(failed=False):
    """Stops what the last test started; returns the lines to print: what
    it had to clean up, and after a failure the end of the log of each
    program it started (the agent's, the daemon's)."""
    notes = []
    if failed:
        for thing in _started:
            if hasattr(thing, "failure_log"):
                notes += thing.failure_log()
    while _started:
        thing = _started.pop()
        if isinstance(thing, Daemon) and thing.process.poll() is None:
            notes.append("killed a vkbd the test left running")
        try:
            thing.close()
        except Exception as error:  # noqa: BLE001 - cleanup goes on
            notes.append("cleanup: %s" % error)
    return notes
