#!/usr/bin/env bash
# Start-up time: from the process's creation to the window's first paint, and to the first analysis
# painted, with the default model (the built-in en-es) and an empty settings directory, as on a first start.
# Each run is a new process (`attnscope --startup-time`), so the time includes loading every library.
# usage: scripts/bench-startup.sh [RUNS]      (default 10; a real X server under xvfb-run when there is none)
#   BUILD=0 skips the build step. Target: first paint within 1,000 ms.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ATTNSCOPE_BUILD_DIR:-$root/build}"
runs="${1:-10}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
    sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "$0" >&2
    exit 2
fi

"$root/scripts/build-attnscope.sh"

run() {
    if [[ -n "${DISPLAY:-}" || "${QT_QPA_PLATFORM:-}" == offscreen ]]; then
        "$build/attnscope" --startup-time
    else
        xvfb-run -a "$build/attnscope" --startup-time
    fi
}

settings="$(mktemp -d)"
trap 'rm -rf "$settings"' EXIT
first=() shown=()
for ((i = 0; i < runs; i++)); do
    rm -rf "${settings:?}"/*
    if ! out="$(XDG_CONFIG_HOME="$settings" run 2>&1)"; then
        echo "bench-startup: run $((i + 1)) failed:" >&2
        echo "$out" >&2
        exit 1
    fi
    first+=("$(awk '/^first paint/ {print $3}' <<<"$out")")
    shown+=("$(awk '/^analysis shown/ {print $3}' <<<"$out")")
    if [[ -z "${first[-1]}" || -z "${shown[-1]}" ]]; then
        echo "bench-startup: run $((i + 1)) printed no times:" >&2
        echo "$out" >&2
        exit 1
    fi
done

summary() { # median [min-max] of the arguments
    printf '%s\n' "$@" | sort -n | awk '{v[NR] = $1} END {
        m = NR % 2 ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2
        printf "%6.0f ms  [%s-%s]", m, v[1], v[NR]}'
}
echo "start-up of $("$build/attnscope" --version | head -1), $runs runs, default model, empty settings"
echo "  first paint         $(summary "${first[@]}")   target 1000 ms"
echo "  first analysis shown $(summary "${shown[@]}")"
