"""A desktop session in the VM: sway with foot (and the GTK editor), run
as the test user; the session agent in it; the daemon's status as the
agent's reports change it."""

import json
import os
import subprocess
import threading
import time

from evdev import ecodes as e

import vmlib
from vmlib.daemon import started

HERE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
USER = 1000  # sway refuses root
DESKTOP = "/tmp/desktop"
FILE = os.path.join(DESKTOP, "typed.txt")


def as_user(command, env):
    return ["setpriv", "--reuid", str(USER), "--regid", str(USER), "--clear-groups", "env", "-i", *env, *command]


class Desktop:
    """udevd, seatd and sway (keyboard layout `layout`, and the other
    `input` settings) with foot running `cat > FILE`, and the other
    `programs` the sway config starts; it is up when every file of `ready`
    exists."""

    def __init__(self, layout="de", programs=(), ready=(FILE,), input=()):
        self.processes = []
        os.makedirs(DESKTOP + "/runtime", exist_ok=True)
        # What an earlier desktop's programs wrote would pass for this one's.
        for path in ready:
            if os.path.exists(path):
                os.remove(path)
        for path in (DESKTOP, DESKTOP + "/runtime"):
            os.chown(path, USER, USER)
            os.chmod(path, 0o700)
        with open(DESKTOP + "/sway.conf", "w") as config:
            config.write("input * xkb_layout %s\n" % layout)
            for setting in input:
                config.write("input * %s\n" % setting)
            config.write("exec foot -e sh -c 'cat > %s'\n" % FILE)
            for program in programs:
                config.write("exec %s\n" % program)
        os.environ["SYSTEMD_IGNORE_CHROOT"] = "1"
        subprocess.run(["/lib/systemd/systemd-udevd", "--daemon"], check=True)
        # libinput reads its devices' properties from udev: the input devices
        # are what it needs (the rest, every device, took 4 s here).
        subprocess.run(["udevadm", "trigger", "--action=add", "--subsystem-match=input"], check=True)
        subprocess.run(["udevadm", "settle", "--timeout=60"], check=True)
        self.log = open(DESKTOP + "/desktop.log", "w")
        self.start(["seatd", "-l", "info"])
        deadline = time.time() + 30
        while not os.path.exists("/run/seatd.sock"):
            assert time.time() < deadline, "seatd did not start:\n" + open(DESKTOP + "/desktop.log").read()
            time.sleep(0.1)
        os.chown("/run/seatd.sock", USER, USER)  # (seatd -u/-g take names; uid 1000 may have none)
        self.env = ["XDG_RUNTIME_DIR=%s/runtime" % DESKTOP, "HOME=" + DESKTOP, "PATH=/usr/bin:/bin",
                    "WLR_BACKENDS=headless,libinput", "WLR_RENDERER=pixman", "LIBSEAT_BACKEND=seatd",
                    "XDG_CONFIG_HOME=%s/config" % DESKTOP, "LANG=C.UTF-8"]
        self.start(as_user(["sway", "-c", DESKTOP + "/sway.conf"], self.env))
        deadline = time.time() + 240
        while not all(os.path.exists(path) for path in ready):
            assert time.time() < deadline, "the programs never started:\n" + open(DESKTOP + "/desktop.log").read()[-3000:]
            time.sleep(0.5)
        time.sleep(3)  # the windows mapped and focused

    def start(self, command):
        self.processes.append(subprocess.Popen(command, stdout=self.log, stderr=self.log))

    def swaymsg(self, *arguments):
        sockets = [name for name in os.listdir(DESKTOP + "/runtime") if name.startswith("sway-ipc")]
        env = self.env + ["SWAYSOCK=%s/runtime/%s" % (DESKTOP, sockets[0])]
        return subprocess.run(as_user(["swaymsg", *arguments], env), capture_output=True, text=True, timeout=60)

    def client_env(self):
        """The environment of a client of this sway: its Wayland display and
        IPC socket."""
        displays = [name for name in os.listdir(DESKTOP + "/runtime")
                    if name.startswith("wayland-") and not name.endswith(".lock")]
        sockets = [name for name in os.listdir(DESKTOP + "/runtime") if name.startswith("sway-ipc")]
        return self.env + ["WAYLAND_DISPLAY=" + displays[0]] + ["SWAYSOCK=%s/runtime/%s" % (DESKTOP, name)
                                                                 for name in sockets[:1]]

    def pid_of(self, program):
        """The pid of the process whose command line names `program`."""
        for pid in os.listdir("/proc"):
            if pid.isdigit():
                try:
                    command = open("/proc/%s/cmdline" % pid, "rb").read().split(b"\0")
                except OSError:
                    continue
                if any(part.decode(errors="replace").endswith(program) for part in command):
                    return int(pid)
        raise AssertionError("no process runs " + program)

    def lines(self):
        with open(FILE, encoding="utf-8") as typed:
            return typed.read().split("\n")

    def close(self):
        """Stops everything it started; again, it does nothing."""
        if self.log.closed:
            return
        for process in reversed(self.processes):
            process.terminate()
            try:
                process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                process.kill()
        subprocess.run(["udevadm", "control", "--exit"])
        vmlib.forget_udevd()
        self.log.close()


EDITOR_FILE = os.path.join(DESKTOP, "editor.txt")
AGENT_SOCKET = "/run/vkbd/agent.sock"

# The keys of a US keyboard for the characters these tests type.
US = {" ": e.KEY_SPACE, "\n": e.KEY_ENTER, ".": e.KEY_DOT, "-": e.KEY_MINUS}
for letter in "abcdefghijklmnopqrstuvwxyz":
    US[letter] = getattr(e, "KEY_" + letter.upper())


def type_us(source, text, gap=0.09):
    for character in text:
        source.tap(US[character])
        time.sleep(gap)


def agent_binary():
    return os.path.join(os.path.dirname(os.environ["VKBD_BIN"]), "vkbd-agent")


def status():
    return vmlib.answer("status", "status")


def wait_status(condition, what, timeout=60):
    """The daemon's status once `condition(status)` holds."""
    deadline = time.time() + timeout
    while True:
        report = status()
        if condition(report):
            return report
        assert time.time() < deadline, "%s never came; status: %s" % (what, json.dumps(report.get("focus")))
        time.sleep(0.2)


def wait_focus(app, timeout=60):
    return wait_status(lambda report: report["focus"].get("app") == app, "the focus on %r" % app, timeout)


class Process:
    """A program whose output lines are collected in a thread; the end of
    them is printed if the test fails."""

    def __init__(self, command, stdin=False):
        self.lines = []
        # The program's name, after what runs it as the user (as_user).
        program = command[command.index("-i") + 1:] if "env" in command and "-i" in command else command
        self.name = os.path.basename(next((part for part in program if "=" not in part), command[0]))
        self.process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                                        stdin=subprocess.PIPE if stdin else subprocess.DEVNULL)
        threading.Thread(target=self._read, daemon=True).start()
        vmlib._started.append(self)

    def _read(self):
        for line in self.process.stdout:
            self.lines.append(line.rstrip("\n"))

    def wait_line(self, condition, timeout=60):
        deadline = time.time() + timeout
        while True:
            found = [line for line in list(self.lines) if condition(line)]
            if found:
                return found[0]
            assert time.time() < deadline, "no such line within %d s; output:\n%s" % (timeout, "\n".join(self.lines[-30:]))
            time.sleep(0.1)

    def failure_log(self):
        return ["%s's output, its end:" % self.name] + self.lines[-30:] if self.lines else []

    def close(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()


class RawAgent(Process):
    """raw_agent.py as `uid`: an agent driven line by line."""

    def __init__(self, uid):
        command = ["/usr/bin/python3", os.path.join(HERE, "raw_agent.py"), AGENT_SOCKET]
        if uid != 0:
            command = ["setpriv", "--reuid", str(uid), "--regid", str(uid), "--clear-groups"] + command
        super().__init__(command, stdin=True)

    def send(self, **message):
        self.process.stdin.write(json.dumps(dict(version=2, **message)) + "\n")
        self.process.stdin.flush()

    def sessions(self):
        """The `active` of every session message so far."""
        return [json.loads(line)["active"] for line in list(self.lines) if '"type":"session"' in line]


def desktop_with_editor():
    """sway with foot and the GTK editor (editor.py), both up."""
    return Desktop(layout="us", programs=["/usr/bin/python3 %s %s" % (os.path.join(HERE, "editor.py"), EDITOR_FILE)],
                   ready=(FILE, EDITOR_FILE))


def started_with_editor(config, source, stale):
    """The daemon on `config` with `source` grabbed, and sway with foot and
    the GTK editor; what an earlier test left at the paths of `stale` is gone."""
    daemon, _ = started(config, grabbed=source.name)
    desktop = desktop_with_editor()
    for path in stale:
        if os.path.exists(path):
            os.remove(path)
    return daemon, desktop


def wait_text(path, expected, timeout=60):
    deadline = time.time() + timeout
    while True:
        text = open(path, encoding="utf-8").read() if os.path.exists(path) else None
        if text == expected:
            return
        assert time.time() < deadline, "%s holds %r, not %r" % (path, text, expected)
        time.sleep(0.2)


def x11_session(display, size, extra_env=()):
    """Xvfb on :`display` (`size`, 24-bit) with Openbox, as the test user;
    the environment of its clients."""
    runtime = "/tmp/x11/runtime"
    os.makedirs(runtime, exist_ok=True)
    os.makedirs("/tmp/.X11-unix", exist_ok=True)
    os.chmod("/tmp/.X11-unix", 0o1777)
    for path in ("/tmp/x11", runtime):
        os.chown(path, USER, USER)
        os.chmod(path, 0o700)
    env = ["DISPLAY=:%d" % display, "HOME=/tmp/x11", "PATH=/usr/bin:/bin", "XDG_RUNTIME_DIR=" + runtime, *extra_env]
    Process(as_user(["Xvfb", ":%d" % display, "-nolisten", "tcp", "-screen", "0", size + "x24"], env))
    deadline = time.time() + 60
    while not os.path.exists("/tmp/.X11-unix/X%d" % display):
        assert time.time() < deadline, "Xvfb did not start"
        time.sleep(0.2)
    Process(as_user(["openbox", "--sm-disable"], env))
    time.sleep(2)
    return env
