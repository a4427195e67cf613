"""A SentencePiece-style tokenizer.json (Unigram) made from the test strings, for test_tokenizerjson to compare
with the reference implementations: no real T5 or ALBERT tokenizer.json is shipped in an npm package.

usage: make_unigram_tokenizer.py OUT_DIR [--byte-fallback] STRINGS.json...

Writes OUT_DIR/tokenizer.json with a Unigram model over pieces taken from the strings (characters, "▁" + the
frequent words, their frequent prefixes and suffixes), each scored by the logarithm of how often it occurs, a
Metaspace pre-tokenizer and decoder, and a "</s>" template, as T5's has. A few characters are left out, so
unknown characters (fused into one <unk>) occur; with --byte-fallback the 256 <0xXX> pieces are added and
those characters become their bytes instead.
"""
import argparse
import collections
import json
import math
from pathlib import Path


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--byte-fallback", action="store_true")
    ap.add_argument("strings", nargs="+")
    args = ap.parse_args()
    text = []
    for f in args.strings:
        text += json.loads(Path(f).read_text(encoding="utf-8"))
    counts = collections.Counter()
    for s in text:
        for w in s.split():
            w = "\u2581" + w
            counts[w] += 3
            for c in w:
                counts[c] += 1
            for k in range(2, min(len(w), 6)):
                counts[w[:k]] += 1
                counts[w[-k:]] += 1
    for c in "qQ\u00e7\U0001f917":  # left out: unknown characters
        counts.pop(c, None)
    pieces = [p for p, _ in counts.most_common(3000)]
    total = sum(counts[p] for p in pieces)
    vocab = [["<pad>", 0.0], ["</s>", 0.0], ["<unk>", 0.0]]
    if args.byte_fallback:
        vocab += [[f"<0x{b:02X}>", 0.0] for b in range(256)]
    vocab += [[p, math.log(counts[p] / total)] for p in pieces]
    special = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
                "special": True} for i, t in enumerate(["<pad>", "</s>", "<unk>"])]
    metaspace = {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": "always", "split": True}
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": special, "normalizer": None,
        "pre_tokenizer": metaspace,
        "post_processor": {"type": "TemplateProcessing",
                           "single": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "pair": [{"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                                    {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
                           "special_tokens": {"</s>": {"id": "</s>", "ids": [1], "tokens": ["</s>"]}}},
        "decoder": metaspace,
        "model": {"type": "Unigram", "unk_id": 2, "vocab": vocab, "byte_fallback": args.byte_fallback},
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
