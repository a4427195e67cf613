#!/usr/bin/env bash
# Fails when a tracked C++ file differs from what .clang-format makes of it, and names the files.
# Run by ctest (test "format"), so CI checks it with every test run; `clang-format -i FILE` fixes one.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
command -v clang-format >/dev/null || { echo "check-format: clang-format is not installed (scripts/setup-deps.sh installs it)" >&2; exit 1; }
mapfile -t files < <(git ls-files '*.h' '*.cpp' 2>/dev/null || find core ui app tests -name '*.h' -o -name '*.cpp')
bad=()
for f in "${files[@]}"; do
  if ! clang-format --dry-run --Werror "$f" >/dev/null 2>&1; then
    bad+=("$f")
  fi
done
if [ ${#bad[@]} -gt 0 ]; then
  echo "check-format: ${#bad[@]} file(s) are not formatted as .clang-format says (clang-format -i fixes them):" >&2
  printf '  %s\n' "${bad[@]}" >&2
  exit 1
fi
echo "check-format: ${#files[@]} files formatted"
