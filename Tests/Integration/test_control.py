"""The control socket and the CLI against a live daemon."""

import json
import os
import random
import signal
import socket
import subprocess
import threading
import time

from evdev import ecodes as e

import vmlib
from vmlib.daemon import PLAIN, presses, started

SOCKET = "/run/vkbd/control.sock"


def vkbd(*arguments, user=None):
    """Runs the vkbd CLI (as `user`, a (uid, gid) pair, when given)."""
    command = [os.environ["VKBD_BIN"], *arguments]
    if user:
        command = ["setpriv", "--reuid", str(user[0]), "--regid", str(user[1]), "--clear-groups", *command]
    return subprocess.run(command, capture_output=True, text=True, timeout=60)


def test_every_command_against_the_live_daemon():
    config = PLAIN.replace("matches: []", 'matches:\n  - trigger: ";hi"\n    replace: hello\n    label: greeting')
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(config, grabbed=source.name)

        status = vkbd("status")
        assert status.returncode == 0, status
        print("  $ vkbd status\n" + "".join("  " + line + "\n" for line in status.stdout.splitlines()))
        assert "is running" in status.stdout and "layout    us" in status.stdout
        report = json.loads(vkbd("status", "--json").stdout)
        assert report["state"] == "running" and report["snippets"] == 1 and report["devicesGrabbed"] >= 1

        assert vkbd("pause").stdout == "vkbd is paused\n"
        assert json.loads(vkbd("status", "--json").stdout)["state"] == "paused"
        assert vkbd("toggle").stdout == "vkbd is running\n"
        assert vkbd("toggle").stdout == "vkbd is paused\n"
        assert vkbd("resume").stdout == "vkbd is running\n"

        devices = vkbd("devices")
        assert devices.returncode == 0
        line = next(line for line in devices.stdout.splitlines() if source.name in line)
        assert line.endswith("grabbed"), devices.stdout
        listed = json.loads(vkbd("devices", "--json").stdout)
        assert any(d["name"] == "vkbd virtual keyboard" and not d["grabbed"] for d in listed), listed

        snippets = vkbd("snippets")
        assert ";hi" in snippets.stdout and "greeting" in snippets.stdout, snippets.stdout
        assert json.loads(vkbd("snippets", "--json").stdout)[0]["triggers"] == [";hi"]
        assert vkbd("expand", ";hi").stdout == "hello\n"
        assert vkbd("expand", ";nothing").returncode == 65

        source.press(e.KEY_LEFTSHIFT)
        source.press(e.KEY_G)
        reader.wait_for(lambda events: (e.KEY_G, 1) in presses(events), timeout=30)
        assert vkbd("release-all").stdout == "released every key\n"
        reader.wait_for(lambda events: reader.keys_down() == set(), timeout=30)
        source.release(e.KEY_G)
        source.release(e.KEY_LEFTSHIFT)

        stats = vkbd("stats")
        print("  $ vkbd stats\n" + "".join("  " + line + "\n" for line in stats.stdout.splitlines()))
        numbers = json.loads(vkbd("stats", "--json", "--reset").stdout)
        assert numbers["eventsIn"] >= 2 and numbers["samples"] >= 2 and numbers["p50"] <= numbers["max"]
        assert json.loads(vkbd("stats", "--json").stdout)["eventsIn"] == 0

        with open(daemon.config_path, "w") as broken:
            broken.write("autocapitalize: maybe\n")
        reload = vkbd("reload")
        assert reload.returncode == 78, reload
        assert "%s:1:17: autocapitalize must be true or false" % daemon.config_path in reload.stderr
        with open(daemon.config_path, "w") as fixed:
            fixed.write(config.replace("autocapitalize: false", "autocapitalize: true"))
        reload = vkbd("reload")
        assert reload.returncode == 0 and reload.stdout.startswith("reloaded "), reload
        daemon.stop(signal.SIGTERM)
    stopped = vkbd("status")
    assert stopped.returncode == 69 and "not running" in stopped.stderr


def test_the_socket_refuses_users_who_are_not_root_nor_in_the_control_group():
    daemon, reader = started(PLAIN + "control_group: users\n")
    assert os.stat(SOCKET).st_mode & 0o777 == 0o660
    outsider = vkbd("status", user=(1000, 1000))
    assert outsider.returncode == 77, outsider  # the file mode stops it
    member = vkbd("status", user=(1000, 100))  # gid 100 is "users"
    assert member.returncode == 0, member
    os.chmod(SOCKET, 0o666)  # past the file mode, the daemon's own check (SO_PEERCRED)
    refused = vkbd("status", user=(1001, 1001))
    assert refused.returncode == 77, refused
    assert "refused uid 1001" in daemon.stderr_text()
    daemon.stop(signal.SIGTERM)

    daemon, reader = started(PLAIN)
    assert os.stat(SOCKET).st_mode & 0o777 == 0o600
    assert vkbd("status", user=(1000, 100)).returncode == 77
    daemon.stop(signal.SIGTERM)


def abuse_the_socket(stop):
    """Clients that misbehave, over and over, until `stop` is set."""
    while not stop.is_set():
        idle = socket.socket(socket.AF_UNIX)
        idle.connect(SOCKET)
        half = socket.socket(socket.AF_UNIX)
        half.connect(SOCKET)
        half.sendall(b'{"version":1,')
        half.shutdown(socket.SHUT_WR)
        flood = socket.socket(socket.AF_UNIX)
        flood.connect(SOCKET)
        try:
            flood.sendall(b"x" * (1 << 20))
        except OSError:
            pass  # cut off at the request limit
        crowd = []
        for _ in range(100):
            client = socket.socket(socket.AF_UNIX)
            try:
                client.connect(SOCKET)
            except OSError:
                pass
            crowd.append(client)
        time.sleep(0.2)
        for client in [idle, half, flood, *crowd]:
            client.close()


def test_socket_abuse_while_typing_loses_nothing_and_does_not_spin():
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started(PLAIN, grabbed=source.name)
        stop = threading.Event()
        abuser = threading.Thread(target=abuse_the_socket, args=(stop,))
        abuser.start()
        rng = random.Random(7)
        sent = []
        for _ in range(300):
            code = rng.choice([e.KEY_A, e.KEY_S, e.KEY_D, e.KEY_F, e.KEY_SPACE, e.KEY_J, e.KEY_K])
            source.tap(code)
            sent += [(code, 1), (code, 0)]
            time.sleep(0.01)
        stop.set()
        abuser.join()
        reader.wait_for(lambda events: len(presses(events)) >= len(sent), timeout=60)
        assert presses(reader.events) == sent
        # An idle client held open for 3 s costs the daemon (nearly) no CPU time.
        idle = socket.socket(socket.AF_UNIX)
        idle.connect(SOCKET)
        before = vmlib.cpu_seconds(daemon.process.pid)
        time.sleep(3)
        spent = vmlib.cpu_seconds(daemon.process.pid) - before
        idle.close()
        assert spent < 0.3, "the daemon used %.2f s of CPU with an idle client" % spent
        stats = json.loads(vkbd("stats", "--json").stdout)
        print("  %d keys identical under socket abuse; latency p50 %d µs, p99 %d µs, max %d µs" % (
            len(sent) // 2, stats["p50"], stats["p99"], stats["max"]))
        daemon.stop(signal.SIGTERM)
