"""The files `make install` puts on a system, proven with the tools that read
them: libinput's quirks and udev's rules, on vkbd's live virtual keyboard."""

import os
import shutil
import signal
import subprocess
import tempfile

import vmlib
from vmlib.daemon import PLAIN, VIRTUAL, started

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def virtual_keyboard_node():
    return vmlib.wait_for_device(VIRTUAL).path


def test_the_libinput_quirk_makes_the_virtual_keyboard_internal():
    daemon, reader = started(PLAIN)
    quirks = tempfile.mkdtemp()
    shutil.copy(os.path.join(REPO, "udev-rules", "50-vkbd.quirks"), quirks)
    listed = subprocess.run(["libinput", "quirks", "list", "--data-dir", quirks, virtual_keyboard_node()],
                            capture_output=True, text=True, timeout=60)
    assert "AttrKeyboardIntegration=internal" in listed.stdout, listed
    print("  libinput quirks list %s: %s" % (virtual_keyboard_node(), listed.stdout.strip()))
    daemon.stop(signal.SIGTERM)


def test_the_udev_rule_marks_the_virtual_keyboard():
    daemon, reader = started(PLAIN)
    # The host's /etc is read-only here: a tmpfs over the rules directory
    # holds the rule, as `make install` would put it.
    rules = "/etc/udev/rules.d"
    subprocess.run(["mount", "-t", "tmpfs", "rules", rules], check=True)
    tested_nodes = [virtual_keyboard_node()]
    try:
        shutil.copy(os.path.join(REPO, "udev-rules", "70-vkbd.rules"), rules)
        event = os.path.basename(virtual_keyboard_node())
        tested = subprocess.run(["udevadm", "test", "--action=add", "/sys/class/input/" + event],
                                capture_output=True, text=True, timeout=120)
        properties = tested.stdout + tested.stderr
        assert "VKBD_VIRTUAL=1" in properties and "VKBD_IGNORE=1" in properties, properties[-2000:]
        source = vmlib.SourceKeyboard()
        tested_nodes.append(source.device().path)
        other = os.path.basename(source.device().path)
        untouched = subprocess.run(["udevadm", "test", "--action=add", "/sys/class/input/" + other],
                                   capture_output=True, text=True, timeout=120)
        assert "VKBD_VIRTUAL" not in untouched.stdout + untouched.stderr
        print("  udevadm test %s: VKBD_VIRTUAL=1 VKBD_IGNORE=1" % event)
    finally:
        subprocess.run(["umount", rules])
        vmlib.forget_udev_data(tested_nodes)
    daemon.stop(signal.SIGTERM)
