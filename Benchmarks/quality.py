#!/usr/bin/python3
"""Autocorrect's quality on text nobody here wrote (issues 29 and 39,
docs/performance.md).

1. Real misspellings, for each language vkbd ships, each typed after a
   word of the language and a comma (mid-sentence, with no word before it
   to go by: that is the next set's) through `vkbd simulate` into a text
   field: the share corrected exactly and the share made another word;
   with --compare (minutes: hunspell takes tens of milliseconds a word)
   beside hunspell(1)'s first suggestion (`hunspell -a`) with the same
   dictionary, and for English beside Peter Norvig's corrector (its
   published algorithm: the commonest known word one edit away, else two,
   with the word counts Pattern ships for it; not on codespell's 2,000,
   which take it minutes). The sets (`make
   misspellings` fetches them; scripts/misspellings-convert says where
   from): codespell's list (Debian's codespell), the Birkbeck corpus's
   sample that Pattern ships, and LibreOffice's autocorrect lists for en,
   de, fr and ru. Only non-word errors count: a pair whose typo the
   dictionary knows, or whose correction it does not, is left out.
   The costs of the error model are tuned on one part of each set
   (codespell's pairs at places that are multiples of 7; in the others, the
   words whose CRC-32 is a multiple of 3, all of a word's misspellings
   together); the figures are of the rest (codespell's every 7th + 3).
2. The same misspellings in real sentences, where the word before counts:
   the fortune cookies of Debian's fortunes package, their files at even
   places for the tuning part's misspellings and at odd ones for the
   reported part's. In the first 60,000 words, a word that a misspelling
   was made of is typed so, at most once in 8 words and 3 times a word;
   the share of those corrected exactly or made another word, and the
   share of the other words changed.
3. Real prose: texts that ship with Debian, typed whole. The share of
   words that arrive changed (each changed word is printed, for reading).
   Its words run together where a space was missed (`inthe` -> `in the`)
   are typed the same way; nothing was tuned on them.
4. Technical prose: Debian's READMEs of apt, bash, coreutils and codespell,
   full of commands and options, the same way.
5. Real shell scripts (Debian's `which` and `gettext.sh`) typed into a
   terminal (foot) and a code editor (VS Code): they must arrive unchanged.

Usage: quality.py VKBD [--data DIR] [--check] [--compare] [--sample N] [--tuning] [--only NAME]
                       [--wrong] [--left] [--maximum-changed P] [--maximum-technical P]
--check fails a set below its floor (LIMITS: this build's figures, to the
point below) or above its ceiling of wrong words, and the prose past the
given shares; a script that does not arrive unchanged always fails.
"""
import argparse
import gzip
import json
import os
import re
import subprocess
import sys
import tempfile
import zlib

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Tests"))
from checks import Checks  # noqa: E402

CODESPELL = "/usr/lib/python3/dist-packages/codespell_lib/data/dictionary.txt"
# Real English prose of other authors, in every Debian system.
PROSE = ["/usr/share/common-licenses/GPL-3", "/usr/share/common-licenses/Apache-2.0"]
TECHNICAL = ["/usr/share/doc/apt/README.md.gz", "/usr/share/doc/bash/README.gz", "/usr/share/doc/coreutils/README.gz",
             "/usr/share/doc/codespell/README.rst.gz"]
SCRIPTS = ["/usr/bin/which", "/usr/bin/gettext.sh"]
CONFIG = ("autocapitalize: false\ndouble_space_period: false\nsmart_punctuation: false\n"
          "autocorrect_languages: [%s]\nlayout:\n  layout: %s\n")

# Each language's dictionary, layout, and a word typed before each misspelling.
LANGUAGES = {"en": ("en_US", "us", "so"), "de": ("de_DE", "de", "wir"), "fr": ("fr_FR", "fr", "nous"),
             "ru": ("ru_RU", "ru", "мы")}
# Each set's floor of exact corrections and ceiling of wrong words, in
# percent (--check), of the reported part.
LIMITS = {
    "codespell": (85.5, 1.5), "birkbeck": (80.5, 4.8), "libreoffice-en": (94.5, 1.0), "libreoffice-de": (90.0, 1.6),
    "libreoffice-fr": (90.5, 0.5), "libreoffice-ru": (95.5, 0.5), "in-prose": (87.0, 2.0),
}
# The share of the other words of the fortunes that may change (--check):
# the fortunes' own misspellings (`alloted`, `flourescent`) among them.
MOST_CHANGED_AROUND = 0.2


def codespell_pairs():
    """codespell's entries with one correction, words of letters alone; the
    tuning part is the pairs at multiples of 7, the reported every 7th + 3."""
    pairs = []
    for line in open(CODESPELL, encoding="utf-8"):
        typo, _, fixes = line.strip().partition("->")
        fixes = [fix.strip() for fix in fixes.split(",") if fix.strip()]
        if len(fixes) == 1 and re.fullmatch(r"[a-z]{2,}", typo) and re.fullmatch(r"[a-z]{2,}", fixes[0]):
            pairs.append((typo, fixes[0]))
    return pairs


def tsv_pairs(path):
    with open(path, encoding="utf-8") as lines:
        return [tuple(line.rstrip("\n").split("\t")) for line in lines]


def by_word(tuning):
    """The part of a set a pair is in: all of a word's misspellings together."""
    return lambda index, pair: (zlib.crc32(pair[1].lower().encode()) % 3 == 0) == tuning


def by_place(tuning):
    return lambda index, pair: index % 7 == (0 if tuning else 3)


def sets(data):
    """(name, language, pairs, the part rule of a tuning flag, whether
    Norvig's corrector is measured too)."""
    found = [("codespell", "en", codespell_pairs(), by_place, False)]
    found.append(("birkbeck", "en", tsv_pairs(os.path.join(data, "en-birkbeck.tsv")), by_word, True))
    for language in LANGUAGES:
        found.append((f"libreoffice-{language}", language,
                      tsv_pairs(os.path.join(data, f"{language}-libreoffice.tsv")), by_word, language == "en"))
    return found


def hunspell(dictionary, options, text):
    run = subprocess.run(["hunspell", "-d", dictionary] + options, input=text, capture_output=True, text=True,
                         check=True)
    return run.stdout


def non_word_errors(dictionary, pairs):
    """The pairs whose typo the dictionary does not know and whose
    correction it does."""
    unknown = set(hunspell(dictionary, ["-l"], "\n".join(t for t, _ in pairs)).split())
    wrong = set(hunspell(dictionary, ["-l"], "\n".join(f for _, f in pairs)).split())
    return [(t, f) for t, f in pairs if t in unknown and f not in wrong]


def first_suggestions(dictionary, typos):
    """hunspell's first suggestion for each typo (None: none, or it knows it)."""
    lines = hunspell(dictionary, ["-a"], "\n".join(typos)).splitlines()[1:]
    firsts = []
    for line in lines:
        if line.startswith("&"):
            firsts.append(line.split(": ", 1)[1].split(", ")[0])
        elif line[:1] in ("#", "*", "+", "-"):
            firsts.append(None)
    assert len(firsts) == len(typos), "hunspell answered %d of %d words" % (len(firsts), len(typos))
    return firsts


class Norvig:
    """Peter Norvig's corrector as he published it ("How to Write a
    Spelling Corrector"): the word if known, else the commonest known word
    one edit away (a letter deleted, swapped with the next, replaced or
    inserted), else two, else the word as typed."""

    LETTERS = "abcdefghijklmnopqrstuvwxyz"

    def __init__(self, path):
        self.counts = {}
        for line in open(path, encoding="utf-8"):
            word, count = line.split()
            self.counts[word] = int(count)

    def edits(self, word):
        found = set()
        for at in range(len(word) + 1):
            head, tail = word[:at], word[at:]
            for letter in self.LETTERS:
                found.add(head + letter + tail)
                if tail:
                    found.add(head + letter + tail[1:])
            if tail:
                found.add(head + tail[1:])
            if len(tail) > 1:
                found.add(head + tail[1] + tail[0] + tail[2:])
        return found

    def correct(self, word):
        if word in self.counts:
            return word
        near = self.edits(word)
        known = [w for w in near if w in self.counts]
        if not known:
            known = {w for edit in near for w in self.edits(edit) if w in self.counts}
        return max(known, key=lambda w: (self.counts[w], w)) if known else word


def simulate(vkbd, language, words, alone=False):
    """Types the words, each followed by a space, into a text field of the
    language: what became of each (a word split in two where a space was
    missed is one). `alone`: each after a word of the language and a comma
    instead, so that it is typed mid-sentence with no word before it."""
    dictionary, layout, opening = LANGUAGES[language]
    text = "".join(word + (", " if alone else " ") for word in words)
    out = type_text(vkbd, (opening + ", " if alone else "") + text, "org.gnome.TextEditor text",
                    dictionary, layout).split(" ")
    if alone:
        out = [token[:-1] if token.endswith(",") else token for token in out[1:]]
    arrived = []
    for word in words:
        if len(out) > 1 and out[0] != word and out[0] + out[1] == word:
            arrived.append(out.pop(0) + " " + out.pop(0))
        elif out:
            arrived.append(out.pop(0))
    return arrived


def type_text(vkbd, text, focus, dictionary="en_US", layout="us"):
    """What a field of the app `focus` shows after `text` is typed into it."""
    with tempfile.NamedTemporaryFile("w", suffix=".yaml") as config, \
            tempfile.NamedTemporaryFile("w", suffix=".txt") as script:
        config.write(CONFIG % (dictionary, layout))
        config.flush()
        script.write("focus %s\n" % focus)
        for line in text.splitlines(keepends=True):
            script.write("type " + json.dumps(line) + "\n")
        script.flush()
        run = subprocess.run([vkbd, "simulate", "--no-user", "--config", config.name, "--script", script.name],
                             capture_output=True, text=True)
        if run.returncode != 0:
            raise SystemExit(f"quality: vkbd simulate exited with {run.returncode}: {run.stderr.strip()}")
        return run.stdout


def share(count, total):
    return 100 * count / total if total else 0.0


def misspellings(args, check, norvig):
    """Each set's reported (or tuning) part: vkbd, hunspell and Norvig."""
    print("%-16s %6s %8s %8s %8s %9s %8s" % ("set", "pairs", "fixed", "wrong", "left", "hunspell", "Norvig"))
    for name, language, pairs, part, classic in sets(args.data):
        if args.only and name not in args.only:
            continue
        dictionary = LANGUAGES[language][0]
        rule = part(args.tuning)
        pairs = [pair for index, pair in enumerate(non_word_errors(dictionary, pairs)) if rule(index, pair)]
        pairs = pairs[:args.sample]
        typos = [t for t, _ in pairs]
        typed = simulate(args.vkbd, language, typos, alone=True)
        exact = sum(1 for (_, f), out in zip(pairs, typed) if out == f)
        wrong = sum(1 for (t, f), out in zip(pairs, typed) if out not in (t, f))
        compared = ""
        if args.compare:
            right = sum(1 for (_, f), s in zip(pairs, first_suggestions(dictionary, typos)) if s == f)
            compared = "%8.1f%%" % share(right, len(pairs))
            if classic:
                compared += " %7.1f%%" % share(sum(1 for t, f in pairs if norvig.correct(t) == f), len(pairs))
        print("%-16s %6d %7.1f%% %7.1f%% %7.1f%% %s" % (
            name, len(pairs), share(exact, len(pairs)), share(wrong, len(pairs)),
            share(len(pairs) - exact - wrong, len(pairs)), compared), flush=True)
        for (t, f), out in zip(pairs, typed):
            if (args.wrong and out not in (t, f)) or (args.left and out == t):
                print(f"    {t} -> {out} (meant {f})")
        if args.check and not args.tuning:
            floor, ceiling = LIMITS[name]
            check(share(exact, len(pairs)) >= floor, f"{name}: at least {floor}% corrected exactly")
            check(share(wrong, len(pairs)) <= ceiling, f"{name}: at most {ceiling}% made another word")


def in_prose(data, tuning, limit=60000):
    """The fortunes' words, what is typed of them, and where a misspelling
    (of the English sets' part) was put."""
    typos = {}
    for name, language, pairs, part, _ in sets(data):
        if language != "en":
            continue
        rule = part(tuning)
        for index, (typo, fix) in enumerate(non_word_errors("en_US", pairs)):
            if rule(index, (typo, fix)) and fix.islower():
                typos.setdefault(fix, []).append(typo)
    files = sorted(os.listdir(os.path.join(data, "fortunes")))
    words = []
    for index, name in enumerate(files):
        if (index % 2 == 0) == tuning and len(words) < limit:
            with open(os.path.join(data, "fortunes", name), encoding="latin-1") as text:
                words += [word for word in text.read().split() if word.isascii() and word.isprintable()]
    words = words[:limit]
    typed, placed, used, last = list(words), [], {}, -8
    for index, word in enumerate(words):
        core = word.strip("([{\"'").rstrip(".,;:!?)]}\"'")
        if index - last >= 8 and core in typos and used.get(core, 0) < 3:
            choices = typos[core]
            typed[index] = word.replace(core, choices[sum(used.values()) % len(choices)], 1)
            used[core] = used.get(core, 0) + 1
            placed.append(index)
            last = index
    return words, typed, placed


def misspellings_in_prose(args, check):
    words, typed, placed = in_prose(args.data, args.tuning)
    arrived = simulate(args.vkbd, "en", typed)
    exact = sum(1 for index in placed if arrived[index] == words[index])
    left = sum(1 for index in placed if arrived[index] == typed[index])
    wrong = len(placed) - exact - left
    others = set(range(len(words))) - set(placed)
    changed = [index for index in sorted(others) if arrived[index] != words[index]]
    print("%-16s %6d %7.1f%% %7.1f%% %7.1f%%   and %d of the %d other words changed (%.3f%%)" % (
        "in-prose", len(placed), share(exact, len(placed)), share(wrong, len(placed)), share(left, len(placed)),
        len(changed), len(others), share(len(changed), len(others))), flush=True)
    for index in placed:
        if (args.wrong and arrived[index] not in (words[index], typed[index])) or (args.left and arrived[index] == typed[index]):
            print(f"    {' '.join(words[max(0, index - 3):index])} {typed[index]} -> {arrived[index]} (meant {words[index]})")
    if args.wrong:
        for index in changed[:40]:
            print(f"    changed: {words[index]} -> {arrived[index]}")
    if args.check and not args.tuning:
        floor, ceiling = LIMITS["in-prose"]
        check(share(exact, len(placed)) >= floor, f"in-prose: at least {floor}% corrected exactly")
        check(share(wrong, len(placed)) <= ceiling, f"in-prose: at most {ceiling}% made another word")
        check(share(len(changed), len(others)) <= MOST_CHANGED_AROUND,
              f"in-prose: at most {MOST_CHANGED_AROUND}% of the other words changed")


def missed_spaces(vkbd):
    """codespell's entries for two words run together (`inthe` -> `in the`)."""
    pairs = []
    for line in open(CODESPELL, encoding="utf-8"):
        typo, _, fixes = line.strip().partition("->")
        fixes = [fix.strip() for fix in fixes.split(",") if fix.strip()]
        if len(fixes) == 1 and fixes[0].count(" ") == 1 and fixes[0].replace(" ", "") == typo:
            pairs.append((typo, fixes[0]))
    typed = simulate(vkbd, "en", [t for t, _ in pairs], alone=True)
    exact = sum(1 for (t, f), out in zip(pairs, typed) if out == f)
    wrong = sum(1 for (t, f), out in zip(pairs, typed) if out not in (t, f))
    print(f"missed spaces: {len(pairs)} of codespell's words run together: split exactly {exact} "
          f"({share(exact, len(pairs)):.1f}%), changed otherwise {wrong}, left {len(pairs) - exact - wrong}")


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
    typed = simulate(vkbd, "en", words)
    changed = [(a, b) for a, b in zip(words, typed) if a != b]
    print(f"{label}: {len(words)} words of {', '.join(paths)}: {len(changed)} changed "
          f"({share(len(changed), len(words)):.3f}%)")
    for a, b in changed[:40]:
        print(f"  {a} -> {b}")
    return share(len(changed), len(words))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("vkbd")
    parser.add_argument("--data", default=".build/misspellings", help="what `make misspellings` made")
    parser.add_argument("--check", action="store_true", help="fail past LIMITS and the prose's shares")
    parser.add_argument("--compare", action="store_true", help="beside hunspell's first suggestion and Norvig's")
    parser.add_argument("--sample", type=int, default=2000, help="at most this many pairs a set")
    parser.add_argument("--only", nargs="+", help="these sets only, and no prose")
    parser.add_argument("--maximum-changed", type=float, default=0.05)
    parser.add_argument("--maximum-technical", type=float, default=0.1)
    parser.add_argument("--wrong", action="store_true", help="print each misspelling made another word")
    parser.add_argument("--left", action="store_true", help="print each misspelling left as typed")
    parser.add_argument("--tuning", action="store_true", help="the parts the costs are tuned on, not those reported")
    args = parser.parse_args()
    check = Checks()
    misspellings(args, check, Norvig(os.path.join(args.data, "en-norvig-counts.txt")))
    if not args.only or "in-prose" in args.only:
        misspellings_in_prose(args, check)
    if args.only:
        return
    missed_spaces(args.vkbd)
    changed = changed_share(args.vkbd, "prose", PROSE)
    technical = changed_share(args.vkbd, "technical prose", TECHNICAL)
    if args.check:
        check(changed <= args.maximum_changed, f"prose: at most {args.maximum_changed}% changed")
        check(technical <= args.maximum_technical, f"technical prose: at most {args.maximum_technical}% changed")
    for path in SCRIPTS:
        script = open(path, encoding="utf-8").read()
        for app in ("foot", "code"):
            check(type_text(args.vkbd, script, app) == script,
                  f"script {path} ({len(script)} characters) typed into {app} arrives unchanged")
    sys.exit(check.summary("quality"))


if __name__ == "__main__":
    main()
