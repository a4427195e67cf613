"""English text for the built-in language model, from Debian packages only.

    lm_corpus.py OUTDIR

Writes OUTDIR/train.txt and OUTDIR/valid.txt: UTF-8, one document a line, in the sources' own order
(verses in Bible order, fortunes in file order, WordNet synsets in file order), so a training window
that runs over several lines reads them in sequence. Every 50th document of each source is held out
for valid.txt. Same packages, same bytes.
"""

import os
import re
import subprocess
import sys
import unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from english_sources import fortune_entries, wordnet_synsets  # noqa: E402

HELD_OUT_EVERY = 50
MAX_FORTUNE_CHARS = 800

_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "--",
    "\u00a0": " ", "\t": " ",
})
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def clean(text):
    """NFC, straight quotes, one line with single spaces."""
    text = unicodedata.normalize("NFC", text).translate(_TRANSLATE)
    return " ".join(text.split())


def bible():
    out = subprocess.run(["bible", "-l100000", "gen1:1-rev22:21"], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"^\s+\d+ (.*)$", line)
        if m:
            yield clean(m.group(1))


def fortunes():
    for entry in fortune_entries():
        if _CONTROL.search(entry.strip("\n")) or "\ufffd" in entry:
            continue  # terminal escapes, pictures, bytes that are not UTF-8
        text = clean(entry)
        if 20 <= len(text) <= MAX_FORTUNE_CHARS:
            yield text


def wordnet():
    """Each synset that has an example sentence, as "lemma, lemma: gloss; "example"", the way a
    dictionary reads. The synsets without one would make the dictionary most of the text."""
    for head, gloss in wordnet_synsets():
        if '"' not in gloss:
            continue
        fields = head.split()
        count = int(fields[3], 16)
        lemmas = [re.sub(r"\(\w+\)$", "", w).replace("_", " ") for w in fields[4:4 + 2 * count:2]]
        yield clean(", ".join(lemmas[:3]) + ": " + gloss)


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    counts = {}
    with open(os.path.join(out, "train.txt"), "w", encoding="utf-8", newline="\n") as train, \
            open(os.path.join(out, "valid.txt"), "w", encoding="utf-8", newline="\n") as valid:
        for name, source in (("bible", bible), ("fortunes", fortunes), ("wordnet", wordnet)):
            n = 0
            for i, doc in enumerate(d for d in source() if d):
                (valid if i % HELD_OUT_EVERY == HELD_OUT_EVERY - 1 else train).write(doc + "\n")
                n += 1
            counts[name] = n
    for name, n in counts.items():
        print(f"{name}: {n} documents")


if __name__ == "__main__":
    main()
