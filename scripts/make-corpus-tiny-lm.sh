#!/usr/bin/env bash
# Builds the English text the built-in language model (resources/models/tiny-lm) is trained on, in
# data/tiny-lm/, from Debian packages only: the KJV Bible's verses, fortunes, and WordNet's synsets that
# have example sentences. Same packages, same bytes: run it twice and SHA256SUMS is unchanged.
#
#   scripts/make-corpus-tiny-lm.sh [--out DIR]
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/data/tiny-lm"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,7p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make-corpus-tiny-lm: unknown argument $1" >&2; exit 2 ;;
  esac
done

"$root/scripts/setup-deps.sh" wordnet-base fortunes-min fortunes bible-kjv-text bible-kjv python3 xz-utils
export LC_ALL=C.UTF-8
/usr/bin/python3 -B "$root/scripts/corpus/lm_corpus.py" "$out"
for s in train valid; do
  xz -9 -T1 -k -c "$out/$s.txt" >"$out/$s.txt.xz"
done
echo '*.txt' >"$out/.gitignore"
(cd "$out" && sha256sum -- train.txt valid.txt train.txt.xz valid.txt.xz >SHA256SUMS)
ls -l "$out"
