#!/usr/bin/env bash
# Installs the build into a temporary prefix and runs the installed program, and a copy of the build folder,
# with the source tree's resources and the build folder's own copy of them out of reach: both must find their
# built-in models at run time, relative to the executable.
#   tests/install/check-install.sh SOURCE_DIR BUILD_DIR
set -euo pipefail
src="$(cd "$1" && pwd)"
build="$(cd "$2" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
fail() { echo "check-install: $*" >&2; exit 1; }

prefix="$tmp/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null
expected=(
  bin/attnscope lib/attnscope/libattnscope_app.so lib/attnscope/libattnscope_spm.so
  share/attnscope/recipes/en-es.json share/applications/attnscope.desktop
  share/icons/hicolor/scalable/apps/attnscope.svg share/doc/attnscope/LICENSE
  share/doc/attnscope/THIRD_PARTY_NOTICES.md
)
for size in 16 32 48 64 128 256; do expected+=("share/icons/hicolor/${size}x${size}/apps/attnscope.png"); done
for model in "$src"/resources/models/*/; do
  for f in "$model"*; do expected+=("share/attnscope/models/$(basename "$model")/$(basename "$f")"); done
done
for f in "${expected[@]}"; do
  [ -f "$prefix/$f" ] || fail "not installed: $f"
done
for size in 16 32 48 64 128 256; do
  head -c 24 "$prefix/share/icons/hicolor/${size}x${size}/apps/attnscope.png" | tail -c 8 | od -An -tu1 |
    awk -v s="$size" '{ w = $1*16777216 + $2*65536 + $3*256 + $4; if (w != s) { print "icon " s ": " w " px wide"; exit 1 } }' ||
    fail "an icon is not the size its folder says"
done
echo "installed ${#expected[@]} files under the prefix: the program, its two libraries, $(ls "$prefix/share/attnscope/models" | wc -l) built-in models, recipes, desktop entry, 7 icons, licence and notices"
grep -qx "Exec=$prefix/bin/attnscope" "$prefix/share/applications/attnscope.desktop" ||
  fail "the desktop entry does not run the installed program: $(grep Exec= "$prefix/share/applications/attnscope.desktop")"
if command -v desktop-file-validate >/dev/null; then
  desktop-file-validate "$prefix/share/applications/attnscope.desktop" || fail "the desktop entry does not validate"
  echo "desktop-file-validate: the desktop entry is valid"
fi

# A copied build folder: the program, its libraries and its share/ moved elsewhere.
copy="$tmp/copied-build"
mkdir -p "$copy"
cp "$build/attnscope" "$build/libattnscope_app.so" "$build/libattnscope_spm.so" "$copy/"
cp -r "$build/share" "$copy/share"
mkdir -m 700 "$tmp/runtime"
export XDG_CONFIG_HOME="$tmp/config" XDG_RUNTIME_DIR="$tmp/runtime" QT_QPA_PLATFORM=offscreen
export src build prefix copy tmp

# Out of reach: the program must not need the source tree's resources/ or the build folder's data. Both are
# hidden under empty mounts in a mount namespace of this script's own, so nothing outside it ever sees them
# gone (a renamed folder would stay renamed if the test were killed).
runs() {
  set -euo pipefail
  fail() { echo "check-install: $*" >&2; exit 1; }
  [ -z "$(ls -A "$src/resources")" ] && [ -z "$(ls -A "$build/share")" ] || fail "the folders are not hidden"
  cd "$tmp"
  out="$("$prefix/bin/attnscope" --screenshot "$tmp/installed.png" 2>&1)" || fail "the installed program failed: $out"
  echo "installed, from $tmp: $out"
  grep -q "the model in $prefix/share/attnscope/models/en-es" <<<"$out" || fail "it did not open the installed default model"
  # A SentencePiece model (the module in lib/attnscope), from the installed share folder.
  "$prefix/bin/attnscope" dump --model "$prefix/share/attnscope/models/en-es" --src "The old man." >"$tmp/dump.json" ||
    fail "dump with the installed en-es failed"
  grep -q '"▁old"' "$tmp/dump.json" || fail "the installed en-es did not tokenize with SentencePiece"
  out="$("$copy/attnscope" --screenshot "$tmp/copied.png" 2>&1)" || fail "the copied build failed: $out"
  echo "copied build: $out"
  grep -q "the model in $copy/share/attnscope/models/en-es" <<<"$out" || fail "the copied build did not open its own models"
}
export -f runs
if unshare -rm true 2>/dev/null; then
  unshare -rm bash -c 'mount -t tmpfs none "$src/resources" && mount -t tmpfs none "$build/share" && runs'
  echo "(resources/ of the source tree and share/ of the build folder were empty mounts for these runs)"
else
  # No mount namespace here: the folders are swapped for empty ones for the runs and put back on any exit
  # but a kill (ctest runs this serially; a later run first puts back what a killed one left).
  for d in "$src/resources" "$build/share"; do
    [ -e "$d.out-of-reach" ] && fail "$d.out-of-reach exists: a killed run left it; move it back to $d"
  done
  restore() {
    for d in "$src/resources" "$build/share"; do
      if [ -e "$d.out-of-reach" ]; then rmdir "$d" 2>/dev/null || true; mv "$d.out-of-reach" "$d" || true; fi
    done
    rm -rf "$tmp"
  }
  trap restore EXIT INT TERM
  for d in "$src/resources" "$build/share"; do mv "$d" "$d.out-of-reach" && mkdir "$d"; done
  runs
  echo "(resources/ of the source tree and share/ of the build folder were moved away for these runs)"
fi
echo "check-install: passed"
