#!/usr/bin/env bash
# What the bench scripts do before they measure: install what is missing (with --tests, also the tests' and
# reference scripts' packages) and build the program (Release, in ATTNSCOPE_BUILD_DIR or build/) unless
# BUILD=0.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ATTNSCOPE_BUILD_DIR:-$root/build}"
"$root/scripts/setup-deps.sh" "$@"
if [[ "${BUILD:-1}" != 0 ]]; then
    if [[ ! -f "$build/CMakeCache.txt" ]]; then
        cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
    fi
    cmake --build "$build" --target attnscope >/dev/null
fi
