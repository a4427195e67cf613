"""Normalisation and filters shared by both sides of the corpus."""

import hashlib
import re
import string
import unicodedata

MAX_WORDS = 40
MAX_CHARS = 250
MIN_WORDS = 2

# Apertium's marks: * unknown word, # generation error, @ untranslated lemma.
MARKERS = "*#@"

_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201a": "'", "\u201b": "'", "\u2032": "'", "`": "'",
    "\u201c": '"', "\u201d": '"', "\u201e": '"', "\u201f": '"', "\u2033": '"',
    "\u00ab": '"', "\u00bb": '"',
    "\u2013": "-", "\u2014": "-", "\u2212": "-",
    "\u2026": "...",
    "\u00a0": " ",
})

_PUNCT = set(".,;:!?'\"-()&%¿¡")
_ASCII_OK = set(string.ascii_letters + string.digits + " ") | _PUNCT


def normalise(text):
    """NFC, straight quotes, single spaces, no space before punctuation, no wrapping quotes."""
    text = unicodedata.normalize("NFC", text).translate(_TRANSLATE)
    text = " ".join(text.split())
    text = re.sub(r" +([.,;:!?])", r"\1", text)
    return strip_wrapping_quotes(text)


def strip_wrapping_quotes(text):
    for q in "\"'":
        # A leading apostrophe before a lower-case letter is a contraction ('tis, 'em).
        if q == "'" and text[1:2].islower():
            continue
        if len(text) >= 2 and text[0] == q and text.count(q) == 2:
            # "Text." and "Text". both count as wrapped.
            if text[-1] == q:
                return text[1:-1].strip()
            if text[-2] == q and text[-1] in ".!?":
                return text[1:-2].strip() + text[-1]
    return text


def _latin_letter(ch):
    return unicodedata.category(ch).startswith("L") and \
        unicodedata.name(ch, "").startswith("LATIN ")


def plain_latin(text):
    """Letters of the Latin script, digits, spaces and ordinary sentence punctuation only."""
    return all(ch in _ASCII_OK or _latin_letter(ch) for ch in text)


def has_markers(text):
    return any(m in text for m in MARKERS)


def length_ok(text):
    words = len(text.split())
    return MIN_WORDS <= words <= MAX_WORDS and len(text) <= MAX_CHARS


def dedupe_key(english):
    return english.lower()


def key_hash(english):
    return hashlib.sha256(dedupe_key(english).encode("utf-8")).hexdigest()


def split_of(english, valid_percent=2, test_percent=2):
    """Split from a hash of the sentence, so it never moves when other sentences change."""
    return split_from_hash(key_hash(english), valid_percent, test_percent)


def split_from_hash(hexdigest, valid_percent, test_percent):
    """test, valid or train from the first 64 bits of a hex digest, modulo 100."""
    bucket = int(hexdigest[:16], 16) % 100
    if bucket < test_percent:
        return "test"
    if bucket < test_percent + valid_percent:
        return "valid"
    return "train"


def _first_letter(text):
    for i, ch in enumerate(text):
        if ch.isalpha():
            return i
    return -1


def match_sentence_case(english, spanish):
    """Apertium capitalises the first word by its position in the input stream rather than
    by the source word ("I bought a car" -> "Compré ..." on one line, "compré ..." on the
    next), and writes "EL agua" for "The water"; the Spanish starts in the English case."""
    i, j = _first_letter(english), _first_letter(spanish)
    if i < 0 or j < 0:
        return spanish
    first_es = re.match(r"\w+", spanish[j:]).group(0)
    if len(first_es) > 1 and first_es.isupper():
        first_en = re.match(r"\w+", english[i:]).group(0)
        if not (len(first_en) > 1 and first_en.isupper()):
            spanish = spanish[:j] + first_es.capitalize() + spanish[j + len(first_es):]
    ch = spanish[j]
    ch = ch.upper() if english[i].isupper() else ch.lower()
    return spanish[:j] + ch + spanish[j + 1:]


def add_opening_marks(spanish):
    """Apertium leaves out Spanish's opening ¿ and ¡; add them to a closing one's sentence."""
    for close, opening in (("?", "¿"), ("!", "¡")):
        if spanish.rstrip("\"'").endswith(close) and opening not in spanish:
            body = spanish.rstrip("\"'")[:-1]
            # A question also starts after a comma when a capital follows: "dijo, ¿Quién ...?"
            starts = [m.end() for m in re.finditer(r"[.!?;:]\s+|,\s+(?=[A-ZÁÉÍÓÚÑ])", body)]
            at = starts[-1] if starts else 0
            while at < len(spanish) and spanish[at] in "\"'(":
                at += 1
            spanish = spanish[:at] + opening + spanish[at:]
    return spanish
