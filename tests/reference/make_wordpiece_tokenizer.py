"""A BERT-style tokenizer.json (WordPiece) made from the test strings, for test_tokenizerjson to compare with the
reference implementations: no real BERT tokenizer.json is shipped in an npm package.

usage: make_wordpiece_tokenizer.py OUT_DIR [--cased] STRINGS.json...

Writes OUT_DIR/tokenizer.json in the shape of bert-base-uncased's (BertNormalizer, BertPreTokenizer, a
[CLS] $A [SEP] template, the WordPiece decoder; with --cased, bert-base-cased's: no lowercasing or accent
stripping). Its vocabulary: [PAD] [UNK] [CLS] [SEP] [MASK], every character of the strings as itself and as
"##" + it, the 400 most frequent words, and common word endings, so words split into pieces, whole words and
[UNK] all occur.
"""
import argparse
import collections
import json
import re
import unicodedata
from pathlib import Path

ENDINGS = ["ing", "ed", "s", "es", "ly", "er", "est", "tion", "ment", "ness", "able", "ful", "less", "ity", "al"]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--cased", action="store_true")
    ap.add_argument("strings", nargs="+")
    args = ap.parse_args()
    text = []
    for f in args.strings:
        text += json.loads(Path(f).read_text(encoding="utf-8"))
    words = collections.Counter()
    chars = set()
    for s in text:
        if not args.cased:
            s = "".join(c for c in unicodedata.normalize("NFD", s.lower()) if unicodedata.category(c) != "Mn")
        for w in re.findall(r"\w+|[^\w\s]", s):
            words[w] += 1
            chars.update(w)
    # Leave a few characters out, so that words holding them are [UNK].
    chars -= set("qQ\u00e7")
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    for c in sorted(chars):
        vocab += [c, "##" + c]
    vocab += [w for w, _ in words.most_common(400) if len(w) > 1]
    vocab += ["##" + e for e in ENDINGS]
    vocab = list(dict.fromkeys(vocab))
    special = [{"id": i, "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False,
                "special": True} for i, t in enumerate(vocab[:5])]
    template = lambda *parts: [{"SpecialToken": {"id": p, "type_id": 0}} if p.startswith("[") else
                               {"Sequence": {"id": p, "type_id": 0}} for p in parts]
    tokenizer = {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": special,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True,
                       "strip_accents": None, "lowercase": not args.cased},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {"type": "TemplateProcessing", "single": template("[CLS]", "A", "[SEP]"),
                           "pair": template("[CLS]", "A", "[SEP]", "B", "[SEP]"),
                           "special_tokens": {t: {"id": t, "ids": [vocab.index(t)], "tokens": [t]}
                                              for t in ("[CLS]", "[SEP]")}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": {t: i for i, t in enumerate(vocab)}},
    }
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    (out / "tokenizer.json").write_text(json.dumps(tokenizer, ensure_ascii=False), encoding="utf-8")


if __name__ == "__main__":
    main()
