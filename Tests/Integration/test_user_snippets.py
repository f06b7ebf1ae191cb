"""The user's own espanso match files, on a real kernel in a sway session:
the agent reads them as the user, and the daemon expands them and follows
an edit."""

import os
import shutil
import subprocess
import time

import vmlib
from vmlib.daemon import started
from vmlib.desktop import DESKTOP, USER, Desktop, Process, agent_binary, as_user, type_us, wait_focus, wait_status

GROUP = "desktop"


def test_in_sway_the_users_own_espanso_snippets_expand_and_follow_an_edit():
    """A match file in the user's ~/.config/espanso/match/, which only the
    user can read: the agent reads it as the user and sends it, the daemon
    expands it in foot; the user edits it, without root, and the next
    expansion is the new one."""
    config_home = os.path.join(DESKTOP, "config")
    match = os.path.join(config_home, "espanso", "match")
    os.makedirs(match, exist_ok=True)
    for path in (config_home, os.path.dirname(match), match):
        os.chown(path, USER, USER)
        os.chmod(path, 0o700)
    base = os.path.join(match, "base.yml")

    def write_as_user(text):
        subprocess.run(["setpriv", "--reuid", str(USER), "--regid", str(USER), "--clear-groups", "sh", "-c",
                        "cat > %s.tmp && mv %s.tmp %s" % (base, base, base)], input=text, text=True, check=True)

    write_as_user('matches:\n  - trigger: "qqme"\n    replace: "mine first"\n')
    with vmlib.SourceKeyboard() as source:
        daemon, reader = started('session_users: ["%d"]\n' % USER, grabbed=source.name)
        desktop = Desktop(layout="us")
        environment = desktop.client_env() + ["XDG_CONFIG_HOME=" + config_home]
        agent = Process(as_user([agent_binary(), "--log-level", "debug"], environment))
        try:
            wait_status(lambda report: any(a["active"] for a in report["focus"]["agents"]), "the agent", timeout=90)
            deadline = time.time() + 60
            while vmlib.expansion_of("qqme") != "mine first":
                assert time.time() < deadline, "the user's snippet never loaded"
                time.sleep(0.2)
            assert desktop.swaymsg('[app_id="foot"] focus').returncode == 0
            wait_focus("foot")
            type_us(source, "qqme x\n")
            write_as_user('matches:\n  - trigger: "qqme"\n    replace: "mine second"\n')
            deadline = time.time() + 60
            while vmlib.expansion_of("qqme") != "mine second":
                assert time.time() < deadline, "the edit never took effect"
                time.sleep(0.2)
            type_us(source, "qqme y\n")
            deadline = time.time() + 60
            while desktop.lines()[:2] != ["mine first x", "mine second y"]:
                assert time.time() < deadline, "foot received %r" % desktop.lines()
                time.sleep(0.2)
            print("  foot received %r" % desktop.lines()[:2])
            log = daemon.stderr_text() + "\n".join(agent.lines)
            assert "mine" not in log, "a snippet's text reached a log"
        finally:
            desktop.close()
            daemon.stop()
            shutil.rmtree(os.path.dirname(match))  # the later tests' desktops share the config home
