#!/usr/bin/env bash
# Inference latency, ours vs the seed's PyTorch code (tests/reference/seed_transformer.py, Debian's python3-torch): analysis
# (a teacher-forced pass that keeps every attention probability) and greedy decoding of 63 tokens after a
# source of T tokens, on the same weights, token ids, thread count and OpenBLAS kernels.
# The models are the two the seed's code can build: the default model's shape (3+3 layers, d_model 256,
# 4 heads, d_ff 1024, vocab 8000) and the 6+6-layer d_model 512 8-head encoder-decoder, both with random
# weights and max_len 2048, written once by `attnscope init`; GPT-2's decoder-only shape has no counterpart
# there (`attnscope bench` times it on our side).
# usage: scripts/bench-vs-seed.sh [--quick]
#   --quick   T in {16, 64}, 3 runs after 1 warm-up: shows that both sides run; not numbers to quote
#   LENGTHS, RUNS, WARMUP override the defaults (16,64,256,1024; 20; 3). BUILD=0 skips the build step.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ATTNSCOPE_BUILD_DIR:-$root/build}"
threads="$(nproc)"
lengths=16,64,256,1024 runs=20 warmup=3
if [[ "${1:-}" == "--quick" ]]; then
    lengths=16,64 runs=3 warmup=1
elif [[ $# -gt 0 ]]; then
    sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0" >&2
    exit 2
fi
lengths="${LENGTHS:-$lengths}" runs="${RUNS:-$runs}" warmup="${WARMUP:-$warmup}"

"$root/scripts/build-attnscope.sh" --tests
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

# The default model's config with a random model's tokenizer, and room for the longest T.
/usr/bin/python3 - "$root/resources/models/en-es/config.json" >"$tmp/default.json" <<'PY'
import json, sys
c = json.load(open(sys.argv[1]))
c.update(name="default", max_len=2048,
         tokenizer={"type": "char", "src_vocab": "vocab.json", "tgt_vocab": "vocab.json"})
print(json.dumps(c))
PY
cat >"$tmp/medium.json" <<'JSON'
{"name": "medium", "encoder_layers": 6, "decoder_layers": 6, "d_model": 512, "heads": 8, "d_ff": 2048,
 "src_vocab_size": 8000, "tgt_vocab_size": 8000, "max_len": 2048}
JSON
for m in default medium; do
    "$build/attnscope" init --config "$tmp/$m.json" --out "$tmp/$m" --seed 1 >/dev/null
done

"$build/attnscope" bench --only table --no-gui --sizes "$tmp/default,$tmp/medium" --lengths "$lengths" --runs "$runs" \
    --warmup "$warmup" --threads "$threads" --greedy 63 --json >"$tmp/ours.json"
kernels="$(/usr/bin/python3 -c 'import json, sys; print(json.load(sys.stdin)["machine"]["openblas"])' \
    <"$tmp/ours.json")"
seed=(/usr/bin/python3 "$root/scripts/bench_vs_seed.py" --ours "$tmp/ours.json" --threads "$threads")
if [[ -n "$kernels" ]]; then
    OPENBLAS_CORETYPE="$kernels" "${seed[@]}"
else
    "${seed[@]}"
fi
