#!/usr/bin/env bash
# The seed's recurrent attention models, ours vs its PyTorch code (tests/reference/seed_rnn.py, Debian's
# python3-torch): a classifier keystroke at 64 tokens, a GRU translator's encoding of 64 tokens and one decode
# step, on the same weights (written by the seed's side), ids, thread count and OpenBLAS kernels.
# usage: scripts/bench-recurrent-vs-seed.sh [--quick]
#   --quick   3 runs after 1 warm-up: shows that both sides run; not numbers to quote
#   RUNS, WARMUP override the defaults (50; 5). BUILD=0 skips the build step.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ATTNSCOPE_BUILD_DIR:-$root/build}"
threads="$(nproc)"
runs=50 warmup=5
if [[ "${1:-}" == "--quick" ]]; then
    runs=3 warmup=1
elif [[ $# -gt 0 ]]; then
    sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0" >&2
    exit 2
fi
runs="${RUNS:-$runs}" warmup="${WARMUP:-$warmup}"

"$root/scripts/build-attnscope.sh" --tests
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 "$root/scripts/bench_recurrent_seed.py" --write "$tmp/weights"
"$build/attnscope" bench --only recurrent --recurrent-weights "$tmp/weights" --runs "$runs" --warmup "$warmup" \
    --threads "$threads" --json >"$tmp/ours.json"
kernels="$(/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["machine"]["openblas"])' \
    <"$tmp/ours.json")"
seed=(/usr/bin/python3 "$root/scripts/bench_recurrent_seed.py" --ours "$tmp/ours.json" --threads "$threads")
if [[ -n "$kernels" ]]; then
    OPENBLAS_CORETYPE="$kernels" "${seed[@]}"
else
    "${seed[@]}"
fi
