#!/usr/bin/python3
"""Runs the integration suite on a real Linux kernel: boots Debian's kernel in
QEMU (TCG) with the host's root file system read-only over 9p, runs
Tests/Integration/harness.py inside, and carries out the QMP commands the
guest tests ask for (`@@QMP {...}` lines on the serial console), so that they
can drive the VM's i8042 keyboard.

    vm.py [--vkbd PATH] [--timeout SECONDS] [-k PATTERN]

Exits 0 when every selected test passed."""

import argparse
import base64
import hashlib
import json
import os
import re
import shutil
import socket
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(REPO, ".cache", "vm")
PACKAGES = ["qemu-system-x86", "busybox-static", "cpio", "python3-evdev", "evtest", "libxkbcommon-tools",
            "util-linux", "xz-utils", "libinput-tools", "udev", "sway", "seatd", "foot", "fonts-dejavu-core",
            "interception-tools", "ydotool", "python3-gi", "gir1.2-gtk-3.0", "dbus", "xvfb", "openbox", "xdotool",
            "x11-utils", "x11-apps", "grim", "mako-notifier"]
MODULES = ["virtio_ring", "virtio", "virtio_pci_modern_dev", "virtio_pci_legacy_dev", "virtio_pci", "netfs",
           "fscache", "9pnet", "9pnet_virtio", "9p", "evdev", "uinput", "overlay"]


def log(message):
    print("vm: " + message, flush=True)


def run(command, **options):
    return subprocess.run(command, check=True, **options)


def kernel_package():
    output = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True, text=True).stdout
    match = re.search(r"Depends: (linux-image-[0-9][^\s]*)", output)
    if not match:
        run(["apt-get", "update", "-qq"])
        output = subprocess.run(["apt-cache", "depends", "linux-image-amd64"], capture_output=True, text=True).stdout
        match = re.search(r"Depends: (linux-image-[0-9][^\s]*)", output)
    if not match:
        sys.exit("vm: cannot find Debian's kernel package (apt-cache depends linux-image-amd64)")
    return match.group(1)


ARTIFACTS = os.path.join(CACHE, "artifacts")


def save_artifact(request):
    """A file a guest test gives the host (`@@FILE NAME BASE64`, see
    vmlib.save): a screenshot, kept under .cache/vm/artifacts."""
    name, _, data = request.partition(" ")
    name = os.path.basename(name) or "artifact"
    os.makedirs(ARTIFACTS, exist_ok=True)
    path = os.path.join(ARTIFACTS, name)
    with open(path, "wb") as out:
        out.write(base64.b64decode(data))
    print("vm: saved %s" % os.path.relpath(path, REPO), flush=True)


def prepare_kernel():
    """Debian's kernel, unpacked (not installed) under the cache."""
    package = kernel_package()
    version = package[len("linux-image-"):]
    root = os.path.join(CACHE, "kernel-" + version)
    vmlinuz = os.path.join(root, "boot", "vmlinuz-" + version)
    if not os.path.exists(vmlinuz):
        log("fetching %s" % package)
        downloads = os.path.join(CACHE, "debs")
        os.makedirs(downloads, exist_ok=True)
        run(["apt-get", "download", package], cwd=downloads)
        deb = next(name for name in os.listdir(downloads) if name.startswith(package + "_"))
        staging = root + ".partial"
        shutil.rmtree(staging, ignore_errors=True)
        run(["dpkg-deb", "-x", os.path.join(downloads, deb), staging])
        os.rename(staging, root)
    return version, root, vmlinuz


def find_module(root, version, name):
    base = os.path.join(root, "lib", "modules", version, "kernel")
    for directory, _, files in os.walk(base):
        for file in files:
            if file in (name + ".ko", name + ".ko.xz"):
                return os.path.join(directory, file)
    return None


def prepare_initramfs(version, root):
    """busybox, the modules the guest needs, and init.sh, as a cpio archive;
    rebuilt only when one of its inputs changes."""
    init = os.path.join(HERE, "init.sh")
    busybox = shutil.which("busybox") or "/bin/busybox"
    stamp = hashlib.sha256()
    for part in [version, " ".join(MODULES), open(init).read(), busybox]:
        stamp.update(part.encode())
    initramfs = os.path.join(CACHE, "initramfs-%s.cpio.gz" % stamp.hexdigest()[:16])
    if os.path.exists(initramfs):
        return initramfs
    log("building the initramfs")
    tree = os.path.join(CACHE, "initramfs")
    shutil.rmtree(tree, ignore_errors=True)
    for directory in ["bin", "modules", "proc", "sys", "dev", "host"]:
        os.makedirs(os.path.join(tree, directory))
    shutil.copy(busybox, os.path.join(tree, "bin", "busybox"))
    shutil.copy(init, os.path.join(tree, "init"))
    os.chmod(os.path.join(tree, "init"), 0o755)
    order = []
    for name in MODULES:
        path = find_module(root, version, name)
        if path is None:
            continue  # built into this kernel
        target = os.path.join(tree, "modules", name + ".ko")
        if path.endswith(".xz"):
            with open(target, "wb") as out:
                run(["xz", "-dc", path], stdout=out)
        else:
            shutil.copy(path, target)
        order.append(name)
    with open(os.path.join(tree, "modules", "order"), "w") as out:
        out.write("\n".join(order) + "\n")
    files = subprocess.run(["find", "."], cwd=tree, capture_output=True, check=True).stdout
    with open(initramfs + ".partial", "wb") as out:
        cpio = subprocess.Popen(["cpio", "-o", "-H", "newc", "--quiet"], cwd=tree, stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE)
        gzip = subprocess.Popen(["gzip", "-1"], stdin=cpio.stdout, stdout=out)
        cpio.stdin.write(files)
        cpio.stdin.close()
        cpio.stdout.close()
        gzip.wait()
        cpio.wait()
    os.rename(initramfs + ".partial", initramfs)
    return initramfs


class QMP:
    """QEMU's machine protocol, for the guest's `@@QMP` requests."""

    def __init__(self, path):
        self.path = path
        self.connection = None
        self.buffer = b""

    def connect(self):
        deadline = time.time() + 30
        while self.connection is None:
            try:
                connection = socket.socket(socket.AF_UNIX)
                connection.connect(self.path)
                self.connection = connection
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        self.receive()  # the greeting
        self.execute({"execute": "qmp_capabilities"})

    def receive(self):
        while b"\n" not in self.buffer:
            chunk = self.connection.recv(65536)
            if not chunk:
                raise OSError("QMP closed")
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def execute(self, command):
        self.connection.sendall(json.dumps(command).encode() + b"\n")
        while True:
            reply = self.receive()
            if "return" in reply or "error" in reply:
                return reply


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--vkbd", default=os.path.join(REPO, ".build", "debug", "vkbd"))
    parser.add_argument("--release", default=os.path.join(REPO, ".build-release", "release", "vkbd"),
                        help="the build the timing tests run (their clock counts instructions)")
    parser.add_argument("--timeout", type=int, default=1500)
    parser.add_argument("-k", dest="pattern", default="",
                        help="only the tests whose name holds PATTERN; with --bench, whose name starts bench_PATTERN")
    parser.add_argument("--tools", help="the project's C tools (probe, source, floor), for the tests that use them")
    parser.add_argument("--bench", action="store_true", help="run the benchmarks (bench_*.py) instead of the tests")
    parser.add_argument("--soak", type=int, default=1, help="repeat the load of the fault tests this many times")
    parser.add_argument("--prepare", action="store_true",
                        help="only install the packages, fetch the kernel and build the initramfs (make check does it"
                        " beside the builds)")
    options = parser.parse_args()
    if not re.fullmatch(r"[A-Za-z0-9_]*", options.pattern):
        sys.exit("vm: -k takes letters, digits and _")
    started = time.time()
    run([os.path.join(REPO, "scripts", "install-packages"), *PACKAGES])
    os.makedirs(CACHE, exist_ok=True)
    version, root, vmlinuz = prepare_kernel()
    initramfs = prepare_initramfs(version, root)
    # espanso's hub, unpacked here: the VM sees the host's files read-only.
    sys.path.insert(0, os.path.join(REPO, "Tests", "Hub"))
    import hub_snapshot
    hub_snapshot.unpacked()
    if options.prepare:
        return 0
    if options.bench:
        # Latency and throughput count instructions and skip idle time, so
        # they repeat from boot to boot; start-up waits on files over 9p,
        # so it needs the guest's clock to run on while the guest waits.
        boots = [("%s.bench_%s" % (module, options.pattern), icount)
                 for module, icount in [("bench_latency", "shift=0,sleep=off"), ("bench_startup", "shift=0")]
                 if "def bench_" + options.pattern in open(os.path.join(HERE, module + ".py")).read()]
        boots = [(select, icount, options.vkbd, "main") for select, icount in boots]
    else:
        # Two lanes of boots at once, each on a core of its own, of about
        # the same length: most tests that start a desktop session (over
        # half the suite's time, under emulation); then the timing tests, whose clock counts instructions
        # (as the benchmarks') and which run the release build, as users do,
        # followed by the rest of the suite.
        lanes = [[("desktop", None, options.vkbd)],
                 [("timing", "shift=0,sleep=off", options.release), ("main", None, options.vkbd)]]
        boots = [[(options.pattern or "-", icount, binary, group) for group, icount, binary in lane
                  if has_tests(group, options.pattern)] for lane in lanes]
        boots = [lane for lane in boots if lane]
    if options.bench:
        boots = [[entry] for entry in boots]
    results = {}

    def run_lane(index):
        for position, (select, icount, binary, group) in enumerate(boots[index]):
            # The first lane's lines stream; each other's follow, whole.
            results[index, position] = boot(options, version, vmlinuz, initramfs, select, icount, binary, group,
                                             stream=index == 0)

    threads = [threading.Thread(target=run_lane, args=(index,)) for index in range(len(boots))]
    for index, thread in enumerate(threads):
        thread.start()
        if options.bench:
            thread.join()  # one at a time: each boot's figures are its own
    for index, thread in enumerate(threads):
        thread.join()
        for position in range(len(boots[index])):
            if index > 0 and results.get((index, position)) is not None:
                print(results[index, position][2], end="", flush=True)
    passed = failed = 0
    for index, lane in enumerate(boots):
        for position, entry in enumerate(lane):
            if results.get((index, position)) is None:
                print("integration: the %s VM ended without a result (timeout %d s?) after %d s" % (
                    entry[3], options.timeout, time.time() - started))
                return 1
            passed += results[index, position][0]
            failed += results[index, position][1]
    print("vm: %d passed, %d failed; %d s with boot" % (passed, failed, time.time() - started), flush=True)
    return 0 if failed == 0 and passed > 0 else 1


def has_tests(group, pattern):
    """Whether a test of `group` (a module's GROUP, "main" by default) has
    `pattern` in its module.function name."""
    for name in sorted(os.listdir(HERE)):
        if not (name.startswith("test_") and name.endswith(".py")):
            continue
        text = open(os.path.join(HERE, name)).read()
        declared = re.search(r'^GROUP = "(\w+)"', text, re.M)
        if (declared.group(1) if declared else "main") != group:
            continue
        if any(pattern in "%s.%s" % (name[:-3], test) for test in re.findall(r"^def (test_\w+)", text, re.M)):
            return True
    return False


def boot(options, version, vmlinuz, initramfs, select, icount, binary, group, stream=True):
    """Boots the VM once to run the tests of `group` that `select` picks,
    with `binary`; returns (passed, failed, the lines it printed unless
    `stream`), or None when the VM ended without saying."""
    qmp_path = os.path.join(CACHE, "qmp-%d-%s.sock" % (os.getpid(), group))
    vkbd = os.path.abspath(binary)
    append = " ".join([
        "console=ttyS0", "quiet", "panic=-1", "vkbd.repo=" + REPO, "vkbd.bin=" + vkbd, "vkbd.select=" + select,
        "vkbd.group=" + group, "vkbd.tools=" + (os.path.abspath(options.tools) if options.tools else "-"),
        "vkbd.soak=%d" % options.soak,
    ])
    kept = []

    def show(line):
        if stream:
            print(line, flush=True)
        else:
            kept.append(line + "\n")
    command = [
        "qemu-system-x86_64", "-accel", "tcg", "-cpu", "max", "-smp", "1", "-m", "1024", "-nodefaults",
        "-no-reboot", "-display", "none", "-serial", "stdio", "-nic", "none",
        "-virtfs", "local,path=/,mount_tag=host,security_model=none,readonly=on,multidevs=remap",
        "-qmp", "unix:%s,server=on,wait=off" % qmp_path,
        "-kernel", vmlinuz, "-initrd", initramfs, "-append", append,
    ]
    if icount:
        command += ["-icount", icount]
    log("booting %s for the %s tests" % (version, group))
    qemu = subprocess.Popen(command, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    timer = threading.Timer(options.timeout, qemu.kill)
    timer.start()
    qmp = QMP(qmp_path)
    summary = None
    try:
        qmp.connect()
        for raw in qemu.stdout:
            line = raw.decode("utf-8", "replace").rstrip("\r\n")
            if line.startswith("@@QMP "):
                request = json.loads(line[len("@@QMP "):])
                time.sleep(request.get("delay_ms", 0) / 1000)
                reply = qmp.execute(request["command"])
                if "error" in reply:
                    show("vm: QMP error: %s" % reply["error"])
                continue
            if line.startswith("@@FILE "):
                save_artifact(line[len("@@FILE "):])
                continue
            show(line)
            match = re.match(r"integration: (\d+) passed, (\d+) failed", line)
            if match:
                summary = (int(match.group(1)), int(match.group(2)), "")
        qemu.wait()
    finally:
        timer.cancel()
        if qemu.poll() is None:
            qemu.kill()
        if os.path.exists(qmp_path):
            os.unlink(qmp_path)
    return summary and (summary[0], summary[1], "".join(kept))


if __name__ == "__main__":
    sys.exit(main())
