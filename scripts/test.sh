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
summary="$(mktemp)"
trap 'rm -f "$summary"' EXIT
ctest --output-on-failure --parallel 1 2>&1 | tee "$summary" || status=$?
# ctest names a skipped test but not why; each skip's reason is in the log, under the test that printed it.
# Every "SKIP   :" line counts, also one of a test that ctest counted as passed: Qt Test's own mains return 0
# for a skip.
skips="$(awk '/^[0-9]+\/[0-9]+ Testing: /{name=$3} /^SKIP   :/{sub(/^SKIP   : */, ""); print name ": " $0}' \
  Testing/Temporary/LastTest.log 2>/dev/null || true)"
if [ -n "$skips" ]; then
  echo "Skipped, and why:"
  sed 's/^/  /' <<<"$skips"
fi
# Under CI (CI set, as .ci/run sets it) this script has just installed everything the tests need, so a skip
# for want of it hides a check that never ran: the tests fail such a skip themselves (QSKIP_MISSING in
# tests/support/SkipReport.h), and this catches any that got past them. Only a cause no install removes stays
# a skip, and says so: "this machine: …" (a second core missing).
if [ -n "${CI:-}" ]; then
  ci_bad=0
  unexpected="$(grep -v ') this machine: ' <<<"$skips" || true)"
  if [ -n "$unexpected" ]; then
    echo "test.sh: under CI nothing may skip for want of what this script installs; these did:" >&2
    sed 's/^/  /' <<<"$unexpected" >&2
    ci_bad=1
  fi
  while read -r name; do
    [ -n "$name" ] || continue
    if ! grep -q "^$name: .*) this machine: " <<<"$skips"; then
      echo "test.sh: under CI $name was skipped without a reason of this machine's" >&2
      ci_bad=1
    fi
  done < <(sed -nE 's/^[[:space:]]+[0-9]+ - (.+) \(Skipped\)$/\1/p' "$summary")
  [ "$ci_bad" -eq 0 ] || status=1
fi
exit "$status"
