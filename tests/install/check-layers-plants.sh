#!/usr/bin/env bash
# scripts/check-layers.sh must pass on a copy of the tree, and refuse one planted include of each kind it
# knows, naming the rule that include breaks. Without this, a check that had stopped seeing a kind of
# include would pass as quietly as a tree that keeps the floors.
#   tests/install/check-layers-plants.sh SOURCE_DIR
set -euo pipefail
src="$1"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
fail() { echo "check-layers-plants: $*" >&2; exit 1; }

mkdir -p "$work/tree"
(cd "$src" && find core ui app \( -name '*.h' -o -name '*.cpp' \) -print0 | tar -c --null -T - -f -) | tar -x -C "$work/tree"
"$src/scripts/check-layers.sh" "$work/tree" >/dev/null || fail "the tree as it is does not pass"

# FILE, the include line planted at its end, and what the refusal must say.
plants=(
  'core/base/Files.cpp|#include "core/run/Session.h"|core/base/ includes core/run/, a floor above it'
  'core/model/ModelConfig.cpp|#include <QString>|core/ includes Qt'
  'core/run/StepDecoder.h|#include "core/run/Session.h"|closes a circle of rooms'
  'core/text/Vocabulary.cpp|#include "ui/base/ViewState.h"|core/ includes ui/'
  'ui/base/ViewState.cpp|#include "ui/attention/AttentionPage.h"|ui/base/ includes ui/attention/, a floor above it'
  'ui/run/SessionWorker.cpp|#include "ui/views/HeatmapView.h"|ui/run/ and ui/views/ stand on one floor'
  'ui/lesson/LessonPanel.cpp|#include "ui/MainWindow.h"|ui/lesson/ includes ui/(root)/, a floor above it'
  'ui/views/HeatmapView.cpp|#include <torch/torch.h>|ui/ includes torch'
  'ui/base/ColorMap.cpp|#include "core/model/ModelParts.h"|a core header that brings torch in'
  'ui/base/ColorMap.cpp|#include "app/Args.h"|ui/ includes app/'
  'app/commands/DumpCommand.cpp|#include "app/bench/BenchMeasure.h"|app/commands/ includes app/bench/'
  'app/bench/BenchLong.cpp|#include "app/gui/StartupProbe.h"|app/bench/ includes app/gui/'
  "app/Args.cpp|#include \"app/gui/StartupProbe.h\"|app/'s root includes app/gui/"
)
refused=0
for plant in "${plants[@]}"; do
  IFS='|' read -r file line says <<<"$plant"
  [ -f "$work/tree/$file" ] || fail "the plant's file $file is not in the tree"
  cp "$work/tree/$file" "$work/kept"
  echo "$line" >>"$work/tree/$file"
  status=0
  out="$("$src/scripts/check-layers.sh" "$work/tree" 2>&1)" || status=$?
  [ "$status" -ne 0 ] || fail "$file with $line passed"
  grep -qF -- "$file" <<<"$out" || fail "$file with $line: the refusal does not name the file: $out"
  grep -qF -- "$says" <<<"$out" || fail "$file with $line: the refusal does not say \"$says\": $out"
  refused=$((refused + 1))
  mv "$work/kept" "$work/tree/$file" # one plant at a time
done
echo "check-layers-plants: the tree passes; ${refused} of ${#plants[@]} planted includes refused, each for its rule"
