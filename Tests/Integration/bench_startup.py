"""`make bench-latency`, second boot: the daemon's memory and start-up.

Guest time follows the host's clock while the guest waits (QEMU `-icount
shift=0`, sleep on): start-up reads files over 9p, and that wait is part of
it. Each figure is the median of five starts after one to warm the page
cache; the C tool `startup` (Benchmarks/Latency) times from its fork to the
daemon's "ready" line, so no Python is in the measurement."""

import os
import re
import signal
import subprocess
import sys
import time

import vmlib
from bench_latency import tool

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Hub"))
import hub_snapshot  # noqa: E402

STARTS = 5
# Each language's load under emulation takes seconds, three times over.
TIME_LIMIT = 900 * vmlib.SOAK


def start_up(config_text):
    """Starts the daemon on `config_text`; returns (ms to ready, idle RSS in KiB)."""
    path = "/tmp/vkbd-bench-start.yaml"
    with open(path, "w") as config:
        config.write(config_text)
    timer = subprocess.Popen([tool("startup"), "] ready", os.environ["VKBD_BIN"], "run", "--config", path],
                             stdout=subprocess.PIPE, text=True)
    fields = timer.stdout.readline().split()
    assert len(fields) == 2, "the daemon did not start"
    pid, microseconds = int(fields[0]), int(fields[1])
    time.sleep(2)
    rss = vmlib.rss_kib(pid)
    os.kill(pid, signal.SIGTERM)
    assert timer.wait(timeout=60) == 0
    return microseconds / 1000, rss


def bench_memory_and_start_up():
    snippets = "matches:\n" + "".join(
        "  - trigger: \";s%04d\"\n    replace: \"snippet number %d, a line of text\"\n" % (n, n) for n in range(1000))
    default = subprocess.run([os.environ["VKBD_BIN"], "config", "--print-default"], capture_output=True,
                             text=True).stdout
    for label, config in [("embedded default", default), ("1,000 snippets", snippets)]:
        start_up(config)  # the page cache warms
        runs = [start_up(config) for _ in range(STARTS)]
        times = sorted(ms for ms, _ in runs)
        rss = sorted(kib for _, kib in runs)
        print("  %-16s start-up (fork to virtual keyboard ready and keyboards grabbed) %.0f ms (%.0f to %.0f);"
              " idle RSS %.1f MiB" % (label, times[STARTS // 2], times[0], times[-1], rss[STARTS // 2] / 1024))
    # espanso's whole hub (Tests/Hub), once: start-up, idle memory, and
    # the memory after three reloads.
    whole = hub_snapshot.config()
    start_up(whole)
    milliseconds, rss = start_up(whole)
    daemon = vmlib.Daemon(["run"], config_text=whole)
    daemon.wait_ready(timeout=600)
    for _ in range(3):
        assert subprocess.run([os.environ["VKBD_BIN"], "reload"], capture_output=True).returncode == 0
    time.sleep(8)  # the heap is trimmed once the keyboard has rested 5 s
    reloaded = vmlib.rss_kib(daemon.process.pid)
    daemon.stop(signal.SIGTERM)
    print("  %-16s start-up %.0f ms; idle RSS %.1f MiB, %.1f MiB after three reloads" % (
        "the whole hub", milliseconds, rss / 1024, reloaded / 1024))


def bench_memory_of_each_autocorrect_language():
    """Autocorrect's dictionaries load on a thread of their own the first
    time an agent reports a window where autocorrect applies: what each
    language adds to the daemon, over autocorrect off, and how long it
    takes (the median of three)."""
    for label, languages in [("autocorrect off", None), ("en_US", "[en_US]"), ("de_DE", "[de_DE]"), ("fr_FR", "[fr_FR]"),
                             ("ru_RU", "[ru_RU]"), ("en_US and de_DE", "[en_US, de_DE]")]:
        runs = sorted(with_dictionaries(languages) for _ in range(3))
        print("  %-16s an agent reporting a text editor: idle RSS %.1f MiB%s" % (
            label, runs[1][1] / 1024, "" if languages is None else ", dictionaries loaded in %d ms" % runs[1][0]))


def with_dictionaries(languages):
    """The daemon with `autocorrect_languages: languages` (None: autocorrect
    off) and an agent reporting a text editor: (ms the dictionaries took to
    load, RSS in KiB 8 s after)."""
    from test_session import RawAgent
    config = 'session_users: ["0"]\n' + (
        "autocorrect: false\n" if languages is None else "autocorrect_languages: %s\n" % languages)
    daemon = vmlib.Daemon(["run"], config_text=config)
    daemon.wait_ready()
    agent = RawAgent(0)
    try:
        agent.send(type="hello", agent="0.1.0", source="bench")
        agent.send(type="focus", window=1, app="org.gnome.TextEditor")
        milliseconds = 0
        if languages is not None:
            deadline = time.time() + 120
            while "dictionaries loaded" not in daemon.stderr_text():
                assert time.time() < deadline, daemon.stderr_text()[-2000:]
                time.sleep(0.1)
            line = [line for line in daemon.stderr_text().splitlines() if "dictionaries loaded" in line][0]
            milliseconds = int(re.search(r"ms=(\d+)", line).group(1))
        time.sleep(8)  # the heap is trimmed once the keyboard has rested 5 s
        return milliseconds, vmlib.rss_kib(daemon.process.pid)
    finally:
        agent.close()
        daemon.stop()


def bench_memory_of_the_session_agent_idle_in_sway():
    """The session agent (the build beside VKBD_BIN) in a headless sway
    with foot, connected to the daemon and counted: its resident memory
    once it has reported, and the CPU time it uses idle for 20 s."""
    from test_desktop import USER, Desktop, as_user
    from test_session import Process, agent_binary, wait_status
    config = 'layout:\n  layout: us\nsession_users: ["%d"]\n' % USER
    daemon = vmlib.Daemon(["run"], config_text=config)
    daemon.wait_ready()
    desktop = Desktop(layout="us")
    try:
        agent = Process(as_user([agent_binary()], desktop.client_env()))
        wait_status(lambda report: report["focus"].get("app") == "foot", "the agent's report", timeout=120)
        time.sleep(5)
        pid = agent.process.pid
        # setpriv and env exec the agent: the pid is the agent's own.
        before = vmlib.cpu_seconds(pid)
        time.sleep(20)
        used = vmlib.cpu_seconds(pid) - before
        # Most of its pages are the desktop libraries' code (glib, cairo,
        # Pango for the picker), shared with the session's other programs.
        rollup = dict(line.split(":")[0:2] for line in open("/proc/%d/smaps_rollup" % pid) if ":" in line)
        private = int(rollup["Private_Dirty"].split()[0])
        print("  session agent idle in sway (wlroots source, input method, sway IPC, picker): RSS %.1f MiB"
              " (%.1f MiB of it private dirty), %.2f s of CPU in 20 s" % (vmlib.rss_kib(pid) / 1024, private / 1024, used))
    finally:
        desktop.close()
        daemon.stop()
