#!/usr/bin/env bash
# Training throughput, ours vs the seed's PyTorch code (tests/reference/seed_transformer.py, Debian's python3-torch):
# the same model, the same batches, the same thread count and the same OpenBLAS kernels, in one run.
# The two alternate for ROUNDS rounds (default 3) so a busy moment of the machine hits both; the ratio is
# of the medians. The seed is also timed once with the kernels OpenBLAS picks by itself: on a CPU that
# OpenBLAS does not recognise that is its slow fallback, which attnscope replaces at start-up.
# usage: scripts/bench-train-vs-seed.sh [RECIPE] [STEPS]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ATTNSCOPE_BUILD_DIR:-$root/build}"
recipe="${1:-$root/resources/recipes/reverse.json}"
steps="${2:-200}"
rounds="${ROUNDS:-3}"
threads="$(nproc)"
"$root/scripts/build-attnscope.sh" --tests
batches="$(mktemp)"
trap 'rm -f "$batches"' EXIT
seed() {
    /usr/bin/python3 "$root/scripts/bench_train_seed.py" --recipe "$recipe" --batches "$batches" --warmup 5 \
        --threads "$threads"
}
rate() { sed -E 's/.*: ([0-9]+) tokens\/s.*/\1/' <<<"$1"; }
kernels() { sed -nE 's/.*OpenBLAS ([^)]+)\).*/\1/p' <<<"$1"; }
median() { sort -n | awk '{ v[NR] = $1 } END { print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'; }

ours_rates=() seed_rates=()
for ((r = 1; r <= rounds; r++)); do
    ours="$("$build/attnscope" bench-train --recipe "$recipe" --steps "$steps" --warmup 5 --batches "$batches")"
    k="$(kernels "$ours")"
    if [[ -n "$k" && "$k" != "not in use" ]]; then
        theirs="$(OPENBLAS_CORETYPE="$k" seed)"
    else
        theirs="$(seed)"
    fi
    echo "round $r  $ours"
    echo "round $r  $theirs"
    ours_rates+=("$(rate "$ours")")
    seed_rates+=("$(rate "$theirs")")
done
a="$(printf '%s\n' "${ours_rates[@]}" | median)"
b="$(printf '%s\n' "${seed_rates[@]}" | median)"
echo "median tokens/s: ours $a, seed $b"
awk -v a="$a" -v b="$b" 'BEGIN { printf "ours / seed, same OpenBLAS kernels: %.2f\n", a / b }'
theirs="$(env -u OPENBLAS_CORETYPE /usr/bin/python3 "$root/scripts/bench_train_seed.py" --recipe "$recipe" \
          --batches "$batches" --warmup 5 --threads "$threads")"
if [[ "$(kernels "$theirs")" != "$k" ]]; then
    echo "seed as it starts by itself: $theirs"
    awk -v a="$a" -v b="$(rate "$theirs")" \
        'BEGIN { printf "ours / seed with its own OpenBLAS choice: %.2f\n", a / b }'
fi
