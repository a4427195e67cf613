#!/usr/bin/env bash
# Translates everyday English sentences with the en-es model and with Apertium (its teacher) and prints a
# Markdown table of both, then chrF/BLEU of the model against Apertium on these sentences.
#
#   scripts/compare-en-es.sh [SENTENCES.txt] [MODEL_DIR]
#
# Defaults: scripts/corpus/everyday-en.txt (one sentence per line), resources/models/en-es.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sentences="${1:-$root/scripts/corpus/everyday-en.txt}"
model="${2:-$root/resources/models/en-es}"
bin="${ATTNSCOPE_BIN:-$root/build/attnscope}"
[ -f "$sentences" ] || { echo "compare-en-es: no file $sentences" >&2; exit 2; }
[ -x "$bin" ] || { echo "compare-en-es: build first (scripts/run.sh or cmake --build build); no $bin" >&2; exit 2; }
"$root/scripts/setup-deps.sh" apertium apertium-eng-spa >/dev/null

work="$(mktemp -d "${TMPDIR:-/tmp}/compare-en-es.XXXXXX")"
trap 'rm -rf "$work"' EXIT
export LC_ALL=C.UTF-8
grep -v '^[[:space:]]*$' "$sentences" > "$work/en.txt"
# Each sentence as its own paragraph: apertium's text mode moves words across single newlines.
awk 'BEGIN { ORS = "\n\n" } { print }' "$work/en.txt" | apertium -u eng-spa |
  awk 'NF { sub(/^[ \t]+/, ""); sub(/[ \t]+$/, ""); print }' > "$work/es.txt"
if [ "$(wc -l < "$work/en.txt")" != "$(wc -l < "$work/es.txt")" ]; then
  echo "compare-en-es: apertium returned a different number of lines" >&2
  exit 1
fi
sed 's/$/\teveryday/' "$work/es.txt" | paste "$work/en.txt" - > "$work/pairs.tsv"
"$bin" eval --model "$model" --pairs "$work/pairs.tsv" --out "$work/out.tsv" > "$work/scores.txt"

echo "| English | attnscope ($(basename "$model")) | Apertium |"
echo "| --- | --- | --- |"
awk -F'\t' '{ gsub(/\|/, "\\|"); print "| " $1 " | " $3 " | " $2 " |" }' "$work/out.tsv"
echo
cat "$work/scores.txt"
