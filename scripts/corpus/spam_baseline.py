"""Baseline for data/spam: multinomial naive Bayes on lower-cased word tokens.

    spam_baseline.py DATADIR [--json FILE]

Trains on DATADIR/train.tsv and reports on valid.tsv and test.tsv (each read from its .tsv.xz when the
.tsv is missing): accuracy, and precision and recall with spam as the positive class, with the counts
behind them. Add-one (Laplace) smoothing over the training vocabulary; words never seen in training
are ignored. Standard library only; the same files give the same figures.
"""

import argparse
import json
import lzma
import math
import os
import re
import sys

_WORD = re.compile(r"\w+")


def tokens(text):
    return _WORD.findall(text.lower())


def read_split(datadir, split):
    path = os.path.join(datadir, f"{split}.tsv")
    if os.path.exists(path):
        f = open(path, encoding="utf-8", newline="\n")
    else:
        f = lzma.open(path + ".xz", "rt", encoding="utf-8", newline="\n")
    with f:
        rows = []
        for line in f:
            label, text = line.rstrip("\n").split("\t", 1)
            rows.append((label, text))
    return rows


class NaiveBayes:
    def __init__(self, rows):
        self.labels = sorted({label for label, _ in rows})
        self.docs = {c: 0 for c in self.labels}
        self.counts = {c: {} for c in self.labels}
        self.totals = {c: 0 for c in self.labels}
        for label, text in rows:
            self.docs[label] += 1
            counts = self.counts[label]
            for w in tokens(text):
                counts[w] = counts.get(w, 0) + 1
                self.totals[label] += 1
        self.vocabulary = set()
        for c in self.labels:
            self.vocabulary.update(self.counts[c])
        v = len(self.vocabulary)
        n = sum(self.docs.values())
        self.log_prior = {c: math.log(self.docs[c] / n) for c in self.labels}
        self.log_unseen = {c: -math.log(self.totals[c] + v) for c in self.labels}

    def score(self, text, c):
        counts, unseen = self.counts[c], self.log_unseen[c]
        s = self.log_prior[c]
        for w in tokens(text):
            if w in self.vocabulary:
                s += math.log(counts.get(w, 0) + 1) + unseen
        return s

    def predict(self, text):
        # Ties go to the first label in sorted order, "ham".
        return max(self.labels, key=lambda c: (self.score(text, c), -self.labels.index(c)))


def evaluate(model, rows, positive="spam"):
    tp = fp = fn = tn = 0
    for label, text in rows:
        guess = model.predict(text)
        if guess == positive:
            tp, fp = (tp + 1, fp) if label == positive else (tp, fp + 1)
        else:
            fn, tn = (fn + 1, tn) if label == positive else (fn, tn + 1)
    n = tp + fp + fn + tn
    return {"messages": n, "correct": tp + tn, "accuracy": (tp + tn) / n,
            "precision": tp / (tp + fp) if tp + fp else 0.0, "recall": tp / (tp + fn) if tp + fn else 0.0,
            "tp": tp, "fp": fp, "fn": fn, "tn": tn}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("datadir")
    parser.add_argument("--json", help="write the figures there as JSON")
    args = parser.parse_args()
    train = read_split(args.datadir, "train")
    model = NaiveBayes(train)
    result = {"train": {"messages": len(train)}, "vocabulary": len(model.vocabulary)}
    print(f"naive Bayes, trained on {len(train)} messages, {len(model.vocabulary)} distinct words")
    for split in ("valid", "test"):
        r = evaluate(model, read_split(args.datadir, split))
        result[split] = r
        print(f"  {split:5}  accuracy {100 * r['accuracy']:.1f}% ({r['correct']}/{r['messages']})  "
              f"spam precision {100 * r['precision']:.1f}% ({r['tp']}/{r['tp'] + r['fp']})  "
              f"recall {100 * r['recall']:.1f}% ({r['tp']}/{r['tp'] + r['fn']})")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(result, f, indent=1, sort_keys=True)
            f.write("\n")


if __name__ == "__main__":
    sys.exit(main())
