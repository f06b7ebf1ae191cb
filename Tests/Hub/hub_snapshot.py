"""espanso's hub as it was published (Tests/Hub/espanso-hub.tar.xz, see
SOURCES.md): unpacked once under .cache/hub, and configs that name its match
files, for the benchmarks and the VM suite."""

import os
import subprocess

HERE = os.path.dirname(os.path.abspath(__file__))
ARCHIVE = os.path.join(HERE, "espanso-hub.tar.xz")
CACHE = os.path.join(HERE, "..", "..", ".cache", "hub")

# The four packages the VM's reload test loads: 37,178 snippets.
FOUR = ["translate-en-zh", "sf-symbols", "currency-symbols", "kaomoji"]


def unpacked():
    """The folder that holds `packages/`, unpacked from the archive when it
    is not yet (or older than the archive)."""
    root = os.path.realpath(CACHE)
    stamp = os.path.join(root, ".unpacked")
    if not os.path.exists(stamp) or os.path.getmtime(stamp) < os.path.getmtime(ARCHIVE):
        os.makedirs(root, exist_ok=True)
        subprocess.run(["tar", "-xJf", ARCHIVE, "-C", root], check=True)
        # The daemon refuses match files others could edit: root's, 0644.
        subprocess.run(["chmod", "-R", "go-w", root], check=True)
        open(stamp, "w").close()
    return root


def match_files(packages=None):
    """Every package.yml of the archive (of `packages` only, when given), in
    order of name and version."""
    root = unpacked()
    found = []
    for name in sorted(os.listdir(os.path.join(root, "packages"))):
        if packages is not None and name not in packages:
            continue
        for version in sorted(os.listdir(os.path.join(root, "packages", name))):
            path = os.path.join(root, "packages", name, version, "package.yml")
            if os.path.exists(path):
                found.append(path)
    return found


def config(packages=None, extra=""):
    """A vkbd config whose snippets are the match files of `packages` (every
    package when None)."""
    return extra + "snippets:\n" + "".join("  - %s\n" % path for path in match_files(packages))
