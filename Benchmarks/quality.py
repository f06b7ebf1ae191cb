#!/usr/bin/python3
"""Autocorrect's quality on text nobody here wrote (issue 29, docs/performance.md).

1. Real misspellings: codespell's list (Debian's codespell package), the
   entries with one correction that en_US's hunspell knows and a typo it
   does not. Each typo is typed through `vkbd simulate` into a text field;
   the share corrected exactly is set beside the share whose first
   suggestion from hunspell(1) (`hunspell -a`) is the correction.
   The costs of the error model were tuned on the pairs whose place in
   that list is a multiple of 7; these are the others (every 7th + 3).
2. Real prose: texts that ship with Debian, typed whole. The share of
   words that arrive changed (each changed word is printed, for reading).
   Its words run together where a space was missed (`inthe` -> `in the`)
   are typed the same way; nothing was tuned on them.
3. Technical prose: Debian's READMEs of apt, bash, coreutils and codespell,
   full of commands and options, the same way.
4. Real shell scripts (Debian's `which` and `gettext.sh`) typed into a
   terminal (foot) and a code editor (VS Code): they must arrive unchanged.

Usage: quality.py VKBD [--sample N] [--minimum-exact P] [--maximum-wrong P] [--maximum-changed P]
                       [--maximum-technical P] [--hunspell] [--tuning]
                       [--wrong]
The thresholds make it a check: it exits 1 past any of them (scripts that
do not arrive unchanged always fail it).
"""
import gzip
import argparse
import json
import re
import subprocess
import sys
import tempfile

CODESPELL = "/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt"
# Real English prose of other authors, in every Debian system.
PROSE = ["/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/Apache-2.0"]
TECHNICAL = ["/usr/share/doc/apt/README.md.gz", "/usr/share/doc/bash/README.gz", "/usr/share/doc/coreutils/README.gz",
             "/usr/share/doc/codespell/README.rst.gz"]
SCRIPTS = ["/usr/bin/which", "/usr/bin/gettext.sh"]
CONFIG = "autocapitalize: false\ndouble_space_period: false\nsmart_punctuation: false\nautocorrect_languages: [en_US]\n"


def misspellings(sample, tuning=False):
    pairs = []
    for line in open(CODESPELL, encoding="utf-8"):
        typo, _, fixes = line.strip().partition("->")
        fixes = [fix.strip() for fix in fixes.split(",") if fix.strip()]
        if len(fixes) != 1 or not re.fullmatch(r"[a-z]{2,}", typo) or not re.fullmatch(r"[a-z]{2,}", fixes[0]):
            continue
        pairs.append((typo, fixes[0]))
    # Keep the pairs hunspell judges as the list does: the typo wrong, the fix right.
    unknown = set(hunspell(["-l"], "\n".join(t for t, _ in pairs)).split())
    known_bad = set(hunspell(["-l"], "\n".join(f for _, f in pairs)).split())
    pairs = [(t, f) for t, f in pairs if t in unknown and f not in known_bad]
    return [pair for index, pair in enumerate(pairs) if index % 7 == (0 if tuning else 3)][:sample], len(pairs)


def missed_spaces():
    """codespell's entries for two words run together (`inthe` -> `in the`)."""
    pairs = []
    for line in open(CODESPELL, encoding="utf-8"):
        typo, _, fixes = line.strip().partition("->")
        fixes = [fix.strip() for fix in fixes.split(",") if fix.strip()]
        if len(fixes) == 1 and fixes[0].count(" ") == 1 and fixes[0].replace(" ", "") == typo:
            pairs.append((typo, fixes[0]))
    return pairs


def hunspell(options, text):
    run = subprocess.run(["hunspell", "-d", "en_US"] + options, input=text, capture_output=True, text=True,
                         check=True)
    return run.stdout


def first_suggestions(typos):
    out = hunspell(["-a"], "\n".join(typos))
    firsts = []
    for line in out.splitlines()[1:]:
        if line.startswith("&"):
            firsts.append(line.split(": ", 1)[1].split(", ")[0])
        elif line.startswith("#"):
            firsts.append(None)
        elif line.startswith("*") or line.startswith("+") or line.startswith("-"):
            firsts.append(None)
    return firsts


def simulate(vkbd, words):
    """Types the words, each followed by a space, into a text field: what
    became of each (a word split in two where a space was missed is one)."""
    out = type_text(vkbd, "".join(word + " " for word in words), "org.gnome.TextEditor text").split(" ")
    arrived = []
    for word in words:
        if len(out) > 1 and out[0] != word and out[0] + out[1] == word:
            arrived.append(out.pop(0) + " " + out.pop(0))
        elif out:
            arrived.append(out.pop(0))
    return arrived


def type_text(vkbd, text, focus):
    """What a field of the app `focus` shows after `text` is typed into it."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as config, \
            tempfile.NamedTemporaryFile("w", suffix=".txt") as script:
        config.write(CONFIG)
        config.flush()
        script.write("focus %s\n" % focus)
        for line in text.splitlines(keepends=True):
            script.write("type " + json.dumps(line) + "\n")
        script.flush()
        run = subprocess.run([vkbd, "simulate", "--no-user", "--config", config.name, "--script", script.name],
                             capture_output=True, text=True, check=True)
        return run.stdout


def words_of(paths):
    words = []
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as text:
            # What a US keyboard types: a word with … or ’ is left out.
            words += [word for word in text.read().split() if word.isascii()]
    return words


def changed_share(vkbd, label, paths):
    words = words_of(paths)
    # The words as typed, whole: runs of spaces and line ends become one space.
    typed = simulate(vkbd, words)
    changed = [(a, b) for a, b in zip(words, typed) if a != b]
    share = 100 * len(changed) / len(words)
    print(f"{label}: {len(words)} words of {', '.join(paths)}: {len(changed)} changed ({share:.3f}%)")
    for a, b in changed[:40]:
        print(f"  {a} -> {b}")
    return share


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkbd")
    parser.add_argument("--sample", type=int, default=2000)
    parser.add_argument("--minimum-exact", type=float)
    parser.add_argument("--maximum-wrong", type=float)
    parser.add_argument("--maximum-changed", type=float)
    parser.add_argument("--maximum-technical", type=float)
    parser.add_argument("--hunspell", action="store_true", help="also measure hunspell's first suggestion")
    parser.add_argument("--wrong", action="store_true", help="print each misspelling corrected to another word")
    parser.add_argument("--tuning", action="store_true",
                        help="the misspellings the costs are tuned on (every 7th), not those reported")
    args = parser.parse_args()
    failed = False

    pairs, total = misspellings(args.sample, args.tuning)
    typos = [t for t, _ in pairs]
    typed = simulate(args.vkbd, typos)
    exact = sum(1 for (t, f), out in zip(pairs, typed) if out == f)
    wrong = sum(1 for (t, f), out in zip(pairs, typed) if out not in (t, f))
    print(f"misspellings: {len(pairs)} of {total} codespell pairs")
    print(f"  vkbd corrected exactly {exact} ({100 * exact / len(pairs):.1f}%), "
          f"to another word {wrong} ({100 * wrong / len(pairs):.1f}%), left {len(pairs) - exact - wrong}")
    if args.wrong:
        for (t, f), out in zip(pairs, typed):
            if out not in (t, f):
                print(f"  {t} -> {out} (meant {f})")
    if args.hunspell:
        firsts = first_suggestions(typos)
        right = sum(1 for (t, f), s in zip(pairs, firsts) if s == f)
        print(f"  hunspell's first suggestion right: {right} ({100 * right / len(pairs):.1f}%)")
    if args.minimum_exact is not None and 100 * exact / len(pairs) < args.minimum_exact:
        print(f"FAIL: fewer than {args.minimum_exact}% corrected exactly")
        failed = True
    if args.maximum_wrong is not None and 100 * wrong / len(pairs) > args.maximum_wrong:
        print(f"FAIL: more than {args.maximum_wrong}% corrected to another word")
        failed = True

    pairs = missed_spaces()
    typed = simulate(args.vkbd, [t for t, _ in pairs])
    exact = sum(1 for (t, f), out in zip(pairs, typed) if out == f)
    wrong = sum(1 for (t, f), out in zip(pairs, typed) if out not in (t, f))
    print(f"missed spaces: {len(pairs)} of codespell's words run together: split exactly {exact} "
          f"({100 * exact / len(pairs):.1f}%), changed otherwise {wrong}, left {len(pairs) - exact - wrong}")

    share = changed_share(args.vkbd, "prose", PROSE)
    if args.maximum_changed is not None and share > args.maximum_changed:
        print(f"FAIL: more than {args.maximum_changed}% of the prose changed")
        failed = True
    share = changed_share(args.vkbd, "technical prose", TECHNICAL)
    if args.maximum_technical is not None and share > args.maximum_technical:
        print(f"FAIL: more than {args.maximum_technical}% of the technical prose changed")
        failed = True

    for path in SCRIPTS:
        script = open(path, encoding="utf-8").read()
        for app in ("foot", "code"):
            arrived = type_text(args.vkbd, script, app)
            print(f"script {path} ({len(script)} characters) typed into {app}: "
                  f"{'unchanged' if arrived == script else 'CHANGED'}")
            if arrived != script:
                failed = True
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
