#!/usr/bin/env bash
# A long session in one process, for leaks: `attnscope bench --only soak` (10,000 decode steps and 2,000
# analyses, two models in turn), its curve printed, and a failing exit unless resident memory stayed within
# 5 % after the warm-up and no file descriptor or thread was left behind. Takes a few minutes.
# Usage: scripts/soak.sh [extra bench options, e.g. --soak-steps 1000 --soak-analyses 200]
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bin="${ATTNSCOPE_BUILD_DIR:-$root/build}/attnscope"
[ -x "$bin" ] || { echo "soak: build first (scripts/test.sh or cmake --build build): $bin is missing" >&2; exit 2; }
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
"$bin" bench --only soak --json "$@" >"$out"
/usr/bin/python3 - "$out" <<'PY'
import json, sys
s = json.load(open(sys.argv[1]))["soak"]
for p in s["curve"]:
    print(f'{p["analyses"]:6d} analyses {p["steps"]:6d} steps {p["seconds"]:7.1f} s '
          f'{p["resident_kb"] / 1024:8.1f} MB  fds {p["fds"]:3d}  threads {p["threads"]:3d}')
print(f'soak: {s["analyses"]} analyses, {s["steps"]} steps over {", ".join(s["models"])}; resident '
      f'{s["resident_growth_percent"]:+.2f} % after warm-up (limit {s["resident_limit_percent"]:.0f} %), '
      f'fds {"flat" if s["fds_flat"] else "GREW"}, threads {"flat" if s["threads_flat"] else "GREW"}')
sys.exit(0 if s["memory_flat"] and s["fds_flat"] and s["threads_flat"] else 1)
PY
