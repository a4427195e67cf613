"""The README of data/spam/, written from what the build counted (stats.json) and the files it wrote.

  spam_readme.py WORK OUT   OUT/README.md from WORK/stats.json and WORK/baseline.json
"""
import argparse
import json
import os

from spam_corpus import (GROUPS, LABELS, MAX_BODY, MAX_SUBJECT, NEAR_PREFIX, SEPARATOR, SPLITS, TEST_PERCENT,
                         VALID_PERCENT)


def _size(path):
    n = os.path.getsize(path)
    if n >= 1000 * 1000:
        return f"{n / 1e6:.1f} MB"
    return f"{n / 1e3:.0f} kB"


def _n(x):
    return f"{x:,}"


def readme(work, out):
    with open(os.path.join(work, "stats.json"), encoding="utf-8") as f:
        stats = json.load(f)
    with open(os.path.join(work, "baseline.json"), encoding="utf-8") as f:
        base = json.load(f)
    pkg, groups, splits, parse = stats["package"], stats["groups"], stats["splits"], stats["parse"]
    total = {label: sum(splits[s][label] for s in SPLITS) for label in LABELS}
    kept = sum(total.values())
    messages = sum(groups[g]["messages"] for g in GROUPS)
    near = stats["near"]

    lines = []
    w = lines.append
    w("# Spam and ham e-mail")
    w("")
    w("Short e-mail texts labelled `spam` or `ham` (wanted mail) for attnscope's text classifiers: the "
      "subject and the start of the body of every message of the SpamAssassin public mail corpus, as "
      f"packaged on npm (`{pkg['name']}` {pkg['version']}). Built by `scripts/make-corpus-spam.sh`; "
      "the same package version gives the same bytes (`SHA256SUMS`).")
    w("")
    w("## Files")
    w("")
    w("`train.tsv`, `valid.tsv`, `test.tsv`: UTF-8, one message per line, no header, two tab-separated "
      "columns `label<TAB>text`, where label is `ham` or `spam` and the text has no tabs or newlines. "
      "Lines are ordered by a hash of the text, so labels and sources are mixed and any prefix is a "
      "fair sample.")
    w("")
    w("| file | ham | spam | messages | size |")
    w("| --- | ---: | ---: | ---: | ---: |")
    for s in SPLITS:
        c = splits[s]
        for ext in ("tsv", "tsv.xz"):
            w(f"| `{s}.{ext}` | {_n(c['ham'])} | {_n(c['spam'])} | {_n(c['ham'] + c['spam'])} | "
              f"{_size(os.path.join(out, f'{s}.{ext}'))} |")
    w(f"| all | {_n(total['ham'])} | {_n(total['spam'])} | {_n(kept)} | |")
    w("")
    shares = [100 * splits[s]["spam"] / (splits[s]["ham"] + splits[s]["spam"]) for s in SPLITS]
    w(f"Spam is {100 * total['spam'] / kept:.0f}% of the messages ({min(shares):.0f}-{max(shares):.0f}% "
      "per split). The repository keeps the `.tsv.xz` files (`xz -9`); the `.tsv` files are ignored "
      "by git. Get them with `xz -dk data/spam/*.tsv.xz` or by running the script, and check either with "
      "`cd data/spam && sha256sum -c SHA256SUMS`.")
    w("")
    w("## Regenerating")
    w("")
    w("```sh")
    w("scripts/make-corpus-spam.sh                 # installs what is missing, rewrites data/spam/")
    w("scripts/make-corpus-spam.sh --out /tmp/spam")
    w("python3 scripts/corpus/spam_baseline.py data/spam   # the baseline alone, from the .tsv.xz files")
    w("```")
    w("")
    w(f"The script installs `{pkg['name']}@{pkg['version']}` into `.deps/npm` (node and npm must be "
      "there; `scripts/setup-deps.sh` adds `python3` and `xz-utils`) and reads the messages with "
      "Python's standard library only (`scripts/corpus/spam_corpus.py`, `spam_baseline.py`). It takes "
      f"about ten seconds. These files were built with Python {stats['python']}; the text depends on its "
      "`email` and `html.parser` modules, but Python 3.9, 3.11 and 3.13 all gave the same bytes.")
    w("")
    w("## Source")
    w("")
    w(f"`{pkg['name']}` {pkg['version']} (stdlib, https://github.com/stdlib-js/datasets-spam-assassin) "
      "holds the SpamAssassin public mail corpus (https://spamassassin.apache.org/old/publiccorpus/): "
      "mail of 2001 and 2002 sorted into spam and ham by hand, with full headers, addresses partly "
      "obfuscated. Each message is the raw e-mail in `data/<group>/<number>.<md5>.txt`, with a `.json` "
      "copy beside it; `data/file_list.json` lists them. The groups are the upstream folders "
      "`easy_ham`, `easy_ham_2`, `hard_ham`, `spam` and `spam_2`:")
    w("")
    w("- `easy-ham-1`, `easy-ham-2`: ham that is easy to tell from spam: mostly mailing-list posts "
      "(FoRK, the Irish Linux Users' Group, freshrpms' RPM list, SpamAssassin's, Razor's and exmh's "
      "lists) and news feeds.")
    w("- `hard-ham-1`: ham that looks like spam: commercial newsletters, offers and announcements, "
      "much of it HTML.")
    w("- `spam-1`, `spam-2`: spam; `spam-2` was collected later. Money, loans, medicines, software and "
      "pornography; a few dozen messages are in Chinese, Japanese, Korean, Turkish or other languages. "
      "Some spam reached the recipient through the same mailing lists as the ham, with their subject "
      "tags.")
    w("")
    w("The `.txt` files are read, not the `.json` ones: the JSON copies replaced every byte that is not "
      "UTF-8 with U+FFFD, which damaged 500 messages written in Latin-1, windows-1252 and East Asian "
      "charsets. Each `.txt` file's MD5 matches the checksum in its name except `hard-ham-1/00230`'s, "
      "whose hostnames upstream changed in 2004.")
    w("")
    w("### Licence")
    w("")
    w(f"`package.json` gives the licence as `{pkg['license']}`. The package's `LICENSE` and README are "
      "more precise: Apache-2.0 covers its software, the data files (databases) are under the Open Data "
      "Commons Public Domain Dedication & License 1.0, and their contents under Creative Commons Zero "
      "v1.0 Universal. The messages were written by third parties and published by the SpamAssassin "
      "project for testing spam filters; its readme asks that they never be sent into a live mail "
      "system.")
    w("")
    w("## Pipeline and counts")
    w("")
    w("1. **Parsing**: Python's `email` package (`policy.default`) on the raw bytes. The Subject header "
      "has its RFC 2047 encoded words decoded; raw 8-bit bytes in it are read as for a part without a "
      "charset (below).")
    w("2. **Body**: the `text/plain` parts that are not attachments and not empty, joined; if there "
      "are none, the `text/html` parts with tags, comments, scripts, styles and titles removed and "
      "entities resolved (`html.parser`, a space at every tag); if there is neither, the whole body. "
      "Plain text that opens with markup (spam sends HTML as `text/plain`) is read as HTML. Parts that "
      "spam writes under a boundary other than the one it declares, or as the plain text of a message "
      "without a multipart header, are cut out at that boundary and read as parts. Transfer encodings "
      "are undone and each part is decoded in its charset: Latin-1 and ASCII labels are read as "
      "windows-1252, as browsers do; a part without a usable label is read as UTF-8 if it is UTF-8, "
      "else in a charset the message declares elsewhere (another part, an HTML `meta` tag, an encoded "
      "word of the subject; for ISO-2022-JP also Shift JIS and EUC-JP), else as windows-1252.")
    w(f"   Of the {_n(messages)} messages, {_n(parse['body_plain'])} bodies came from text/plain "
      f"({_n(parse['plain_markup'])} parts of them read as HTML), {_n(parse['body_html'])} from "
      f"text/html and {_n(parse['body_raw'])} from the whole body.")
    w("3. **Text**: Unicode NFC, curly quotes and dashes made ASCII, control, zero-width and replacement "
      "characters removed, whitespace (tabs and newlines too) collapsed to single spaces. The subject "
      f"is cut to at most {MAX_SUBJECT} characters and the body to at most {MAX_BODY} "
      f"({_n(parse['body_cut'])} bodies were longer), at a space in the last quarter when there is one. "
      f"The text is the subject, `{SEPARATOR.strip()}` between spaces, and the body; either may be "
      "missing. Quoted replies, signatures, list footers and URLs stay as they are.")
    w("4. **Left out**: messages whose text names sexual material involving minors (the whole words "
      "lolita, preteen, underage, child porn, kiddie porn, jailbait, case-folded, and their Japanese and "
      "Korean spellings) are not redistributed here.")
    w("5. **Duplicates**: an exact duplicate of an earlier text (in the package's order) is dropped; a "
      "text that turns up as both ham and spam would be dropped altogether (none does).")
    w(f"6. **Split**: by the first 64 bits of SHA-256 of the body (of the subject when there is no body), "
      f"modulo 100: 0-{TEST_PERCENT - 1} test, {TEST_PERCENT}-{TEST_PERCENT + VALID_PERCENT - 1} "
      "valid, the rest train. Spam campaigns send one body under many subjects; hashing the body keeps "
      f"them in one split (with a hash of the whole text, {_n(stats['text_split_leak'])} test messages "
      "would have had their body in the training set). A message keeps its split when others are "
      "added or removed.")
    w("")
    rows = [
        ("messages", "messages in the package"),
        ("no_subject", "without a subject"),
        ("no_body", "without body text"),
        ("dropped_empty", "dropped: no text at all"),
        ("dropped_excluded", "dropped: advertises sexual material involving minors"),
        ("dropped_duplicate", "dropped: duplicate text"),
        ("dropped_conflict", "dropped: text both ham and spam"),
        ("kept", "**kept**"),
        ("train", "train"),
        ("valid", "valid"),
        ("test", "test"),
    ]
    w("| step | " + " | ".join(f"`{g}`" for g in GROUPS) + " | all |")
    w("| --- |" + " ---: |" * (len(GROUPS) + 1))
    for key, title in rows:
        w(f"| {title} | " + " | ".join(_n(groups[g].get(key, 0)) for g in GROUPS)
          + f" | {_n(sum(groups[g].get(key, 0) for g in GROUPS))} |")
    w("")
    w("The bodies without text show only pictures, a frame or a script. The duplicates are mostly spam "
      "sent more than once.")
    w("")
    w("## Caveats")
    w("")
    w(f"- Near duplicates cross the split: {_n(near['test']['spam'])} spam and "
      f"{_n(near['test']['ham'])} ham of the test set (valid: {_n(near['valid']['spam'])} and "
      f"{_n(near['valid']['ham'])}) have a body whose first {NEAR_PREFIX} characters start a training "
      "body too: campaigns that vary a name, an amount or a tracking code, and list digests and news "
      "feeds that open the same way every time. Figures on these splits are somewhat optimistic for "
      "mail never seen before.")
    w("- The ham is mostly technical mailing lists of 2002; list tags in the subject (`[ILUG]`, "
      "`[SAtalk]`, ...), quoted replies and list footers give much of it away. The share of spam is the "
      "corpus's, not that of any real mailbox.")
    w("- A few spam messages written in an East Asian, Thai or Turkish charset that they do not "
      "declare, or declare wrongly, remain mojibake (Latin-1 letters in place of the script).")
    w(f"- {_n(stats['non_ascii']['spam'])} spam and {_n(stats['non_ascii']['ham'])} ham texts have "
      "characters outside ASCII; in ham mostly accented letters, bullets and symbols such as `£`, and "
      "two Japanese messages.")
    w("")
    w("## Baseline")
    w("")
    w("`scripts/corpus/spam_baseline.py`: multinomial naive Bayes on lower-cased word tokens "
      "(Python's `\\w+`, so letters, digits and `_`), class priors from the training counts, add-one "
      "(Laplace) smoothing over the training vocabulary; words not seen in training are ignored. "
      f"Trained on `train.tsv` ({_n(base['train']['messages'])} messages, {_n(base['vocabulary'])} "
      "distinct words); spam is the positive class.")
    w("")
    w("| split | messages | accuracy | spam precision | spam recall | spam caught | ham flagged | "
      "spam missed | ham passed |")
    w("| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for s in ("valid", "test"):
        r = base[s]
        w(f"| {s} | {_n(r['messages'])} | {100 * r['accuracy']:.1f}% ({_n(r['correct'])}) | "
          f"{100 * r['precision']:.1f}% ({_n(r['tp'])}/{_n(r['tp'] + r['fp'])}) | "
          f"{100 * r['recall']:.1f}% ({_n(r['tp'])}/{_n(r['tp'] + r['fn'])}) | {_n(r['tp'])} | "
          f"{_n(r['fp'])} | {_n(r['fn'])} | {_n(r['tn'])} |")
    w("")
    w("On the test set, the missed spam is mostly spam that reads like a letter (a story, a plea for a "
      "beneficiary), spam in other languages, and messages that are only a subject; the flagged ham is "
      "commercial newsletters and offers.")
    w("")
    with open(os.path.join(out, "README.md"), "w", encoding="utf-8", newline="\n") as f:
        f.write("\n".join(lines))


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("work")
    parser.add_argument("out")
    args = parser.parse_args()
    readme(args.work, args.out)


if __name__ == "__main__":
    main()
