"""`vkbd doctor` on a real kernel: every check green with the daemon, udev
with the project's rule, libinput with its quirk and an agent of the active
user; then each failure provoked once gives its line and exit 1."""

import json
import os
import shutil
import signal
import subprocess
import tempfile

import vmlib
from vmlib.daemon import PLAIN, started
from vmlib.desktop import RawAgent, wait_status

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def doctor(*arguments, namespace=None):
    """`vkbd doctor --json`: its checks by name, and its exit status.
    `namespace`: a shell command run first in a private mount namespace."""
    command = [os.environ["VKBD_BIN"], "doctor", "--json", *arguments]
    if namespace:
        command = ["unshare", "-m", "sh", "-c", namespace + ' && exec "$0" "$@"'] + command
    run = subprocess.run(command, capture_output=True, text=True, timeout=120)
    checks = {check["name"]: check for check in json.loads(run.stdout)}
    return checks, run.returncode


def test_doctor_is_green_when_all_is_well_and_names_each_failure():
    mounts = []
    # udev with the project's rule, libinput with its quirk (the host's are
    # read-only here: tmpfs over their directories, with what they held).
    saved = tempfile.mkdtemp()
    shutil.copytree("/usr/share/libinput", saved + "/libinput")
    for directory in ("/etc/udev/rules.d", "/usr/share/libinput"):
        subprocess.run(["mount", "-t", "tmpfs", "doctor", directory], check=True)
        mounts.append(directory)
    for name in os.listdir(saved + "/libinput"):
        shutil.copy(os.path.join(saved, "libinput", name), "/usr/share/libinput/")
    shutil.copy(os.path.join(REPO, "udev-rules", "70-vkbd.rules"), "/etc/udev/rules.d/")
    shutil.copy(os.path.join(REPO, "udev-rules", "50-vkbd.quirks"), "/usr/share/libinput/")
    os.environ["SYSTEMD_IGNORE_CHROOT"] = "1"
    subprocess.run(["/lib/systemd/systemd-udevd", "--daemon"], check=True)
    matches = tempfile.mkdtemp()
    with open(matches + "/base.yml", "w") as base:
        base.write('matches:\n  - trigger: ";hi"\n    replace: "hello"\n')
    config = PLAIN.replace("matches: []\n", "") + 'session_users: ["0"]\nsnippets:\n  - %s/base.yml\n' % matches
    agent = None
    try:
        with vmlib.SourceKeyboard() as source:
            daemon, reader = started(config, grabbed=source.name)
            subprocess.run(["udevadm", "settle", "--timeout=60"], check=True)
            agent = RawAgent(0)
            agent.send(type="hello", agent="0.1.0", source="test")
            wait_status(lambda report: any(a["active"] for a in report["focus"]["agents"]), "the agent")
            checks, status = doctor("--config", daemon.config_path)
            assert status == 0 and all(c["result"] == "ok" for c in checks.values()), checks
            assert list(checks) == ["uinput", "daemon", "keyboards", "udev", "libinput", "agent", "config",
                                    "snippets", "espanso", "spelling", "control socket"], list(checks)
            text = subprocess.run([os.environ["VKBD_BIN"], "doctor", "--config", daemon.config_path],
                                  capture_output=True, text=True).stdout
            print("  $ vkbd doctor\n" + "".join("  " + line + "\n" for line in text.splitlines()))

            def fails(name, *arguments, namespace=None):
                checks, status = doctor("--config", daemon.config_path, *arguments, namespace=namespace)
                assert status == 1 and checks[name]["result"] == "fail" and checks[name]["fix"], checks[name]
                others = [n for n, c in checks.items() if c["result"] == "fail" and n != name]
                assert not others, others
                print("  %s: %s → %s" % (name, checks[name]["detail"], checks[name]["fix"]))

            # A broken snippet file.
            with open(matches + "/base.yml", "w") as base:
                base.write("matches: [\n")
            fails("config")
            with open(matches + "/base.yml", "w") as base:
                base.write('matches:\n  - trigger: ";hi"\n    replace: "hello"\n')
            # The quirk file removed.
            os.unlink("/usr/share/libinput/50-vkbd.quirks")
            fails("libinput")
            shutil.copy(os.path.join(REPO, "udev-rules", "50-vkbd.quirks"), "/usr/share/libinput/")
            # No uinput: its node covered by a plain file (the module could
            # not be loaded again in this VM).
            fails("uinput", namespace="touch /tmp/no-uinput && mount --bind /tmp/no-uinput /dev/uinput")
            # The agent gone.
            agent.close()
            wait_status(lambda report: not report["focus"]["agents"], "the agent gone")
            fails("agent")
            # The daemon stopped.
            daemon.stop(signal.SIGTERM)
            checks, status = doctor("--config", daemon.config_path)
            assert status == 1 and checks["daemon"]["result"] == "fail", checks["daemon"]
            assert checks["keyboards"]["result"] == "skip", checks["keyboards"]
            # What is installed is read from disk: the rule and the quirk are.
            assert all(checks[name]["result"] == "ok" and "read from disk" in checks[name]["detail"]
                       for name in ("udev", "libinput")), checks
            assert "read from disk" in checks["agent"]["detail"], checks["agent"]
            print("  daemon: %s → %s" % (checks["daemon"]["detail"], checks["daemon"]["fix"]))
    finally:
        if agent is not None:
            agent.close()
        subprocess.run(["udevadm", "control", "--exit"])
        for directory in reversed(mounts):
            subprocess.run(["umount", directory])
        vmlib.forget_udevd()
