"""Adjective-noun phrases for the cross-attention alignment test of the en-es model.

    python3 scripts/corpus/alignment_phrases.py [--count N] [--train data/en-es/train.tsv]
        > tests/data/adjective-noun-en-es.tsv

Each line: English phrase, English adjective, English noun, Spanish adjective, Spanish noun,
where the Spanish words are the forms apertium-eng-spa uses in its translation of the
phrase ("the red car" -> "el coche rojo": rojo, coche). The phrases come from the corpus
grammar with a seed of their own, and a phrase that is a whole sentence of the training
split is drawn again, so the test looks at phrases the model has not seen as such.

A phrase is kept only when apertium translates it as determiner + two words, one of them
being the noun as apertium translates "the NOUN" alone; the other is the adjective.
"""

import argparse
import lzma
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grammar_en as g  # noqa: E402
from generate_en import Generator  # noqa: E402


def apertium(lines):
    """Translates each line on its own: apertium's text mode moves words across single
    newlines, so lines are sent as paragraphs."""
    text = "\n\n".join(lines) + "\n"
    out = subprocess.run(["apertium", "-u", "eng-spa"], input=text, capture_output=True,
                         text=True, check=True, env=dict(os.environ, LC_ALL="C.UTF-8")).stdout
    result = [p.strip() for p in out.split("\n\n") if p.strip()]
    if len(result) != len(lines):
        sys.exit("alignment_phrases: apertium returned %d paragraphs for %d lines"
                 % (len(result), len(lines)))
    return result


def training_sources(path):
    if not path or not os.path.exists(path):
        return set()
    opener = lzma.open if path.endswith(".xz") else open
    seen = set()
    with opener(path, "rt", encoding="utf-8") as f:
        for line in f:
            src = line.split("\t", 1)[0].strip().lower().rstrip(".!?")
            seen.add(src)
    return seen


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=50)
    ap.add_argument("--seed", type=int, default=20261123)
    ap.add_argument("--train", default=os.path.join(os.path.dirname(__file__), "..", "..",
                                                    "data", "en-es", "train.tsv.xz"))
    args = ap.parse_args()

    seen = training_sources(args.train)
    gen = Generator(args.seed)
    candidates, used = [], set()
    while len(candidates) < args.count * 3:
        noun = gen.pick(g.NOUNS)
        adj = gen.pick(noun["adjs"])
        det = gen.pick(["the", "a"])
        if det == "a" and adj[0] in "aeiou":
            det = "an"
        phrase = "%s %s %s" % (det, adj, noun["sg"])
        if (adj, noun["sg"]) in used or phrase in seen:
            continue
        used.add((adj, noun["sg"]))
        candidates.append((phrase, adj, noun["sg"]))

    phrases = apertium([c[0] for c in candidates])
    nouns = apertium(["the " + c[2] for c in candidates])
    kept = 0
    for (phrase, adj, noun), es, es_noun in zip(candidates, phrases, nouns):
        words = es.split()
        noun_es = es_noun.split()[-1]
        if len(words) != 3 or noun_es not in words[1:] or any(c in es for c in "*#@"):
            continue
        adj_es = words[2] if words[1] == noun_es else words[1]
        print("\t".join([phrase, adj, noun, adj_es, noun_es]))
        kept += 1
        if kept == args.count:
            break
    if kept < args.count:
        sys.exit("alignment_phrases: only %d usable phrases" % kept)


if __name__ == "__main__":
    main()
