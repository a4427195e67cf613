#!/usr/bin/env bash
# Installs what is missing, builds (Release) and opens the window on the default built-in model.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${ATTNSCOPE_BUILD_DIR:-$root/build}"
"$root/scripts/setup-deps.sh"
cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target attnscope
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ] && [ "${QT_QPA_PLATFORM:-}" != offscreen ]; then
  echo "run.sh: no display found. To run without one, use a virtual X server:" >&2
  echo "  xvfb-run -a scripts/run.sh" >&2
  exit 1
fi
exec "$build/attnscope" "$@"
