#!/usr/bin/env bash
# Installs what is missing, builds, and runs every test: the command CI runs.
#   scripts/test.sh             the Release build in build/
#   scripts/test.sh --sanitize  the same suite built with AddressSanitizer and UndefinedBehaviorSanitizer, in
#                               build-sanitize/ (tests/sanitize/ holds the options and the suppressions)
# ATTNSCOPE_BUILD_DIR names another build folder. Under CI (CI set, as .ci/run and CI services set it) the
# build treats warnings as errors, so a warning cannot land unread; ATTNSCOPE_WARNINGS_AS_ERRORS=ON|OFF says
# so either way.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
sanitize=OFF
for arg in "$@"; do
  case "$arg" in
    --sanitize) sanitize=ON ;;
    *) echo "usage: scripts/test.sh [--sanitize]" >&2; exit 2 ;;
  esac
done
if [ "$sanitize" = ON ]; then
  build="${ATTNSCOPE_BUILD_DIR:-$root/build-sanitize}"
else
  build="${ATTNSCOPE_BUILD_DIR:-$root/build}"
fi
werror="${ATTNSCOPE_WARNINGS_AS_ERRORS:-$([ -n "${CI:-}" ] && echo ON || echo OFF)}"
"$root/scripts/setup-deps.sh" --tests
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DATTNSCOPE_SANITIZE="$sanitize" \
  -DATTNSCOPE_WARNINGS_AS_ERRORS="$werror" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
cd "$build"
status=0
ctest --output-on-failure --parallel 1 || status=$?
# ctest names a skipped test but not why; each skip's reason is in the log.
if grep -q "^SKIP   :" Testing/Temporary/LastTest.log 2>/dev/null; then
  echo "Skipped, and why:"
  grep -h "^SKIP   :" Testing/Temporary/LastTest.log | sed 's/^SKIP   :/ /'
fi
exit "$status"

