"""`make bench-latency`: end-to-end numbers in one boot of the VM.

- Latency per key, from the source keyboard's write (CLOCK_MONOTONIC) to the
  kernel timestamp of the same event on the output device, for 2,000 keys one
  every 2 ms, through: the C floor (Benchmarks/Latency/floor.c), interception
  tools' `interception -g | uinput`, keyd when it is there (below), vkbd
  (every aid on, the starter snippets), the same with a session agent moving
  the focus between a terminal and a browser every 100 ms, vkbd with
  everything off, and vkbd kept from its real-time policy; three rounds of
  all of them.
- The system calls each of them makes per key (strace -c over the same
  stream), and the user-space instructions per key event (callgrind).
- Expansion throughput: a 2,000-character expansion until its last character
  is read, checked character by character; beside `ydotool type` of the same
  text with no delays.

Guest time counts instructions and skips idle time (QEMU `-icount
shift=0,sleep=off`): the figures repeat from boot to boot and no host load
reaches them. Memory and start-up are in bench_startup.py.

The C tools come from VKBD_LATENCY_TOOLS (built by the make target). keyd
(github.com/rvaiya/keyd) is not in Debian 12: built by hand from its
source with `make CONFIG_DIR=/tmp/keyd-config SOCKET_PATH=/tmp/keyd.socket`
and its `bin/keyd` copied to .build-bench/keyd/keyd, it runs beside the
others (a pass-through config: every keyboard, no mapping)."""

import os
import signal
import subprocess
import time

from evdev import ecodes as e

import vmlib
from xkb import Typist

TOOLS = os.environ.get("VKBD_LATENCY_TOOLS", "")
KEYS = 2000
INTERVAL_US = 2000
MOVES = 2000
MOVE_INTERVAL_US = 1000  # a 1,000 Hz mouse
SOURCE = "vkbd latency source"


def tool(name):
    return os.path.join(TOOLS, name)


def wait_line(stream, text, timeout=120):
    deadline = time.time() + timeout
    while time.time() < deadline:
        line = stream.readline()
        if text in line:
            return
        if not line:
            time.sleep(0.05)
    raise AssertionError("no %r" % text)


def percentile(values, fraction):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(fraction * len(ordered)))]


def measure(label, start, pointer=False):
    """Runs the source through the system `start` starts; returns latencies
    (µs). With `pointer` the source is a keyboard that is also a pointer and
    moves, MOVES frames every MOVE_INTERVAL_US."""
    arguments = [str(MOVES), str(MOVE_INTERVAL_US), "pointer"] if pointer else [str(KEYS), str(INTERVAL_US)]
    source = subprocess.Popen([tool("source"), SOURCE] + arguments, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    wait_line(source.stderr, "source: ready")
    node = vmlib.wait_for_device(SOURCE).path
    system, output_name = start(node)
    # No system (None): the probe reads the source itself.
    probe = vmlib.start_probe(output_name, "-" if system is None else node, MOVES if pointer else 2 * KEYS,
                              motion=pointer)
    system = system or []
    time.sleep(1)
    source.send_signal(signal.SIGUSR1)
    written = [tuple(int(field) for field in line.split()) for line in source.communicate(timeout=300)[0].split("\n")
               if line]
    read_lines = vmlib.probe_lines(probe)
    for process in system:
        process.send_signal(signal.SIGTERM)
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
    dropped = "dropped" in read_lines
    read = [tuple(int(field) for field in line.split()) for line in read_lines if line and line != "dropped"]
    assert not dropped, "%s: the probe's buffer overflowed" % label
    assert [(c, v) for c, v, _ in read] == [(c, v) for c, v, _ in written], \
        "%s: %d events written, %d read, or out of order" % (label, len(written), len(read))
    return [r[2] - w[2] for r, w in zip(read, written)]


def start_floor(node):
    floor = subprocess.Popen([tool("floor"), node], stderr=subprocess.PIPE, text=True)
    wait_line(floor.stderr, "floor: ready")
    return [floor], "vkbd latency floor"


def start_interception(node):
    pipeline = subprocess.Popen(["sh", "-c", 'exec interception -g "$0" | exec uinput -d "$0"', node])
    time.sleep(3)  # both ends start; the probe waits for the copy to appear
    return [pipeline], SOURCE


KEYD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".build-bench", "keyd", "keyd")


def start_keyd(node, filtered=False):
    """keyd with a pass-through config for every keyboard; `filtered`: under
    a seccomp filter as vkbd puts itself under (Benchmarks/Latency/filtered.c),
    so both take the kernel's system-call path for a filtered process."""
    os.makedirs("/tmp/keyd-config", exist_ok=True)
    with open("/tmp/keyd-config/default.conf", "w") as config:
        config.write("[ids]\n*\n\n[main]\n")
    keyd = subprocess.Popen(([tool("filtered")] if filtered else []) + [KEYD], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, text=True)
    vmlib.wait_for_device("keyd virtual keyboard")
    time.sleep(2)  # it grabs the keyboards it finds
    return [keyd], "keyd virtual keyboard"


def start_vkbd(node, config="/tmp/vkbd-bench-default.yaml", output="vkbd virtual keyboard", prefix=()):
    daemon = vmlib.Daemon(["run", "--config", config], prefix=prefix)
    daemon.wait_ready()
    deadline = time.time() + 60
    while "device=%s " % SOURCE not in daemon.stderr_text() or "grabbed keyboard" not in daemon.stderr_text():
        assert time.time() < deadline, daemon.stderr_text()
        time.sleep(0.1)
    return [daemon.process], output


def start_vkbd_with_a_moving_focus(node):
    """vkbd with a session agent that moves the focus every 100 ms
    (Benchmarks/Latency/mover.c): each report makes the daemon choose a
    rule and configure the engine anew."""
    processes, output = start_vkbd(node, "/tmp/vkbd-bench-agent.yaml")
    mover = subprocess.Popen([tool("mover"), "/run/vkbd/agent.sock", "100"])
    deadline = time.time() + 120
    while '"app":"f' not in subprocess.run([os.environ["VKBD_BIN"], "status", "--json"], capture_output=True,
                                           text=True).stdout:
        assert time.time() < deadline, "the daemon never took the agent's report"
        time.sleep(0.1)
    return [mover] + processes, output


ROUNDS = 3
FIRST_KEYS = 10


def bench_latency_against_the_floor_and_interception_tools():
    default = subprocess.run([os.environ["VKBD_BIN"], "config", "--print-default"], capture_output=True, text=True)
    with open("/tmp/vkbd-bench-default.yaml", "w") as config:
        config.write(default.stdout)
    with open("/tmp/vkbd-bench-agent.yaml", "w") as config:
        config.write(default.stdout.replace("session_users: []", 'session_users: ["0"]'))
    with open("/tmp/vkbd-bench-off.yaml", "w") as config:
        config.write("autocapitalize: false\ndouble_space_period: false\nbackspace:\n  accelerate: false\nmatches: []\n")
    systems = [("C floor", start_floor), ("interception-tools", start_interception)]
    if os.path.exists(KEYD):
        systems.append(("keyd 2.6.0, pass-through", start_keyd))
        systems.append(("keyd, under a seccomp filter", lambda node: start_keyd(node, filtered=True)))
    systems += [("vkbd, all aids + starter snippets", start_vkbd),
               ("vkbd, same, focus moves /100 ms", start_vkbd_with_a_moving_focus),
               ("vkbd, every aid and snippet off", lambda node: start_vkbd(node, "/tmp/vkbd-bench-off.yaml")),
               # Without CAP_SYS_NICE the daemon cannot enter SCHED_FIFO:
               # its loop as it ran before it did.
               ("vkbd, all aids, ordinary policy",
                lambda node: start_vkbd(node, prefix=["setpriv", "--bounding-set=-sys_nice", "--"]))]
    # Each system runs ROUNDS times, the rounds interleaved, so that the
    # noise of the guest (it comes in bursts) shows and falls on all alike.
    runs = {label: [] for label, _ in systems}
    for _ in range(ROUNDS):
        for label, start in systems:
            runs[label].append(measure(label, start))

    def median(values):
        return sorted(values)[len(values) // 2]

    def summary(label, fraction):
        return median([percentile(latencies, fraction) for latencies in runs[label]])

    def mean(label):
        """The mean of the middle 80 %: its ratio is not rounded to whole µs."""
        means = []
        for latencies in runs[label]:
            middle = sorted(latencies)[len(latencies) // 10:len(latencies) * 9 // 10]
            means.append(sum(middle) / len(middle))
        return median(means)

    floor = "C floor"
    print("  latency, source write to output kernel timestamp, %d keys every %d µs, %d interleaved runs each;"
          % (KEYS, INTERVAL_US, ROUNDS))
    print("  the median over the runs of each figure (µs):")
    print("  %-34s %5s %5s %5s %6s %7s %10s %10s %10s  %s" % (
        "system", "p50", "p90", "p99", "max", "mean80", "p50/floor", "p99/floor", "mean/floor", "p99 of each run"))
    for label, _ in systems:
        print("  %-34s %5d %5d %5d %6d %7.1f %10.2f %10.2f %10.2f  %s" % (
            label, summary(label, 0.5), summary(label, 0.9), summary(label, 0.99),
            median([max(latencies) for latencies in runs[label]]), mean(label),
            summary(label, 0.5) / summary(floor, 0.5), summary(label, 0.99) / summary(floor, 0.99),
            mean(label) / mean(floor), " ".join(str(percentile(latencies, 0.99)) for latencies in runs[label])))
    # Each run starts its system afresh: its first keys are the first the
    # system ever handles, where whatever is built on first use shows.
    print("  the first %d keys after the system started (press and release each), the largest latency of each run"
          " beside that run's p99 (µs):" % FIRST_KEYS)
    for label, _ in systems:
        print("  %-34s %s" % (label, "  ".join("%d (p99 %d)" % (max(latencies[:2 * FIRST_KEYS]),
                                                               percentile(latencies, 0.99))
                                                for latencies in runs[label])))


def system_calls(start, keys=500):
    """The system calls the process `start` starts makes while `keys` keys
    stream through it (strace -c attached to it): {name: calls}."""
    source = subprocess.Popen([tool("source"), SOURCE, str(keys), str(INTERVAL_US)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    wait_line(source.stderr, "source: ready")
    node = vmlib.wait_for_device(SOURCE).path
    system, output_name = start(node)
    probe = vmlib.start_probe(output_name, node, 2 * keys)
    tracer = subprocess.Popen(["strace", "-f", "-c", "-U", "calls,name", "-o", "/tmp/strace.txt",
                               "-p", str(system[-1].pid)], stderr=subprocess.PIPE, text=True)
    time.sleep(2)  # attached
    source.send_signal(signal.SIGUSR1)
    source.communicate(timeout=300)
    lines = vmlib.probe_lines(probe)
    assert "dropped" not in lines and len(lines) == 2 * keys, "%d of %d events" % (len(lines), 2 * keys)
    tracer.send_signal(signal.SIGINT)
    tracer.wait(timeout=60)
    for process in system:
        process.send_signal(signal.SIGTERM)
        process.wait(timeout=30)
    calls = {}
    for line in open("/tmp/strace.txt"):
        fields = line.split()
        if len(fields) == 2 and fields[0].isdigit() and fields[1] != "total":
            calls[fields[1]] = int(fields[0])
    return calls


def bench_system_calls_per_key():
    """The system calls per key (a press and a release) of the C floor, keyd
    (when it is there) and vkbd, over the same stream of 500 keys."""
    with open("/tmp/vkbd-bench-default.yaml", "w") as config:
        config.write(subprocess.run([os.environ["VKBD_BIN"], "config", "--print-default"], capture_output=True,
                                    text=True).stdout)
    systems = [("C floor", start_floor)]
    if os.path.exists(KEYD):
        systems.append(("keyd 2.6.0, pass-through", start_keyd))
    systems.append(("vkbd, all aids + starter snippets", start_vkbd))
    print("  system calls per key (a press and a release), strace -c over 500 keys:")
    for label, start in systems:
        calls = system_calls(start)
        total = sum(calls.values()) / 500
        each = ", ".join("%s %.2f" % (name, count / 500) for name, count in
                         sorted(calls.items(), key=lambda item: -item[1]) if count >= 50)
        print("  %-34s %5.2f  (%s)" % (label, total, each))


def bench_pointer_motion_of_a_keyboard_that_is_also_a_pointer():
    """A keyboard with a touchpad moving at 1,000 Hz: its frames read on
    the device itself (the direct path: no one in between), through the C
    floor, and through vkbd's virtual pointer; three interleaved rounds."""
    with open("/tmp/vkbd-bench-default.yaml", "w") as config:
        config.write(subprocess.run([os.environ["VKBD_BIN"], "config", "--print-default"], capture_output=True,
                                    text=True).stdout)
    systems = [("direct (the device itself)", lambda node: (None, SOURCE)), ("C floor", start_floor),
               ("vkbd, all aids + starter snippets", lambda node: start_vkbd(node, output="vkbd virtual pointer"))]
    runs = {label: [] for label, _ in systems}
    for _ in range(ROUNDS):
        for label, start in systems:
            runs[label].append(measure(label, start, pointer=True))
    print("  pointer motion, source write to output kernel timestamp, %d frames every %d µs, %d runs each;"
          % (MOVES, MOVE_INTERVAL_US, ROUNDS))
    print("  the median over the runs (µs):")
    print("  %-34s %5s %5s %6s %10s %10s" % ("system", "p50", "p99", "max", "p50/direct", "p99/direct"))

    def median_of(label, figure):
        return sorted(figure(latencies) for latencies in runs[label])[ROUNDS // 2]

    direct = systems[0][0]
    for label, _ in systems:
        p50, p99 = (median_of(label, lambda values, f=f: percentile(values, f)) for f in (0.5, 0.99))
        print("  %-34s %5d %5d %6d %10.2f %10.2f" % (
            label, p50, p99, median_of(label, max), p50 / max(1, median_of(direct, lambda v: percentile(v, 0.5))),
            p99 / max(1, median_of(direct, lambda v: percentile(v, 0.99)))))


TEXT = ("the quick brown fox jumps over the lazy dog, " * 50)[:2000]


def read_typed(probe):
    lines = vmlib.probe_lines(probe)
    events = [tuple(int(field) for field in line.split()) for line in lines if line and line != "dropped"]
    return events, "dropped" in lines


def bench_expansion_throughput_against_ydotool():
    config = "matches:\n  - trigger: ;long\n    replace: \"%s\"\n" % TEXT
    with vmlib.SourceKeyboard() as source:
        daemon = vmlib.Daemon(["run"], config_text=config)
        daemon.wait_ready()
        probe = vmlib.start_probe("vkbd virtual keyboard", "-", 100000)
        time.sleep(1)
        for code in (e.KEY_SEMICOLON, e.KEY_L, e.KEY_O, e.KEY_N, e.KEY_G):
            source.tap(code)
            time.sleep(0.1)
        events, dropped = read_typed(probe)
        daemon.stop(signal.SIGTERM)
    typed = Typist("us").typed([(c, v) for c, v, _ in events])
    # From the first Backspace (the trigger going) to the last character.
    begun = next(t for c, v, t in events if c == e.KEY_BACKSPACE)
    vkbd_rate = len(TEXT) / ((events[-1][2] - begun) / 1e6)
    assert not dropped and typed == TEXT, "vkbd: %d of %d characters right" % (
        sum(a == b for a, b in zip(typed, TEXT)), len(TEXT))

    probe = vmlib.start_probe("ydotool virtual device", "-", 100000, ready=False)
    started = time.time()
    ydotool = subprocess.run(["ydotool", "type", "--delay", "3000", "--key-delay", "0", TEXT],
                             capture_output=True, text=True, timeout=600)
    events, ydotool_dropped = read_typed(probe)
    ydotool_typed = Typist("us").typed([(c, v) for c, v, _ in events])
    ydotool_rate = len(TEXT) / ((events[-1][2] - events[0][2]) / 1e6) if len(events) > 1 else 0
    right = sum(a == b for a, b in zip(ydotool_typed, TEXT))
    print("  expansion of %d characters: vkbd %.0f characters/s, all %d right, in order, none lost"
          % (len(TEXT), vkbd_rate, len(TEXT)))
    print("  ydotool type --key-delay 0: %.0f characters/s, %d of %d right%s (%.0f s in all)" % (
        ydotool_rate, right, len(TEXT), ", the reader's buffer overflowed" if ydotool_dropped else "",
        time.time() - started))
    assert ydotool.returncode == 0, ydotool.stderr


PICKER_SNIPPETS = 100_000


def picker_match_file(path):
    """PICKER_SNIPPETS matches (the hub's size after duplicates), words drawn
    from 5,000 made-up ones as the engine benchmark's corpus is: a trigger,
    every third a label, a replacement of 4 to 30 words."""
    import random
    generator = random.Random(7)
    syllables = ["ka", "lo", "mi", "ne", "ru", "sa", "ti", "vo", "ber", "gen", "ster", "ing", "al", "on", "ex"]
    words = ["".join(generator.choice(syllables) for _ in range(generator.randint(2, 4))) for _ in range(5000)]
    with open(path, "w") as out:
        out.write("matches:\n")
        for index in range(PICKER_SNIPPETS):
            out.write('  - trigger: ":%s%d"\n' % (words[index % len(words)], index))
            if index % 3 == 0:
                out.write('    label: "%s"\n' % " ".join(generator.choice(words) for _ in range(3)))
            out.write('    replace: "%s"\n' % " ".join(generator.choice(words) for _ in range(generator.randint(4, 30))))


def bench_picker_first_rows_and_each_key_under_sway():
    """The snippet picker with 100,000 snippets, under sway with foot: from
    the chord's key-down (the source's write) to the agent's frame done
    (sway has drawn it), and from each query key's key-down to its new
    rows' frame done. Ten chords, each with a query of eight keys."""
    from test_desktop import Desktop, as_user
    from test_picker import chord, wait_frame
    from test_session import Process, agent_binary, type_us, wait_status
    picker_match_file("/tmp/vkbd-bench-picker.yml")
    config = 'layout:\n  layout: us\nsession_users: ["1000"]\nsnippets: [/tmp/vkbd-bench-picker.yml]\n'
    with vmlib.SourceKeyboard() as source:
        daemon = vmlib.Daemon(["run"], config_text=config)
        daemon.wait_ready(timeout=900)
        desktop = Desktop(layout="us")
        try:
            agent = Process(as_user([agent_binary(), "--log-level", "debug"], desktop.client_env()))
            wait_status(lambda report: any(a["active"] and a.get("picker") for a in report["focus"]["agents"]),
                        "an agent that shows the picker", timeout=300)
            opened, keys = [], []
            for _ in range(10):
                down = chord(source)
                opened.append(wait_frame(agent, down) - down)
                for letter in "kalo ste":
                    before = time.monotonic()
                    type_us(source, letter, gap=0)
                    keys.append(wait_frame(agent, before) - before)
                source.tap(e.KEY_ESC)
                time.sleep(0.5)
            report = subprocess.run([os.environ["VKBD_BIN"], "status"], capture_output=True, text=True).stdout
            index = [line for line in report.splitlines() if line.startswith("snippets")]

            def line(label, values):
                values = sorted(value * 1000 for value in values)
                return "  %-52s median %6.1f ms  p90 %6.1f ms  max %6.1f ms" % (
                    label, values[len(values) // 2], values[int(len(values) * 0.9)], values[-1])
            print("  the picker under sway, %d snippets (%s), guest time:" % (PICKER_SNIPPETS,
                                                                             index[0] if index else "?"))
            print(line("chord key-down to the first rows drawn (10)", opened))
            print(line("query key-down to its rows drawn (80)", keys))
        finally:
            desktop.close()
            daemon.stop()


def user_instructions(command, ready, keys=500):
    """The user-space instructions `command` runs while `keys` keys stream
    through it, one every 10 ms so that the slowed process keeps up
    (valgrind's callgrind, counted from the system's start to its last
    event, before its source goes). `ready` waits until the system has
    the source and names its output device."""
    source = subprocess.Popen([tool("source"), SOURCE, str(keys), "10000"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    wait_line(source.stderr, "source: ready")
    node = vmlib.wait_for_device(SOURCE).path
    log = open("/tmp/callgrind-log.txt", "w+")
    process = subprocess.Popen(["valgrind", "--tool=callgrind", "--callgrind-out-file=/tmp/callgrind.out",
                                *[part.replace("NODE", node) for part in command]], stdout=log, stderr=log)
    output_name = ready(process)
    time.sleep(3)
    probe = vmlib.start_probe(output_name, node, 2 * keys)

    def control(option):
        answer = subprocess.run(["callgrind_control", option, str(process.pid)], capture_output=True, text=True)
        assert answer.returncode == 0 and "OK" in answer.stdout, answer.stdout + answer.stderr
    control("-z")
    source.send_signal(signal.SIGUSR1)
    lines = vmlib.probe_lines(probe)
    control("-d")  # the source waits a second before it goes
    source.communicate(timeout=600)
    assert "dropped" not in lines and len(lines) == 2 * keys, "%d of %d events" % (len(lines), 2 * keys)
    process.send_signal(signal.SIGTERM)
    process.wait(timeout=120)
    path = "/tmp/callgrind.out.1"
    assert os.path.exists(path), open("/tmp/callgrind-log.txt").read()
    with open(path) as dump:
        total = int(next(line for line in dump if line.startswith("summary:")).split()[1])
    for name in os.listdir("/tmp"):
        if name.startswith("callgrind.out"):
            os.remove("/tmp/" + name)
    return total


def bench_instructions_per_key():
    """User-space instructions per key event (half a key) of the floor, keyd
    and vkbd, with callgrind, over the same stream of 500 keys."""
    with open("/tmp/vkbd-bench-default.yaml", "w") as config:
        config.write(subprocess.run([os.environ["VKBD_BIN"], "config", "--print-default"], capture_output=True,
                                    text=True).stdout)

    def floor_ready(process):
        vmlib.wait_for_device("vkbd latency floor", timeout=120)
        return "vkbd latency floor"

    def keyd_ready(process):
        vmlib.wait_for_device("keyd virtual keyboard", timeout=120)
        return "keyd virtual keyboard"

    def vkbd_ready(process):
        deadline = time.time() + 300
        while "grabbed keyboard" not in open("/tmp/callgrind-log.txt").read():
            assert time.time() < deadline and process.poll() is None, open("/tmp/callgrind-log.txt").read()
            time.sleep(0.5)
        return "vkbd virtual keyboard"

    systems = [("C floor", [tool("floor"), "NODE"], floor_ready)]
    if os.path.exists(KEYD):
        os.makedirs("/tmp/keyd-config", exist_ok=True)
        with open("/tmp/keyd-config/default.conf", "w") as config:
            config.write("[ids]\n*\n\n[main]\n")
        systems.append(("keyd 2.6.0, pass-through", [KEYD], keyd_ready))
    # valgrind 3.19 reads no DWARF 5: a copy without the debugging
    # information, its symbols kept, names the functions.
    subprocess.run(["objcopy", "--strip-debug", os.environ["VKBD_BIN"], "/tmp/vkbd-symbols"], check=True)
    systems.append(("vkbd, all aids + starter snippets",
                    ["/tmp/vkbd-symbols", "run", "--config", "/tmp/vkbd-bench-default.yaml"], vkbd_ready))
    print("  user-space instructions per key event (half a key), callgrind over 500 keys:")
    for label, command, ready in systems:
        total = user_instructions(command, ready)
        print("  %-34s %8.0f" % (label, total / 1000))


