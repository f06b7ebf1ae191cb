"""`make bench`, the whole hub: espanso's hub as published (every package,
every version: Tests/Hub/espanso-hub.tar.xz) loaded natively by the release
build, the way the daemon loads it, in two halves that the daemon does at
once: `vkbd check` reads every file and builds the trigger trie, `vkbd search
--config` reads every file and builds the picker's index. Prints the median
and the best of RUNS wall times and the peak memory (maximum RSS) of each:
the machines here are shared, so the best is the steadier figure.

    python3 Benchmarks/hub_load.py .build-release/release/vkbd [--runs N] [--budget S] [--memory MIB]

With --budget and --memory it fails when the best time or the peak memory of
either is over them."""

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests", "Hub"))
import hub_snapshot  # noqa: E402


def run(command):
    """(seconds, peak RSS in MiB, stdout) of one run, the RSS from wait4."""
    start = time.perf_counter()
    child = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    output = child.stdout.read()
    _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - start
    return seconds, usage.ru_maxrss / 1024, output, os.waitstatus_to_exitcode(status)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkbd")
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--budget", type=float, help="the most seconds the best run may take")
    parser.add_argument("--memory", type=float, help="the most MiB of peak memory")
    options = parser.parse_args()
    config = os.path.join(hub_snapshot.unpacked(), "whole-hub.yaml")
    with open(config, "w") as file:
        file.write(hub_snapshot.config())
    files = len(hub_snapshot.match_files())
    failed = False
    for label, command in [
        ("vkbd check (files, trie)", [options.vkbd, "check", "--config", config]),
        ("vkbd search --config (files, picker index)", [options.vkbd, "search", "--config", config, "thank", "you"]),
    ]:
        runs = [run(command) for _ in range(options.runs)]
        times = sorted(seconds for seconds, _, _, _ in runs)
        peak = max(memory for _, memory, _, _ in runs)
        assert all(status == 0 for _, _, _, status in runs), "%s failed" % label
        summary = runs[0][2].strip().splitlines()[0 if "check" in label else -1]
        print("  whole hub, %s: best %.2f s, median %.2f s, peak %.1f MiB (%d match files; %s)" % (
            label, times[0], times[len(times) // 2], peak, files, summary[:110]))
        if options.budget is not None and times[0] > options.budget:
            print("    over the budget of %.2f s" % options.budget)
            failed = True
        if options.memory is not None and peak > options.memory:
            print("    over the memory of %.0f MiB" % options.memory)
            failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
