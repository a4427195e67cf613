#!/usr/bin/env bash
# Builds the English-Spanish parallel corpus in data/en-es/ from Debian packages only:
# English from WordNet's examples, fortunes, the KJV Bible and a small grammar, translated
# by apertium-eng-spa. Same packages, same bytes: run it twice and SHA256SUMS is unchanged.
#
#   scripts/make-corpus-en-es.sh [--limit N] [--out DIR] [--jobs N]
#
#   --limit N   take at most N sentences from each source, for a quick trial
#   --out DIR   write there instead of data/en-es
#   --jobs N    apertium processes (default 2)
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/data/en-es"
limit=0
jobs=2
while [ $# -gt 0 ]; do
  case "$1" in
    --limit) limit="$2"; shift 2 ;;
    --out) out="$2"; shift 2 ;;
    --jobs) jobs="$2"; shift 2 ;;
    -h|--help) sed -n '2,10p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make-corpus: unknown argument $1" >&2; exit 2 ;;
  esac
done

packages=(wordnet-base fortunes-min fortunes bible-kjv-text bible-kjv apertium apertium-eng-spa
  python3 xz-utils)
"$root/scripts/setup-deps.sh" "${packages[@]}"

# Apertium's scripts need a UTF-8 locale; C.UTF-8 is always there. Sorting and case in
# Python do not depend on it.
export LC_ALL=C.UTF-8
py=(/usr/bin/python3 -B "$root/scripts/corpus/corpus.py")

work="$(mktemp -d "${TMPDIR:-/tmp}/corpus-en-es.XXXXXX")"
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

start=$SECONDS
mkdir -p "$out"
"${py[@]}" extract "$work" --limit "$limit"
total=$(wc -l <"$work/english.txt")

# In apertium's text format a newline is not a sentence boundary: with one sentence a line,
# words of one sentence turn up in the translation of the next (88 of 300 WordNet examples
# changed). -f line is no better and also drops each line's final full stop. An empty line
# after every sentence makes each one its own paragraph, and then every sentence without
# unknown words translates as it does alone.
split -n "l/$jobs" -d -a 2 "$work/english.txt" "$work/part."
parts=("$work"/part.[0-9][0-9])
for part in "${parts[@]}"; do
  sed 's/$/\n/' "$part" | apertium eng-spa >"$part.es" &
  pids+=($!)
done
while :; do
  running=0
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && running=1; done
  done_lines=$(cat "$work"/part.*.es | wc -l)
  printf '\rmake-corpus: translated %d / %d' "$((done_lines / 2))" "$total" >&2
  [ "$running" -eq 0 ] && break
  sleep 5
done
echo >&2
for pid in "${pids[@]}"; do wait "$pid"; done
pids=()

: >"$work/spanish.txt"
for part in "${parts[@]}"; do
  n=$(wc -l <"$part")
  # Every sentence must come back as one line followed by one empty line.
  if ! awk -v n="$n" 'NR % 2 == 0 && $0 != "" { bad = 1 } END { exit (bad || NR != 2 * n) }' "$part.es"; then
    echo "make-corpus: apertium output for $(basename "$part") is not aligned with its input" >&2
    exit 1
  fi
  awk 'NR % 2 == 1' "$part.es" >>"$work/spanish.txt"
done

# Keeping only unmarked lines must give what `apertium -u` gives; check a spread sample.
awk 'NR % 37 == 1' "$work/english.txt" >"$work/check.en"
awk 'NR % 37 == 1' "$work/spanish.txt" >"$work/check.marked"
sed 's/$/\n/' "$work/check.en" | apertium -u eng-spa | awk 'NR % 2 == 1' >"$work/check.plain"
if ! paste -d '\t' "$work/check.marked" "$work/check.plain" |
    awk -F '\t' '$1 !~ /[*#@]/ { n++; if ($1 != $2) bad++ }
                 END { printf "make-corpus: -u check: %d of %d unmarked lines equal\n", n - bad, n > "/dev/stderr"; exit (bad > 0) }'; then
  echo "make-corpus: unmarked output differs from apertium -u" >&2
  exit 1
fi

# And a sentence translated inside the batch must read as it does on its own, but for the
# case of its first letter, which finish sets from the English. GNU sed lowercases UTF-8;
# mawk's tolower does not.
head -n 30 "$work/check.en" | while IFS= read -r line; do
  printf '%s\n' "$line" | apertium -u eng-spa
done | sed 's/.*/\L&/' >"$work/check.alone"
if ! head -n 30 "$work/check.marked" | sed 's/.*/\L&/' | paste -d '\t' - "$work/check.alone" |
    awk -F '\t' '$1 !~ /[*#@]/ { n++; if ($1 != $2) bad++ }
                 END { printf "make-corpus: alone check: %d of %d unmarked lines equal\n", n - bad, n > "/dev/stderr"; exit (bad > 0) }'; then
  echo "make-corpus: sentences translate differently in the batch than alone" >&2
  exit 1
fi

"${py[@]}" finish "$work" "$out"

splits=(train valid test)
rm -f "$out"/*.tsv.xz "$out/.gitignore"
size=0
for s in "${splits[@]}"; do
  xz -9 -T1 -k -c "$out/$s.tsv" >"$out/$s.tsv.xz"
  size=$((size + $(stat -c %s "$out/$s.tsv.xz")))
done
# The repository keeps the compressed files when they are small; the .tsv come from them.
if [ "$size" -le $((8 * 1024 * 1024)) ]; then
  printf '*.tsv\n' >"$out/.gitignore"
else
  rm -f "$out"/*.tsv.xz
fi

"${py[@]}" readme "$work" "$out"
shopt -s nullglob
(cd "$out" && sums=(*.tsv *.tsv.xz) && sha256sum -- "${sums[@]}" >SHA256SUMS)
echo "make-corpus: wrote $out in $((SECONDS - start)) s"
for s in "${splits[@]}"; do printf '  %-6s %7d pairs\n' "$s" "$(wc -l <"$out/$s.tsv")"; done
