#!/usr/bin/env bash
# Builds the libFuzzer targets of tests/fuzz (clang, ASan and UBSan) and runs each for SECONDS (default 600)
# on a scratch copy of its seed corpus, one after the other, one process on one core. Prints per target the
# executions, libFuzzer's coverage (cov: edges, ft: features) and what it found (crashes, OOMs, timeouts).
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]      # e.g. scripts/fuzz.sh 60 fuzz_config fuzz_vocab
#
# A run keeps going past a finding (the fuzzer starts again on its corpus for the time left: "runs" counts
# the starts), so one known problem does not hide the rest; each finding is saved under
# $ATTNSCOPE_FUZZ_WORK/<target>/findings/ and can be replayed with `build-fuzz/tests/fuzz/<target> FILE`; once
# fixed it belongs in tests/fuzz/findings/<target>/, which the ordinary suite replays (replay_<target>).
# Environment: ATTNSCOPE_FUZZ_BUILD (build folder, default build-fuzz), ATTNSCOPE_FUZZ_WORK (scratch
# corpora, findings and logs, default <build>/fuzz-runs),
# ATTNSCOPE_BUILD_LOCK (a file to flock around the build, for machines where builds take turns),
# ATTNSCOPE_BUILD_JOBS (default: every core), ATTNSCOPE_FUZZ_TMP (the targets' scratch folders, default
# /dev/shm), ATTNSCOPE_FUZZ_RESUME=1 (go on from the corpora of the run before; the figures are this run's).
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ATTNSCOPE_FUZZ_BUILD:-$root/build-fuzz}"
work="${ATTNSCOPE_FUZZ_WORK:-$build/fuzz-runs}"
seconds="${1:-600}"
shift || true
# tests/fuzz/FuzzTargets.cmake lists the same targets for the build.
all=(fuzz_safetensors fuzz_config fuzz_vocab fuzz_merges fuzz_recipe fuzz_modeldir fuzz_text fuzz_tokenizer
    fuzz_vocabtxt fuzz_shardindex fuzz_lesson)
if [ $# -gt 0 ]; then targets=("$@"); else targets=("${all[@]}"); fi

# The longest input worth trying: a model directory's archive holds a small model (the seeds are ~7 KB), a
# lesson a few steps (the built-in ones are 3-5 KB), a byte-level tokenizer.json its 256 bytes (~3 KB); the
# rest are single files, where longer inputs only slow each execution down.
max_len() {
    case "$1" in
    fuzz_modeldir) echo 32768 ;;
    fuzz_safetensors | fuzz_text | fuzz_tokenizer | fuzz_lesson) echo 8192 ;;
    *) echo 4096 ;;
    esac
}

lock=()
if [ -n "${ATTNSCOPE_BUILD_LOCK:-}" ]; then lock=(flock "$ATTNSCOPE_BUILD_LOCK"); fi
if ! grep -q '^ATTNSCOPE_FUZZ:BOOL=ON' "$build/CMakeCache.txt" 2>/dev/null; then
    cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
        -DCMAKE_C_COMPILER=clang -DCMAKE_CXX_COMPILER=clang++ \
        -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g" \
        -DATTNSCOPE_FUZZ=ON -DATTNSCOPE_BUILD_TESTS=OFF >/dev/null
fi
"${lock[@]}" cmake --build "$build" --target "${targets[@]}" --parallel "${ATTNSCOPE_BUILD_JOBS:-$(nproc)}"

# Leaks are looked for after each input by libFuzzer itself; LeakSanitizer's report at exit would also
# name LibTorch's process-wide caches, which are not leaks.
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0:abort_on_error=1:symbolize=1}"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:-print_stacktrace=1}"
# The folder targets (modeldir, vocabtxt, shardindex) write their scratch folder for every input: in memory
# when the machine has /dev/shm, a quarter faster than on disk.
if [ -z "${ATTNSCOPE_FUZZ_TMP:-}" ] && [ -d /dev/shm ] && [ -w /dev/shm ]; then ATTNSCOPE_FUZZ_TMP=/dev/shm; fi
export TMPDIR="${ATTNSCOPE_FUZZ_TMP:-${TMPDIR:-/tmp}}"
summary=()
for t in "${targets[@]}"; do
    dir="$work/$t"
    # ATTNSCOPE_FUZZ_RESUME=1 goes on from the corpus a run before grew, to add a long run in pieces.
    [ "${ATTNSCOPE_FUZZ_RESUME:-0}" = 1 ] || rm -rf "$dir"
    mkdir -p "$dir/corpus" "$dir/findings"
    cp "$root/tests/fuzz/corpus/$t/"* "$dir/corpus/"
    # Past findings (fixed, as the ordinary suite replays them) are inputs that reached deep: seeds too.
    if [ -d "$root/tests/fuzz/findings/$t" ]; then cp "$root/tests/fuzz/findings/$t/"* "$dir/corpus/"; fi
    before=$(find "$dir/findings" -type f | wc -l)
    logs=$(find "$dir" -maxdepth 1 -name 'log-*.txt' | wc -l)
    echo "== $t: ${seconds}s" >&2
    start=$(date +%s)
    # In-process runs are about twice as fast as libFuzzer's fork mode; after a finding the run starts again
    # on the corpus grown so far, for the time that is left, so one known problem does not end it.
    segment=0 execs=0 cov=0 ft=0 found_by=()
    while left=$((seconds - ($(date +%s) - start))) && [ "$left" -gt 2 ]; do
        segment=$((segment + 1))
        log="$dir/log-$((logs + segment)).txt"
        status=0
        (cd "$dir" && "$build/tests/fuzz/$t" -max_total_time="$left" -max_len="$(max_len "$t")" -timeout=10 \
            -rss_limit_mb=4096 -print_final_stats=1 -artifact_prefix="$dir/findings/" "$dir/corpus" \
            >"$log" 2>&1) || status=$?
        n=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log" | tail -1)
        execs=$((execs + ${n:-0}))
        # Status lines: "#EXECS  NEW|REDUCE|pulse|DONE  cov: N ft: N corp: ...".
        c=$(sed -nE 's/^#[0-9]+.* cov: ([0-9]+) ft: ([0-9]+).*/\1 \2/p' "$log" | sort -n -k1 | tail -1)
        if [ -n "$c" ]; then
            cov=$((cov > ${c% *} ? cov : ${c% *}))
            ft=$((ft > ${c#* } ? ft : ${c#* }))
        fi
        [ "$status" -eq 0 ] && break
        if [ -z "$n" ]; then # not a finding: the target did not start
            echo "fuzz.sh: $t did not run; see $log" >&2
            break
        fi
        # "SUMMARY: AddressSanitizer: heap-buffer-overflow FILE:LINE in FUNCTION", "SUMMARY: libFuzzer: timeout", …
        found_by+=("$(sed -nE 's/^SUMMARY: (.*)/\1/p' "$log" | head -1 | grep . || echo "exit status $status")")
    done
    took=$(($(date +%s) - start))
    found=$(($(find "$dir/findings" -type f | wc -l) - before))
    summary+=("$(printf '%-17s %6ss %12s %7s %7s %9s %9s' "$t" "$took" "$execs" "$cov" "$ft" "$segment" "$found")")
    # A finding is not added to the corpus, so a run may meet the same one many times: counted once each.
    if [ ${#found_by[@]} -gt 0 ]; then
        while read -r line; do summary+=("    found $line"); done < <(printf '%s\n' "${found_by[@]}" | sort | uniq -c)
    fi
done
printf '%-17s %7s %12s %7s %7s %9s %9s\n' target time executions cov ft runs findings
printf '%s\n' "${summary[@]}"
echo "findings and logs: $work/<target>/"
