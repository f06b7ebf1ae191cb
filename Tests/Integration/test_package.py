"""The Debian package (`make deb`, built by `make package-test` before the
VM suite): installed with dpkg in a writable copy of the system (an overlay
over the host's read-only root, chrooted into), then upgraded to from an
older version, removed and purged. udev and libinput, in the copy, find its
rule and quirk on vkbd's live virtual keyboard."""

import glob
import os
import signal
import subprocess

import vmlib
from vmlib.daemon import PLAIN, VIRTUAL, started

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SYSTEM = "/tmp/package-system"

INSTALLED = ["usr/bin/vkbd", "usr/bin/vkbd-agent", "usr/lib/vkbd/vkbd-fetch", "usr/share/man/man8/vkbd.8.gz", "usr/share/man/man5/vkbd.yaml.5.gz",
             "usr/share/man/man1/vkbd-agent.1.gz", "usr/lib/udev/rules.d/70-vkbd.rules",
             "usr/share/libinput/50-vkbd.quirks", "usr/lib/systemd/system/vkbd.service",
             "usr/lib/systemd/user/vkbd-agent.service", "etc/xdg/autostart/vkbd-agent.desktop",
             "usr/share/applications/vkbd-agent-kwin.desktop",
             "usr/lib/modules-load.d/vkbd.conf", "usr/share/vkbd/config.yaml", "usr/share/doc/vkbd/copyright",
             "usr/share/doc/vkbd/changelog.Debian.gz", "usr/share/bash-completion/completions/vkbd"]


def package(older=False):
    found = glob.glob(os.path.join(REPO, ".build/deb", "older" if older else "", "vkbd_*.deb"))
    assert len(found) == 1, "no package in .build/deb: `make package-test` builds it before the VM suite"
    return found[0]


def in_system(*command, check=True):
    """Runs `command` chrooted into the writable copy."""
    result = subprocess.run(["chroot", SYSTEM, *command], capture_output=True, text=True, timeout=300)
    assert result.returncode == 0 or not check, "%s: %s%s" % (" ".join(command), result.stdout, result.stderr)
    return result


def changed():
    """What the copy has that the host has not (the overlay's upper layer),
    dpkg's own records and logs left out."""
    upper = SYSTEM + "-upper"
    paths = []
    for directory, _, files in os.walk(upper):
        for name in files:
            path = os.path.relpath(os.path.join(directory, name), upper)
            if not path.startswith(("var/lib/dpkg/", "var/log/", "var/cache/")):
                paths.append(path)
    return sorted(paths)


def test_the_package_installs_upgrades_removes_and_purges():
    for path in (SYSTEM, SYSTEM + "-upper", SYSTEM + "-work"):
        os.makedirs(path, exist_ok=True)
    subprocess.run(["mount", "-t", "overlay", "package", "-o", "lowerdir=/,upperdir=%s-upper,workdir=%s-work"
                    % (SYSTEM, SYSTEM), SYSTEM], check=True)
    mounted = [SYSTEM]
    try:
        for kind, where in (("proc", "proc"), ("sysfs", "sys"), ("devtmpfs", "dev"), ("tmpfs", "tmp"),
                            ("tmpfs", "run")):
            subprocess.run(["mount", "-t", kind, kind, os.path.join(SYSTEM, where)], check=True)
            mounted.append(os.path.join(SYSTEM, where))
        os.makedirs(SYSTEM + "/packages", exist_ok=True)
        subprocess.run(["mount", "-t", "tmpfs", "packages", SYSTEM + "/packages"], check=True)
        mounted.append(SYSTEM + "/packages")
        for older in (True, False):
            subprocess.run(["cp", package(older), SYSTEM + "/packages/"], check=True)
        older, newer = ("/packages/" + os.path.basename(package(o)) for o in (True, False))
        # man-db's trigger would index every manual of the copy over 9p for
        # minutes: it runs only while this file exists.
        if os.path.exists(SYSTEM + "/var/lib/man-db/auto-update"):
            os.unlink(SYSTEM + "/var/lib/man-db/auto-update")
        before = changed()

        # An older version first, then the upgrade.
        in_system("dpkg", "--force-unsafe-io", "-i", older)
        assert in_system("dpkg-query", "-W", "-f", "${Version}", "vkbd").stdout == "0.0.9-1"
        upgraded = in_system("dpkg", "--force-unsafe-io", "-i", newer)
        version = in_system("dpkg-query", "-W", "-f", "${Version}", "vkbd").stdout
        assert version.endswith("-1") and version != "0.0.9-1", version
        for path in INSTALLED:
            assert os.path.getsize(os.path.join(SYSTEM, path)) > 0, path
        assert in_system("vkbd", "--version").stdout.strip() + "-1" == version
        # Enabled for the next boot (no systemd runs in the copy).
        assert os.path.islink(SYSTEM + "/etc/systemd/system/multi-user.target.wants/vkbd.service")
        assert glob.glob(SYSTEM + "/etc/systemd/user/*.wants/vkbd-agent.service"), changed()

        # udev and libinput of the copy, on the live virtual keyboard.
        daemon, reader = started(PLAIN)
        node = vmlib.wait_for_device(VIRTUAL).path
        tested = in_system("udevadm", "test", "--action=add", "/sys/class/input/" + os.path.basename(node),
                           check=False)
        assert "VKBD_VIRTUAL=1" in tested.stdout + tested.stderr, (tested.stdout + tested.stderr)[-2000:]
        quirks = in_system("libinput", "quirks", "list", node)
        assert "AttrKeyboardIntegration=internal" in quirks.stdout, quirks
        # What udevadm test wrote there goes with the copy's own /run.
        daemon.stop(signal.SIGTERM)

        # The admin's own config stays through remove and purge.
        os.makedirs(SYSTEM + "/etc/vkbd", exist_ok=True)
        with open(SYSTEM + "/etc/vkbd/config.yaml", "w") as config:
            config.write("autocapitalize: false\n")
        in_system("dpkg", "--force-unsafe-io", "-r", "vkbd")
        assert not os.path.exists(SYSTEM + "/usr/bin/vkbd")
        assert os.path.exists(SYSTEM + "/etc/xdg/autostart/vkbd-agent.desktop"), "a conffile stays until purge"
        in_system("dpkg", "--force-unsafe-io", "-P", "vkbd")
        # update-desktop-database (desktop-file-utils' trigger, for KWin's
        # input method entry) keeps the system's MIME cache: not the package's.
        left = [path for path in changed() if path not in before and path != "usr/share/applications/mimeinfo.cache"]
        assert left == ["etc/vkbd/config.yaml"], left
        print("  installed 0.0.9-1, upgraded to %s, removed and purged; left: %s" % (version, left))
        assert "error" not in upgraded.stderr.lower(), upgraded.stderr
    finally:
        for path in reversed(mounted):
            subprocess.run(["umount", "-l", path])
