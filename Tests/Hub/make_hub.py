#!/usr/bin/env python3
"""Build a fake espanso hub "release" from the real packages in ./packages.

Usage:
    python3 make_hub.py OUTDIR BASE_URL [--packages DIR] [--last-update N]
                        [--corrupt-sha NAME@VERSION ...]

Writes into OUTDIR (flat, like https://github.com/espanso/hub/releases/latest/download/):
    package_index.json
    NAME-VERSION.zip
    NAME-VERSION-sha256.txt

This mirrors espanso/hub .github/scripts/publish_packages.py:
  * one index entry per packages/NAME/VERSION/_manifest.yml (all versions are listed;
    espanso picks the highest with natord, or the exact --version);
  * entry keys, in order: name, author, description, title, version, tags,
    archive_url, archive_sha256_url;
  * index = {"last_update": <int>, "packages": [...]}, written with json.dumps()
    defaults (", " / ": " separators, ensure_ascii) and no trailing newline;
  * the zip is shutil.make_archive(NAME-VERSION, "zip", root_dir=VERSION_DIR):
    ZIP_DEFLATED, entries relative to the version dir (no top-level folder),
    sub-directories get their own "dir/" entries (stored, listed before the files of
    the level that contains them, as os.walk + sorted(dirnames) does);
  * the sha file is the bare lowercase hex digest of the zip, NO newline
    (espanso compares it with `==`, without trimming).

Deterministic: files are added in sorted order with a fixed timestamp and fixed
modes (0644 files / 0755 dirs), last_update is fixed, so the same Python/zlib gives
byte-identical output. Tests should still read the digests from the generated
-sha256.txt files rather than hard-code them (another zlib could deflate differently).

No third-party modules needed (the manifests are flat YAML; a tiny parser is used).
"""

import argparse
import hashlib
import json
import os
import sys
import zipfile

FIXED_DATE_TIME = (2024, 1, 1, 0, 0, 0)
DEFAULT_LAST_UPDATE = 1704067200  # 2024-01-01T00:00:00Z
FILE_MODE = 0o100644
DIR_MODE = 0o040755


def _scalar(text):
    text = text.strip()
    if len(text) >= 2 and text[0] == text[-1] and text[0] in "\"'":
        inner = text[1:-1]
        if text[0] == '"':
            if "\\" in inner:
                raise ValueError(f"escape sequences not supported: {text!r}")
            return inner
        return inner.replace("''", "'")
    return text


def parse_manifest(path):
    """Parse the flat `key: value` YAML used by hub _manifest.yml files.

    Supports plain/quoted scalars and flow lists (tags: ["a", "b"]).
    Values are kept as strings (version "0.1.0" stays a string, as in espanso)."""
    result = {}
    with open(path, "r", encoding="utf-8") as f:
        for raw in f:
            line = raw.rstrip("\r\n")
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            if line[0] in " \t-":
                raise ValueError(f"{path}: unsupported YAML line: {line!r}")
            key, sep, value = line.partition(":")
            if not sep:
                raise ValueError(f"{path}: not a key/value line: {line!r}")
            value = value.strip()
            if value.startswith("[") and value.endswith("]"):
                body = value[1:-1].strip()
                result[key.strip()] = [_scalar(v) for v in body.split(",")] if body else []
            else:
                result[key.strip()] = _scalar(value)
    return result


def iter_tree(root):
    """Yield (arcname, fullpath, is_dir) like shutil._make_zipfile(root_dir=root)."""
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        rel = os.path.normpath(os.path.relpath(dirpath, root))
        for name in dirnames:
            arc = name if rel == os.curdir else f"{rel}/{name}"
            yield arc.replace(os.sep, "/") + "/", os.path.join(dirpath, name), True
        for name in sorted(filenames):
            full = os.path.join(dirpath, name)
            if os.path.isfile(full):
                arc = name if rel == os.curdir else f"{rel}/{name}"
                yield arc.replace(os.sep, "/"), full, False


def make_zip(version_dir, zip_path):
    with zipfile.ZipFile(zip_path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        for arcname, full, is_dir in iter_tree(version_dir):
            info = zipfile.ZipInfo(arcname, date_time=FIXED_DATE_TIME)
            info.create_system = 3  # Unix, as on the ubuntu CI runner
            if is_dir:
                info.external_attr = (DIR_MODE << 16) | 0x10
                info.compress_type = zipfile.ZIP_STORED
                info.file_size = info.compress_size = info.CRC = 0
                if hasattr(zf, "mkdir"):  # Python >= 3.11, what ZipFile.write uses
                    zf.mkdir(info)
                else:
                    zf.writestr(info, b"")
            else:
                info.external_attr = FILE_MODE << 16
                info.compress_type = zipfile.ZIP_DEFLATED
                with open(full, "rb") as f:
                    zf.writestr(info, f.read())


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(4096), b""):
            h.update(block)
    return h.hexdigest()


def main(argv=None):
    here = os.path.dirname(os.path.abspath(__file__))
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("outdir")
    ap.add_argument("base_url", help="e.g. http://127.0.0.1:8765 (files are referenced as BASE_URL/NAME-VERSION.zip)")
    ap.add_argument("--packages", default=os.path.join(here, "packages"),
                    help="hub-style packages/NAME/VERSION/ tree (default: ./packages next to this script)")
    ap.add_argument("--last-update", type=int, default=DEFAULT_LAST_UPDATE)
    ap.add_argument("--corrupt-sha", action="append", default=[], metavar="NAME@VERSION",
                    help="write a wrong digest for this package (signature-mismatch tests)")
    args = ap.parse_args(argv)

    base = args.base_url.rstrip("/")
    os.makedirs(args.outdir, exist_ok=True)

    manifests = []
    for name_dir in sorted(os.listdir(args.packages)):
        pdir = os.path.join(args.packages, name_dir)
        if not os.path.isdir(pdir):
            continue
        for ver_dir in sorted(os.listdir(pdir)):
            mpath = os.path.join(pdir, ver_dir, "_manifest.yml")
            if os.path.isfile(mpath):
                manifests.append((os.path.join(pdir, ver_dir), parse_manifest(mpath)))

    packages = []
    for version_dir, m in manifests:
        name, version = m["name"], m["version"]
        stem = f"{name}-{version}"
        zip_path = os.path.join(args.outdir, f"{stem}.zip")
        make_zip(version_dir, zip_path)
        digest = sha256_file(zip_path)
        if f"{name}@{version}" in args.corrupt_sha:
            digest = hashlib.sha256(b"corrupted").hexdigest()
        with open(os.path.join(args.outdir, f"{stem}-sha256.txt"), "w") as f:
            f.write(digest)  # bare hex, no newline -- exactly like publish_packages.py
        packages.append({
            "name": name,
            "author": m["author"],
            "description": m["description"],
            "title": m["title"],
            "version": version,
            "tags": m.get("tags", []),
            "archive_url": f"{base}/{stem}.zip",
            "archive_sha256_url": f"{base}/{stem}-sha256.txt",
        })

    index = {"last_update": args.last_update, "packages": packages}
    with open(os.path.join(args.outdir, "package_index.json"), "w") as f:
        f.write(json.dumps(index))
    for p in packages:
        print(f"{p['name']}@{p['version']}  {p['archive_url']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
