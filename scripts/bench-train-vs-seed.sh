#!/usr/bin/env bash
# Training throughput, ours vs the seed's PyTorch code (../shared/reference, Debian's python3-torch):
# the same model, the same batches, the same thread count, in one run. Prints both and the ratio.
# usage: scripts/bench-train-vs-seed.sh [RECIPE] [STEPS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ATTNSCOPE_BUILD_DIR:-$root/build}"
recipe="${1:-$root/resources/recipes/reverse.json}"
steps="${2:-200}"
threads="$(nproc)"
"$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --parallel "$threads" --target attnscope >/dev/null
batches="$(mktemp)"
trap 'rm -f "$batches"' EXIT
ours="$("$build/attnscope" bench-train --recipe "$recipe" --steps "$steps" --warmup 5 --batches "$batches")"
theirs="$(/usr/bin/python3 "$root/scripts/bench_train_seed.py" --recipe "$recipe" --batches "$batches" \
          --warmup 5 --threads "$threads")"
echo "$ours"
echo "$theirs"
rate() { sed -E 's/.*: ([0-9]+) tokens\/s.*/\1/' <<<"$1"; }
awk -v a="$(rate "$ours")" -v b="$(rate "$theirs")" 'BEGIN { printf "ours / seed: %.2f\n", a / b }'
