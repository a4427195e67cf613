#!/usr/bin/env bash
# Translates everyday English sentences with the en-es models and with Apertium (their teacher) and prints a
# Markdown table of all, then chrF/BLEU of each model against Apertium on these sentences.
#
#   scripts/compare-en-es.sh [SENTENCES.txt] [MODEL_DIR...]
#
# Defaults: scripts/corpus/everyday-en.txt (one sentence per line); resources/models/en-es (the Transformer)
# and resources/models/en-es-gru (the seed's GRU translator, trained on the same corpus and pieces).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sentences="${1:-$root/scripts/corpus/everyday-en.txt}"
shift || true
models=("$@")
if [ ${#models[@]} -eq 0 ]; then
  models=("$root/resources/models/en-es")
  [ -d "$root/resources/models/en-es-gru" ] && models+=("$root/resources/models/en-es-gru")
fi
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
header="| English |"
rule="| --- |"
cp "$work/en.txt" "$work/table.tsv"
for i in "${!models[@]}"; do
  "$bin" eval --model "${models[$i]}" --pairs "$work/pairs.tsv" --out "$work/out$i.tsv" > "$work/scores$i.txt"
  cut -f3 "$work/out$i.tsv" | paste "$work/table.tsv" - > "$work/table.next" && mv "$work/table.next" "$work/table.tsv"
  header+=" attnscope $(basename "${models[$i]}") |"
  rule+=" --- |"
done
paste "$work/table.tsv" "$work/es.txt" > "$work/table.next" && mv "$work/table.next" "$work/table.tsv"
echo "$header Apertium |"
echo "$rule --- |"
awk -F'\t' '{ gsub(/\|/, "\\|"); line = "|"; for (i = 1; i <= NF; i++) line = line " " $i " |"; print line }' \
  "$work/table.tsv"
for i in "${!models[@]}"; do
  echo
  echo "$(basename "${models[$i]}"):"
  cat "$work/scores$i.txt"
done
