"""The README of data/en-es, written from the build's own counts so the two never disagree."""

import textnorm as tn

_ROWS = [
    ("source_entries", "entries in the package (fortunes: `%` entries; bible: sentences)"),
    ("source_rejected_shape", "rejected by the source's shape rules"),
    ("extracted", "English sentences taken"),
    ("dropped_en_chars", "dropped: English outside plain Latin text"),
    ("dropped_en_length", "dropped: English length"),
    ("dropped_duplicate", "dropped: duplicate English (ignoring case)"),
    ("translated", "translated"),
    ("dropped_markers", "dropped: apertium marked a word (`*`, `#`, `@`)"),
    ("dropped_compose", "dropped: composed sentence kept its pronoun"),
    ("dropped_es_chars", "dropped: Spanish outside plain Latin text"),
    ("dropped_es_length", "dropped: Spanish length"),
    ("dropped_cap", "dropped: over the Bible cap"),
    ("final", "**kept**"),
    ("train", "train"),
    ("valid", "valid"),
    ("test", "test"),
]

_SOURCES = {
    "wordnet": "`wordnet-base`: the example sentences in WordNet 3.0's glosses "
               "(`/usr/share/wordnet/data.{noun,verb,adj,adv}`, the quoted text after `|`). "
               "Mostly short, lower-case, everyday usage, many of them adjective-noun phrases.",
    "fortunes": "`fortunes`, `fortunes-min`: entries of `/usr/share/games/fortunes/*` that are "
                "one or two plain sentences ending in `.`, `!` or `?`, with a trailing "
                "`-- Author` line or suffix removed. Rejected: entries with an empty line, "
                "an indented line after the first (dialogue, verse, pictures), a `Speaker:` "
                "label or a line ending in `:`, verse (three or more lines all starting with a "
                "capital), more than one pair of double quotes, or control characters. The "
                "files `art`, `ascii-art` (pictures), `translate-me` (not English) and "
                "`ethnic` (jokes about nationalities) are skipped, as would be an `off/` "
                "directory.",
    "bible": "`bible-kjv-text` read through `bible-kjv`'s `bible` program: sentences of the "
             "King James Version of 4 to 20 words that end in `.`, `!` or `?` and contain no "
             "Early Modern forms (thee, thou, ye, hath, unto, -eth verbs, \"not\" after a "
             "full verb as in \"they know not\", ...) and do not open with \"For\" (which "
             "apertium renders \"Para\"). At most {cap} are kept, those with the lowest hash: "
             "KJV syntax stays archaic even without those words, so the Bible adds vocabulary "
             "without being allowed to set the style.",
    "generated": "`scripts/corpus/grammar_en.py` and `generate_en.py`: {generated} distinct "
                 "sentences from a small grammar of about 210 everyday nouns, 60 adjectives "
                 "and 30 verbs with a fixed seed: noun phrases (\"a big house\", \"the red "
                 "car\"), copula sentences (\"the red car is expensive\"), transitive and "
                 "intransitive sentences with prepositional phrases (\"the old man reads a "
                 "book\", \"my sister lives in a small town\"), \"there is\", yes/no "
                 "questions, in both sentence case with a full stop and lower case without "
                 "one. Words and constructions that apertium translates wrongly were left out "
                 "of the grammar (noted beside its lists). One it gets wrong is too common to "
                 "leave out: a singular noun subject before an intransitive verb or \"drinks\" "
                 "(\"my sister lives\" -> \"mis vidas de hermana\"). For those, apertium "
                 "translates the subject and, separately, the sentence with a pronoun for the "
                 "subject; Spanish drops the pronoun, so the subject's translation followed by "
                 "the sentence's is the Spanish (\"Mi hermana\" + \"Vive en una ciudad "
                 "pequeña\").",
}


def _size(n):
    return f"{n / 1e6:.1f} MB" if n >= 1e6 else f"{n / 1e3:.0f} kB"


def render(stats, versions, sizes, sources, splits):
    settings = stats["settings"]
    totals = {key: sum(stats.get(s, {}).get(key, 0) for s in sources) for key, _ in _ROWS}
    compressed = any(name.endswith(".xz") for name in sizes)
    out = []
    w = out.append
    w("# English-Spanish parallel corpus\n")
    w("Sentence pairs for training attnscope's translation models: English sentences from "
      "Debian packages and from a small grammar of everyday English, translated into Spanish "
      "by Apertium's rule-based `eng-spa` pair. Built by `scripts/make-corpus-en-es.sh` from "
      "Debian packages only; the same package versions give the same bytes "
      "(`SHA256SUMS`).\n")
    if settings.get("limit"):
        w(f"**Trial build: at most {settings['limit']} sentences per source.**\n")
    w("## Files\n")
    w("`train.tsv`, `valid.tsv`, `test.tsv`: UTF-8, one pair per line, no header, three "
      "tab-separated columns `english<TAB>spanish<TAB>source`, where source is one of "
      f"{', '.join('`' + s + '`' for s in sources)}. Lines are ordered by a hash of the "
      "English sentence, so any prefix is a fair sample of every source.\n")
    w("| file | pairs | size |")
    w("| --- | ---: | ---: |")
    for split in splits:
        for name in (f"{split}.tsv", f"{split}.tsv.xz"):
            if name in sizes:
                pairs = totals[split]
                w(f"| `{name}` | {pairs} | {_size(sizes[name])} |")
    w("")
    if compressed:
        w("The repository keeps the `.tsv.xz` files (`xz -9`); the `.tsv` files are ignored "
          "by git. Get them with `xz -dk data/en-es/*.tsv.xz` or by running the script, and "
          "check either with `cd data/en-es && sha256sum -c SHA256SUMS`.\n")
    w("## Regenerating\n")
    w("```sh\nscripts/make-corpus-en-es.sh            # installs missing packages, "
      "rewrites data/en-es/\nscripts/make-corpus-en-es.sh --limit 300 --out /tmp/en-es   "
      "# a quick trial\n```\n")
    w("It translates with two apertium processes and takes about a minute and a half on "
      "two cores.\n")
    w("## Sources\n")
    for s in sources:
        text = _SOURCES[s].replace("{cap}", str(settings["bible_cap"]))
        w(f"- `{s}` — " + text.replace("{generated}", str(settings["generated"])))
    w("")
    w("## Pipeline and counts\n")
    w("1. **English**: Unicode NFC; curly quotes, `«»`, dashes and `…` made ASCII; "
      "whitespace collapsed, no space before `.,;:!?`; quotes wrapping the whole sentence "
      "removed. Kept when every character is a Latin letter, a digit, a space or one of "
      "`.,;:!?'\"-()&%¿¡`, with "
      f"{tn.MIN_WORDS} to {tn.MAX_WORDS} words and at most {tn.MAX_CHARS} characters. "
      "Duplicates are dropped ignoring case, the first source in the table winning.")
    w("2. **Translation**: `apertium eng-spa` with its marks on, every sentence followed by "
      "an empty line. In apertium's text format a single newline is not a sentence "
      "boundary, and words of one line turn up in the translation of the next (88 of 300 "
      "WordNet examples came out different from their translation alone). As its own "
      "paragraph, every sentence compared translated as it does alone, apart from a few "
      "with unknown words, which are dropped anyway; the build re-checks a sample. `-f line` was no "
      "alternative: it drops every line's final full stop. The output must have one line "
      "and one empty line per sentence, or the build stops.")
    w("3. **Marks**: a pair is dropped when the Spanish contains `*` (unknown word), `#` "
      "(generation error) or `@` (no bilingual entry). English with those characters never "
      "reaches apertium, so the marks are unambiguous. The lines kept are exactly what "
      "`apertium -u eng-spa` produces (the `-u` switch only removes the marks): on one full "
      "build all 78474 unmarked lines were identical, and every build checks a sample.")
    w("4. **Spanish**: the same normalisation and filters as the English. The first letter "
      "takes the case of the English one (apertium capitalises by position in the stream, "
      "and writes \"EL agua\" for \"The water\"), and a sentence ending in `?` or `!` gets "
      "the opening `¿` or `¡` apertium leaves out.")
    w("5. **Split**: by the first 64 bits of SHA-256 of the lower-cased English sentence, "
      "modulo 100: 0-1 test, 2-3 valid, the rest train. A sentence keeps its split when "
      "others are added or removed.\n")
    w("| step | " + " | ".join(f"`{s}`" for s in sources) + " | all |")
    w("| --- |" + " ---: |" * (len(sources) + 1))
    for key, label in _ROWS:
        cells = [str(stats.get(s, {}).get(key, "–" if key.startswith("source_") else 0))
                 for s in sources]
        w(f"| {label} | " + " | ".join(cells) + f" | {totals[key]} |")
    w("")
    w("## Quality\n")
    w("Apertium is rule-based and literal. Expect systematic errors: *ser* where *estar* "
      "belongs, no personal *a*, word-by-word idioms, and for WordNet's fragments the odd "
      "mistagged word (\"a car\" once comes out as \"un automovilístico\"). The generated "
      "sentences avoid the constructions found to fail, so the everyday patterns, "
      "adjective-noun order above all (\"the red car\" -> \"el coche rojo\"), come out "
      "consistently. Not covered: \"is fast\" (apertium gives \"es rápidamente\") and "
      "location after \"is\" (\"es en el jardín\").\n")
    w("## Packages and licences\n")
    w("Built with these Debian 12 package versions; each package's terms are in "
      "`/usr/share/doc/<package>/copyright`. The Spanish side is output of "
      "apertium-eng-spa (GPL).\n")
    for package, version in versions.items():
        w(f"- `{package}` {version}")
    w("")
    return "\n".join(out)
