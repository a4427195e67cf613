"""English sentences from Debian packages: WordNet's examples, fortunes, and the KJV Bible.

Each reader yields raw text in a fixed order (files sorted, lines in file order) and counts
what its own shape rules rejected in `stats`.
"""

import os
import re
import subprocess

WORDNET_DIR = "/usr/share/wordnet"
FORTUNES_DIR = "/usr/share/games/fortunes"

# Pictures, non-English jokes, and a file of jokes about nationalities.
FORTUNES_SKIPPED = {"art", "ascii-art", "translate-me", "ethnic", "off"}

_QUOTED = re.compile(r'"([^"]+)"')
_SENTENCE_END = re.compile(r"(?<=[.!?])[\"')]?\s+(?=[\"'(]?[A-Z0-9])")
_ATTRIBUTION_LINE = re.compile(r"^\s*--+\s*\S")
_INLINE_ATTRIBUTION = re.compile(r"\s+--+\s*[A-Z][^.!?]{0,60}$")
_SPEAKER = re.compile(r"^\s*[A-Za-z][\w .'&-]{0,30}:(\s|$)")
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")


def sentences_in(text):
    return _SENTENCE_END.split(text)


def wordnet_synsets():
    """(head, gloss) of every synset of the data files, nouns first: `offset ... words ... | gloss`."""
    for pos in ("noun", "verb", "adj", "adv"):
        with open(os.path.join(WORDNET_DIR, "data." + pos), encoding="utf-8") as f:
            for line in f:
                if line.startswith("  "):  # licence header
                    continue
                head, bar, gloss = line.partition(" | ")
                if bar:
                    yield head, gloss


def wordnet(stats):
    """The example sentences in the glosses: `... | definition; "example"; "example"`."""
    for _, gloss in wordnet_synsets():
        for example in _QUOTED.findall(gloss):
            yield example


def fortune_text(entry):
    """One or two plain sentences from a fortune, or None for dialogue, verse, lists,
    pictures and anything longer."""
    if _CONTROL.search(entry):
        return None
    lines = entry.strip("\n").split("\n")
    for i, line in enumerate(lines):
        if i > 0 and _ATTRIBUTION_LINE.match(line):
            lines = lines[:i]
            break
    if not lines or any(not line.strip() for line in lines):
        return None
    if any(line[:1].isspace() for line in lines[1:]):
        return None
    if any(_SPEAKER.match(line) or line.rstrip().endswith(":") for line in lines):
        return None
    if len(lines) >= 3 and all(line[:1].isupper() for line in lines):
        return None  # verse: every line starts with a capital
    text = " ".join(line.strip() for line in lines)
    text = _INLINE_ATTRIBUTION.sub("", text)
    if text.count('"') > 2 or len(sentences_in(text)) > 2:
        return None
    if not re.search(r"[.!?][\"')]?$", text):
        return None  # cut short, or a title
    return text


def fortune_entries():
    """Every fortune of the text files (not the pictures and jokes skipped above), files sorted,
    entries in file order."""
    names = sorted(n for n in os.listdir(FORTUNES_DIR)
                   if "." not in n and n not in FORTUNES_SKIPPED
                   and os.path.isfile(os.path.join(FORTUNES_DIR, n))
                   and not os.path.islink(os.path.join(FORTUNES_DIR, n)))
    for name in names:
        with open(os.path.join(FORTUNES_DIR, name), "rb") as f:
            raw = f.read().decode("utf-8", errors="replace")
        for entry in re.split(r"^%$", raw, flags=re.M):
            if entry.strip():
                yield entry


def fortunes(stats):
    for entry in fortune_entries():
        stats["entries"] = stats.get("entries", 0) + 1
        text = fortune_text(entry)
        if text is None:
            stats["rejected_shape"] = stats.get("rejected_shape", 0) + 1
            continue
        yield text


# Early Modern English the Spanish side would render badly even when apertium knows the
# word; -eth verbs ("maketh") are caught by the pattern below.
_ARCHAIC = set("""thee thou thy thine ye hath doth dost hast shalt wilt unto saith spake
begat lo behold verily yea nay whither thither hither wherefore whence thence shew shewed
sware wist wot ere nigh peradventure canst couldest wouldest shouldest didst mayest
mine brethren""".split())
_ETH = re.compile(r"\b\w+eth\b")
# "They know not" is rendered "saben no"; "not" is kept only after an auxiliary.
_BARE_NOT = re.compile(r"\b(?!(?:is|was|are|were|be|been|do|does|did|shall|will|should|would|"
                       r"can|could|may|might|must|have|has|had|am)\b)\w+ not\b", re.I)
_ETH_WORDS = {"teeth", "seth", "japheth", "nazareth", "elisabeth", "beth", "heth"}


def _archaic(sentence):
    words = re.findall(r"[A-Za-z]+", sentence.lower())
    if any(w in _ARCHAIC for w in words) or _BARE_NOT.search(sentence):
        return True
    return any(m.group(0).lower() not in _ETH_WORDS for m in _ETH.finditer(sentence))


def bible(stats):
    """Verse sentences of 4 to 20 words, without archaic forms, ending a sentence. The `bible` program
    decompresses the text; a wide line length keeps each verse on one line."""
    out = subprocess.run(["bible", "-l100000", "gen1:1-rev22:21"], check=True,
                         capture_output=True, text=True).stdout
    for line in out.splitlines():
        m = re.match(r"^\s+\d+ (.*)$", line)
        if not m:
            continue
        stats["verses"] = stats.get("verses", 0) + 1
        for sentence in sentences_in(m.group(1).strip()):
            stats["entries"] = stats.get("entries", 0) + 1
            n = len(sentence.split())
            # "For" opening a sentence comes out as "Para"; a verse cut at ":" or ";" is
            # not a sentence.
            if (not 4 <= n <= 20 or _archaic(sentence) or not sentence[:1].isupper()
                    or sentence.startswith("For ") or sentence[-1] not in ".!?"):
                stats["rejected_shape"] = stats.get("rejected_shape", 0) + 1
                continue
            yield sentence
