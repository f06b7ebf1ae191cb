#!/usr/bin/env python3
"""`vkbd package` against a hub in espanso's format served on 127.0.0.1.

The good packages are real ones from espanso's hub (packages/, SOURCES.md),
packed as the hub's release does (make_hub.py). Beside them the index lists
bad ones this test serves: an archive whose checksum is wrong, zips whose
entries climb out with ../ or are symbolic links, a 1 GiB archive (with and
without a Content-Length), a package.yml that does not load, a server that
never answers, an index that is not JSON. After each failure nothing is
installed, nothing half, and no staging folder is left.

Usage: test_hub.py path/to/vkbd   (vkbd-fetch beside it)
"""

import http.server
import importlib.util
import io
import json
import os
import shutil
import socketserver
import stat
import subprocess
import sys
import tempfile
import threading
import time
import zipfile

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("make_hub", os.path.join(HERE, "make_hub.py"))
make_hub = importlib.util.module_from_spec(spec)
spec.loader.exec_module(make_hub)

sys.path.insert(0, os.path.dirname(HERE))
from checks import Checks  # noqa: E402

VKBD = os.path.abspath(sys.argv[1])
check = Checks()


def zip_bytes(entries):
    """entries: (name, data, mode); mode with S_IFLNK makes a symbolic link."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, data, mode in entries:
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.external_attr = mode << 16
            info.create_system = 3
            archive.writestr(info, data)
    return buffer.getvalue()


def manifest(name, version="0.1.0"):
    return (f"name: {name}\ntitle: {name}\ndescription: a test package\nversion: {version}\n"
            "author: vkbd's tests\n").encode()


GOOD_MATCHES = b'matches:\n  - trigger: ":vkbdtest"\n    replace: "served"\n'

# Bad packages: name -> zip bytes (a real SHA-256 is served for each, so the
# archive itself is what is refused).
BAD = {
    "climber": zip_bytes([("_manifest.yml", manifest("climber"), 0o100644),
                          ("package.yml", GOOD_MATCHES, 0o100644),
                          ("../../escaped.yml", GOOD_MATCHES, 0o100644)]),
    "linker": zip_bytes([("_manifest.yml", manifest("linker"), 0o100644),
                         ("package.yml", GOOD_MATCHES, 0o100644),
                         ("passwd.yml", b"/etc/passwd", 0o120777)]),
    "broken": zip_bytes([("_manifest.yml", manifest("broken"), 0o100644),
                         ("package.yml", b"matches:\n  - trigger: ':x'\n    replace: [unclosed\n", 0o100644)]),
    "impostor": zip_bytes([("_manifest.yml", manifest("basic-emojis"), 0o100644),
                           ("package.yml", GOOD_MATCHES, 0o100644)]),
    "nameless": zip_bytes([("package.yml", GOOD_MATCHES, 0o100644)]),
}
GIB = 1 << 30


class Hub(http.server.BaseHTTPRequestHandler):
    root = None
    index_override = None

    def log_message(self, *arguments):
        pass

    def send_body(self, body, content_type="application/octet-stream"):
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        name = self.path.lstrip("/")
        try:
            if name.startswith("moved.git/"):  # a repository that moved to another host
                self.send_response(301)
                self.send_header("Location", f"http://localhost:{self.server.server_port}/{name}")
                self.send_header("Content-Length", "0")
                self.end_headers()
                return
            if name == "package_index.json" and Hub.index_override is not None:
                return self.send_body(Hub.index_override, "application/json")
            if name == "garbage/package_index.json":
                return self.send_body(b"<html>not an index</html>", "text/html")
            if name == "hang.zip":
                time.sleep(30)
                return
            if name == "huge-sized.zip":  # says 1 GiB, then sends it
                self.send_response(200)
                self.send_header("Content-Length", str(GIB))
                self.end_headers()
                chunk = bytes(1 << 16)
                for _ in range(GIB // len(chunk)):
                    self.wfile.write(chunk)
                return
            if name == "huge-chunked.zip":  # no length: stopped by the count
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                chunk = bytes(1 << 16)
                for _ in range(GIB // len(chunk)):
                    self.wfile.write(b"%x\r\n" % len(chunk) + chunk + b"\r\n")
                return
            for bad, data in BAD.items():
                if name == f"{bad}.zip":
                    return self.send_body(data)
                if name == f"{bad}-sha256.txt":
                    import hashlib
                    return self.send_body(hashlib.sha256(data).hexdigest().encode())
            if name in ("hang-sha256.txt", "huge-sized-sha256.txt", "huge-chunked-sha256.txt"):
                return self.send_body(b"0" * 64)
            path = os.path.join(Hub.root, name)
            if "/" in name or not os.path.isfile(path):
                self.send_error(404)
                return
            with open(path, "rb") as file:
                self.send_body(file.read())
        except (BrokenPipeError, ConnectionResetError):
            pass


class Server(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def main():
    work = tempfile.mkdtemp(prefix="vkbd-hub-")
    hub = os.path.join(work, "hub")
    os.makedirs(hub)
    server = Server(("127.0.0.1", 0), Hub)
    base = f"http://127.0.0.1:{server.server_port}"
    Hub.root = hub
    make_hub.main([hub, base, "--corrupt-sha", "good-morning@0.1.0"])
    index_path = os.path.join(hub, "package_index.json")
    with open(index_path) as file:
        index = json.load(file)
    for bad in list(BAD) + ["hang", "huge-sized", "huge-chunked"]:
        index["packages"].append({
            "name": bad, "author": "tests", "description": "a bad package", "title": bad, "version": "0.1.0",
            "archive_url": f"{base}/{bad}.zip", "archive_sha256_url": f"{base}/{bad}-sha256.txt"})
    with open(index_path, "w") as file:
        json.dump(index, file)
    threading.Thread(target=server.serve_forever, daemon=True).start()

    environment = dict(os.environ, XDG_CONFIG_HOME=os.path.join(work, "config"),
                       XDG_CACHE_HOME=os.path.join(work, "cache"), HOME=work)
    espanso = os.path.join(work, "config", "espanso")
    packages = os.path.join(espanso, "match", "packages")
    hub_option = ["--hub", f"{base}/package_index.json"]

    def vkbd(*arguments, timeout=120):
        started = time.monotonic()
        run = subprocess.run([VKBD, "package", *arguments], env=environment, capture_output=True, text=True,
                             timeout=timeout)
        return run.returncode, run.stdout + run.stderr, time.monotonic() - started

    def installed():
        return sorted(os.listdir(packages)) if os.path.isdir(packages) else []

    def nothing_left_over():
        return not [name for name in (os.listdir(espanso) if os.path.isdir(espanso) else [])
                    if name.startswith(".vkbd-staging")]

    try:
        status, output, _ = vkbd("install", "basic-emojis", *hub_option)
        check(status == 0 and "installed basic-emojis 0.1.0 (13 snippets)" in output, "installs a real hub package: "
              + output.strip())
        folder = os.path.join(packages, "basic-emojis")
        check(sorted(os.listdir(folder)) == ["README.md", "_manifest.yml", "_pkgsource.yml", "package.yml"],
              "the package's files are where espanso keeps them, with espanso's _pkgsource.yml")
        with open(os.path.join(folder, "_pkgsource.yml")) as file:
            check(file.read() == "---\nhub\n", "_pkgsource.yml says hub, as espanso writes it")
        with open(os.path.join(HERE, "packages", "basic-emojis", "0.1.0", "package.yml"), "rb") as original, \
                open(os.path.join(folder, "package.yml"), "rb") as copy:
            check(original.read() == copy.read(), "package.yml is byte for byte the hub's")

        status, output, _ = vkbd("install", "calc", "--version", "0.1.0", *hub_option)
        check(status == 0 and "installed calc 0.1.0" in output, "--version installs the version named")
        status, output, _ = vkbd("install", "calc", *hub_option)
        check(status == 1 and "already installed" in output, "installing again says it is installed")
        status, output, _ = vkbd("list", "--json")
        listed = {package["name"]: package for package in json.loads(output.splitlines()[-1])}
        check(listed["calc"]["version"] == "0.1.0" and listed["calc"]["source"] == "hub", "list --json: " + output)
        status, output, _ = vkbd("update", *hub_option)
        check(status == 0 and "calc: 0.1.0 → 1.0.0" in output and "basic-emojis: 0.1.0 is the newest" in output,
              "update takes calc to its highest version and leaves the newest alone: " + output.strip())
        with open(os.path.join(packages, "calc", "_manifest.yml")) as file:
            check("version: 1.0.0" in file.read(), "the updated calc is 1.0.0 on disk")

        before = installed()
        cases = [
            ("good-morning", "SHA-256", 65, "an archive whose checksum is wrong"),
            ("climber", "outside its folder", 65, "a zip entry that climbs out with ../"),
            ("linker", "symbolic link", 65, "a zip entry that is a symbolic link"),
            ("huge-sized", "larger than", 65, "a 1 GiB archive with its length"),
            ("huge-chunked", "larger than", 65, "a 1 GiB archive without a length"),
            ("broken", "broken/package.yml:4:1: YAML", 65, "a package.yml that does not load"),
            ("impostor", "the package is basic-emojis 0.1.0, the index says impostor", 65,
             "an archive of another package"),
            ("nameless", "no _manifest.yml", 65, "an archive without a manifest"),
            ("nothere", "has no package nothere", 1, "a package the hub does not have"),
        ]
        for name, expected, expected_status, what in cases:
            status, output, took = vkbd("install", name, *hub_option)
            check(status == expected_status and expected in output and installed() == before and nothing_left_over(),
                  f"refuses {what}, installs nothing: exit {status}, {output.strip()!r} ({took:.1f} s)")
        check(not os.path.exists(os.path.join(work, "escaped.yml"))
              and not os.path.exists(os.path.join(espanso, "escaped.yml")), "nothing was written outside")

        status, output, took = vkbd("install", "hang", "--timeout", "2", *hub_option)
        check(status == 69 and "no answer within 2 s" in output and took < 20 and installed() == before,
              f"a server that never answers is given up after the timeout: {output.strip()!r} ({took:.1f} s)")

        status, output, _ = vkbd("install", "../etc", *hub_option)
        check(status == 64 and "no package name" in output, "a name with a slash is refused: " + output.strip())
        status, output, _ = vkbd("install", "x", "--hub", f"{base}/garbage/package_index.json")
        check(status == 65 and "is not JSON" in output, "an index that is not JSON: " + output.strip())
        status, output, _ = vkbd("install", "x", "--hub", "http://127.0.0.1:9/package_index.json", "--timeout", "2")
        check(status == 69 and "127.0.0.1" in output, "a hub that is not there: " + output.strip())

        # The index is kept for an hour: a hub whose index broke since still
        # installs from the kept one; --refresh fetches it again.
        Hub.index_override = b"{\"last_update\": 1, \"packages\": \"nope\"}"
        status, output, _ = vkbd("install", "good-morning", "--force", *hub_option)
        check("SHA-256" in output, "within the hour the kept index is used: " + output.strip())
        status, output, _ = vkbd("install", "calc", "--force", "--refresh", *hub_option)
        check(status == 65 and "the value at .packages is of the wrong type" in output,
              "--refresh fetches the index again and names what is wrong: " + output.strip())
        Hub.index_override = None

        # A failed update leaves the installed version as it was.
        with open(os.path.join(packages, "calc", "_manifest.yml"), "r+") as file:
            text = file.read().replace("version: 1.0.0", "version: 0.0.1")
            file.seek(0)
            file.write(text)
            file.truncate()
        os.remove(os.path.join(hub, "calc-1.0.0.zip"))
        status, output, _ = vkbd("update", "calc", "--refresh", *hub_option)
        with open(os.path.join(packages, "calc", "_manifest.yml")) as file:
            kept = "version: 0.0.1" in file.read()
        check(status == 1 and "0.0.1 stays" in output and kept and nothing_left_over(),
              "a failed update keeps the installed version: " + output.strip())

        status, output, _ = vkbd("remove", "calc")
        check(status == 0 and "calc" not in installed() and nothing_left_over(), "remove takes the package away")
        status, output, _ = vkbd("remove", "calc")
        check(status == 1 and "not installed" in output, "removing what is not there says so")
        mode = stat.S_IMODE(os.stat(os.path.join(packages, "basic-emojis", "package.yml")).st_mode)
        check(mode == 0o644, f"unpacked files are 0644 ({oct(mode)})")
        git_packages(work, vkbd, base, installed, nothing_left_over, packages)
    finally:
        server.shutdown()
        shutil.rmtree(work, ignore_errors=True)
    return check.summary("hub")


def git(directory, *arguments, **keywords):
    return subprocess.run(["git", "-C", directory, "-c", "user.name=tests", "-c", "user.email=tests@localhost",
                           *arguments], check=True, capture_output=True, **keywords).stdout


def repository(path, files):
    """A git repository at `path` holding `files` (relative path -> bytes, or
    ("link", target) for a symbolic link), in one commit."""
    os.makedirs(path)
    git(path, "init", "--quiet", "--initial-branch=main")
    for name, data in files.items():
        target = os.path.join(path, name)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if isinstance(data, tuple):
            os.symlink(data[1], target)
        else:
            with open(target, "wb") as file:
                file.write(data)
    git(path, "add", "--all")
    git(path, "commit", "--quiet", "-m", "packages")
    return "file://" + path


def hub_folders(*names):
    """The real hub packages of packages/, laid out as espanso's hub
    repository lays them out (packages/NAME/VERSION/)."""
    files = {}
    for name in names:
        top = os.path.join(HERE, "packages", name)
        for folder, _, file_names in os.walk(top):
            for file_name in file_names:
                path = os.path.join(folder, file_name)
                with open(path, "rb") as file:
                    files[f"packages/{name}/{os.path.relpath(path, top)}"] = file.read()
    return files


def git_packages(work, vkbd, base, installed, nothing_left_over, packages):
    """`vkbd package install NAME --git URL`: espanso's external packages."""
    repositories = os.path.join(work, "repositories")
    hub_repository = repository(os.path.join(repositories, "hub"), hub_folders("calc", "good-morning"))
    status, output, _ = vkbd("install", "calc", "--git", hub_repository, "--external")
    check(status == 0 and "installed calc 1.0.0" in output,
          "--git installs the highest version of the package its manifests name: " + output.strip())
    with open(os.path.join(packages, "calc", "_pkgsource.yml")) as file:
        record = file.read()
    check(record == f'---\ngit:\n  repo_url: "{hub_repository}"\n  repo_branch: ~\n  use_native_git: true\n',
          "_pkgsource.yml records the repository as espanso does: " + record)
    status, output, _ = vkbd("list", "--json")
    listed = {package["name"]: package for package in json.loads(output.splitlines()[-1])}
    check(listed["calc"]["source"] == "git" and listed["calc"]["version"] == "1.0.0", "list says git")
    status, output, _ = vkbd("install", "good-morning", "--git", hub_repository, "--version", "0.1.0")
    check(status == 0 and "installed good-morning 0.1.0" in output, "--version with --git: " + output.strip())

    # update clones it again and installs a new version, then says the newest.
    bumped = os.path.join(repositories, "hub", "packages", "calc", "1.0.1")
    shutil.copytree(os.path.join(repositories, "hub", "packages", "calc", "1.0.0"), bumped)
    with open(os.path.join(bumped, "_manifest.yml"), "r+") as file:
        text = file.read().replace("version: 1.0.0", "version: 1.0.1")
        file.seek(0)
        file.write(text)
        file.truncate()
    git(os.path.join(repositories, "hub"), "add", "--all")
    git(os.path.join(repositories, "hub"), "commit", "--quiet", "-m", "calc 1.0.1")
    status, output, _ = vkbd("update", "calc", "--hub", "http://127.0.0.1:9/unused.json")
    check(status == 0 and "calc: 1.0.0 → 1.0.1" in output, "update fetches a git package again: " + output.strip())
    status, output, _ = vkbd("update", "calc", "--hub", "http://127.0.0.1:9/unused.json")
    check(status == 0 and "calc: 1.0.1 is the newest" in output, "and then says it is the newest: " + output.strip())

    # A package at the repository's root, with another branch.
    root_files = {"_manifest.yml": manifest("rooted", "2.0.0"), "package.yml": GOOD_MATCHES, "README.md": b"# rooted\n"}
    rooted = repository(os.path.join(repositories, "rooted"), root_files)
    git(os.path.join(repositories, "rooted"), "branch", "stable")
    status, output, _ = vkbd("install", "rooted", "--git", rooted, "--git-branch", "stable")
    check(status == 0 and sorted(os.listdir(os.path.join(packages, "rooted")))
          == ["README.md", "_manifest.yml", "_pkgsource.yml", "package.yml"],
          "a package at a repository's root is installed without git's folder: " + output.strip())

    before = installed()
    big = os.path.join(repositories, "big")
    repository(big, {"_manifest.yml": manifest("big"), "package.yml": GOOD_MATCHES})
    blob = subprocess.run(f"head -c {GIB} /dev/zero | git -C {big} hash-object -w --stdin", shell=True, check=True,
                          capture_output=True, text=True).stdout.strip()
    git(big, "update-index", "--add", "--cacheinfo", f"100644,{blob},huge.bin")
    git(big, "commit", "--quiet", "-m", "a 1 GiB file")
    climber = os.path.join(repositories, "climber")
    repository(climber, {"README.md": b"x\n"})
    data = git(climber, "hash-object", "-w", "--stdin", input=GOOD_MATCHES).decode().strip()
    manifest_blob = git(climber, "hash-object", "-w", "--stdin", input=manifest("climber")).decode().strip()
    tree = git(climber, "mktree", input=f"100644 blob {data}\t..\n100644 blob {manifest_blob}\t_manifest.yml\n"
               f"100644 blob {data}\tpackage.yml\n".encode()).decode().strip()
    commit = git(climber, "commit-tree", tree, "-m", "climbs out").decode().strip()
    git(climber, "update-ref", "refs/heads/main", commit)
    cases = [
        ("calc", "file:///nonexistent/repository", "git could not clone", 69, "a path that is no repository"),
        ("calc", f"{base}/nothing.git", "git could not clone", 69, "an http URL that is no repository"),
        ("calc", f"{base}/moved.git", "follows no redirect", 69, "a repository that redirects to another host"),
        ("linked", repository(os.path.join(repositories, "linked"), {
            "_manifest.yml": manifest("linked"), "package.yml": GOOD_MATCHES,
            "keys.yml": ("link", "/etc/passwd")}), "symbolic link (keys.yml)", 65, "a repository with a symbolic link"),
        ("climber", "file://" + climber, "git could not clone", 69, "a repository with a .. path"),
        ("big", "file://" + big, "holds a file over 32 MiB", 65, "a repository with a 1 GiB file"),
        ("absent", hub_repository, "holds no _manifest.yml naming absent", 65, "a repository without the package"),
        ("broken", repository(os.path.join(repositories, "broken"), {
            "_manifest.yml": manifest("broken"), "package.yml": b"matches:\n  - trigger: [unclosed\n"}),
         "do not load", 65, "a package whose match files do not load"),
        ("calc", "ssh://example.org/calc.git", "https://, http:// or file://", 64, "an ssh URL"),
    ]
    for name, url, expected, expected_status, what in cases:
        status, output, took = vkbd("install", name, "--force", "--git", url, "--timeout", "10")
        check(status == expected_status and expected in output and installed() == before and nothing_left_over(),
              f"--git refuses {what}, installs nothing: exit {status}, {output.strip()!r} ({took:.1f} s)")
    status, output, _ = vkbd("install", "calc", "--external")
    check(status == 64 and "go with --git" in output, "--external alone is refused: " + output.strip())


if __name__ == "__main__":
    sys.exit(main())
