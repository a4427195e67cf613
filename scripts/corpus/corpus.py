"""Steps of the English-Spanish corpus build that make-corpus-en-es.sh runs around apertium.

  extract WORK [--limit N]   English sentences, normalised, filtered and deduplicated:
                             WORK/english.tsv (tag, sentence, texts to translate for it)
                             and WORK/english.txt (those texts, one a line)
  finish WORK OUT            pairs english.tsv with WORK/spanish.txt (apertium's output with
                             its marks), filters, splits, writes OUT/{train,valid,test}.tsv
  readme WORK OUT            OUT/README.md from the counts in WORK/stats.json

Counts go to WORK/stats.json so the README always describes the files next to it.
"""

import argparse
import hashlib
import json
import os
import subprocess
import sys

import english_sources
import generate_en
import readme_en_es
import textnorm as tn

SOURCES = ["wordnet", "fortunes", "bible", "generated"]
GENERATED_COUNT = 40000
BIBLE_CAP = 2000
SPLITS = ["train", "valid", "test"]
PACKAGES = ["wordnet-base", "fortunes-min", "fortunes", "bible-kjv-text", "bible-kjv",
            "apertium", "apertium-eng-spa"]


def _load_stats(work):
    path = os.path.join(work, "stats.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            return json.load(f)
    return {}


def _save_stats(work, stats):
    with open(os.path.join(work, "stats.json"), "w", encoding="utf-8") as f:
        json.dump(stats, f, indent=1, sort_keys=True)
        f.write("\n")


def _bump(stats, source, key, n=1):
    stats.setdefault(source, {})
    stats[source][key] = stats[source].get(key, 0) + n


def _raw_sentences(source, shape_stats):
    """(sentence, texts to translate for it, or None for the sentence itself) pairs."""
    if source == "generated":
        return generate_en.generate(GENERATED_COUNT)
    return [(s, None) for s in getattr(english_sources, source)(shape_stats)]


def extract(work, limit):
    stats = {"settings": {"limit": limit, "generated": GENERATED_COUNT,
                          "bible_cap": BIBLE_CAP, "max_words": tn.MAX_WORDS,
                          "max_chars": tn.MAX_CHARS, "min_words": tn.MIN_WORDS}}
    seen = set()
    kept = []
    for source in SOURCES:
        shape = {}
        raw = _raw_sentences(source, shape)
        s = stats.setdefault(source, {})
        if source != "generated":
            s["source_entries"] = shape.get("entries", len(raw))
            s["source_rejected_shape"] = shape.get("rejected_shape", 0)
        if limit:
            # A spread over the whole source rather than its first file.
            raw = sorted(raw, key=lambda x: hashlib.sha256(x[0].encode("utf-8")).hexdigest())
            raw = raw[:limit]
        s["extracted"] = len(raw)
        for sentence, parts in raw:
            en = tn.normalise(sentence)
            if not tn.plain_latin(en) or tn.has_markers(en):
                _bump(stats, source, "dropped_en_chars")
                continue
            if not tn.length_ok(en):
                _bump(stats, source, "dropped_en_length")
                continue
            key = tn.dedupe_key(en)
            if key in seen:
                _bump(stats, source, "dropped_duplicate")
                continue
            seen.add(key)
            kept.append((source, en, [en] if parts is None else [tn.normalise(p) for p in parts]))
            _bump(stats, source, "translated")
    with open(os.path.join(work, "english.tsv"), "w", encoding="utf-8") as tsv, \
            open(os.path.join(work, "english.txt"), "w", encoding="utf-8") as txt:
        for source, en, parts in kept:
            tsv.write(f"{source}\t{en}\t{len(parts)}\n")
            for part in parts:
                txt.write(part + "\n")
    _save_stats(work, stats)
    print(f"extract: {len(kept)} English sentences", file=sys.stderr)


def finish(work, out):
    stats = _load_stats(work)
    with open(os.path.join(work, "english.tsv"), encoding="utf-8") as f:
        english = [line.rstrip("\n").split("\t") for line in f]
    with open(os.path.join(work, "spanish.txt"), encoding="utf-8") as f:
        spanish = [line.rstrip("\n") for line in f]
    needed = sum(int(n) for _, _, n in english)
    if needed != len(spanish):
        sys.exit(f"finish: {needed} texts were translated but {len(spanish)} Spanish lines")
    pairs = []
    at = 0
    for source, en, n in english:
        parts = spanish[at:at + int(n)]
        at += int(n)
        if any(tn.has_markers(p) for p in parts):
            _bump(stats, source, "dropped_markers")
            continue
        es = generate_en.compose_spanish(parts)
        if es is None:
            _bump(stats, source, "dropped_compose")
            continue
        es = tn.add_opening_marks(tn.match_sentence_case(en, tn.normalise(es)))
        if not tn.plain_latin(es):
            _bump(stats, source, "dropped_es_chars")
            continue
        if not tn.length_ok(es):
            _bump(stats, source, "dropped_es_length")
            continue
        pairs.append((tn.key_hash(en), en, es, source))
    pairs.sort()
    bible_left = BIBLE_CAP
    final = []
    for h, en, es, source in pairs:
        if source == "bible":
            if bible_left == 0:
                _bump(stats, source, "dropped_cap")
                continue
            bible_left -= 1
        final.append((en, es, source))
    files = {name: open(os.path.join(out, name + ".tsv"), "w", encoding="utf-8", newline="\n")
             for name in SPLITS}
    for en, es, source in final:
        split = tn.split_of(en)
        files[split].write(f"{en}\t{es}\t{source}\n")
        _bump(stats, source, split)
        _bump(stats, source, "final")
    for f in files.values():
        f.close()
    _save_stats(work, stats)
    print(f"finish: {len(final)} pairs", file=sys.stderr)


def _version(package):
    r = subprocess.run(["dpkg-query", "-W", "-f=${Version}", package],
                       capture_output=True, text=True)
    return r.stdout.strip() if r.returncode == 0 else "not installed"


def readme(work, out):
    stats = _load_stats(work)
    versions = {p: _version(p) for p in PACKAGES}
    sizes = {}
    for name in sorted(os.listdir(out)):
        if name.endswith((".tsv", ".tsv.xz")):
            sizes[name] = os.path.getsize(os.path.join(out, name))
    text = readme_en_es.render(stats, versions, sizes, SOURCES, SPLITS)
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8") as f:
        f.write(text)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("step", choices=["extract", "finish", "readme"])
    ap.add_argument("work")
    ap.add_argument("out", nargs="?")
    ap.add_argument("--limit", type=int, default=0,
                    help="take at most N sentences from each source (for trial runs)")
    args = ap.parse_args()
    if args.step == "extract":
        extract(args.work, args.limit)
    elif args.out is None:
        ap.error(f"{args.step} needs an output directory")
    elif args.step == "finish":
        finish(args.work, args.out)
    else:
        readme(args.work, args.out)


if __name__ == "__main__":
    main()
