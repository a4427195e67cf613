#!/usr/bin/env bash
# With the seed's reference out of reach, the parity tests end as skipped (exit 77, which ctest reads as
# skipped through SKIP_RETURN_CODE), print why, and pass nothing.
#   tests/install/check-skips.sh BUILD_DIR
set -euo pipefail
build="$(cd "$1" && pwd)"
empty="$(mktemp -d)"
trap 'rm -rf "$empty"' EXIT
fail() { echo "check-skips: $*" >&2; exit 1; }
status=0
out="$(ATTNSCOPE_SEED_DIR="$empty" "$build/tests/test_parity" 2>&1)" || status=$?
[ "$status" -eq 77 ] || fail "test_parity without the reference exited $status, not 77: $out"
grep -q "^SKIP   : TestParity::seedWeightsRunHere() skipped: seed reference not found" <<<"$out" ||
  fail "the skip does not say why: $out"
grep -q "^PASS   : TestParity::seedWeightsRunHere" <<<"$out" && fail "a skipped comparison reported as passed"
grep "^SKIP" <<<"$out"
grep "^Totals" <<<"$out"
code="$(cd "$build" && ctest --show-only=json-v1 -R '^test_parity$' |
  python3 -c 'import json,sys; t=json.load(sys.stdin)["tests"][0]; print(next(p["value"] for p in t["properties"] if p["name"]=="SKIP_RETURN_CODE"))')"
[ "$code" = 77 ] || fail "ctest does not read exit 77 of test_parity as a skip (SKIP_RETURN_CODE=$code)"
echo "exit 77 with the reason printed; ctest's SKIP_RETURN_CODE for test_parity: $code"
