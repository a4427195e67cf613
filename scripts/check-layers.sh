#!/usr/bin/env bash
# Fails when an include breaks the house's floors: inside core/ the folders stand base < text < model <
# run < analysis < train and an include may only run down (or stay in its folder); core/ never includes
# Qt; ui/ never includes torch, nor a core header that brings it in (ModelParts.h, model/nn/, ...).
# Run by ctest (test "layers").
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$root"
floors=(base text model run analysis train)
floor() { local i; for i in "${!floors[@]}"; do [ "${floors[$i]}" = "$1" ] && { echo "$i"; return; }; done; echo -1; }
bad=0
while IFS=: read -r file _ include; do
  from=$(echo "$file" | cut -d/ -f2)
  to=$(echo "$include" | sed -E 's@.*"core/([a-z]+)/.*@\1@')
  if [ "$(floor "$to")" -gt "$(floor "$from")" ]; then
    echo "check-layers: $file includes core/$to/ from the floor below it: $include" >&2
    bad=1
  fi
done < <(grep -rn --include='*.h' --include='*.cpp' '#include "core/' core)
if grep -rn --include='*.h' --include='*.cpp' -E '#include <Q|#include <qt' core >&2; then
  echo "check-layers: core/ includes Qt (above)" >&2
  bad=1
fi
# The core headers that bring torch in, directly or through another such header.
mapfile -t torchy < <(grep -rlE --include='*.h' '#include <(torch|ATen|c10)/' core)
while :; do
  pattern=$(printf '"%s"|' "${torchy[@]}" | sed 's/|$//')
  mapfile -t more < <(grep -rlE --include='*.h' "#include ($pattern)" core | grep -vxF -f <(printf '%s\n' "${torchy[@]}") || true)
  [ ${#more[@]} -eq 0 ] && break
  torchy+=("${more[@]}")
done
pattern=$(printf '"%s"|' "${torchy[@]}" | sed 's/|$//')
if grep -rnE --include='*.h' --include='*.cpp' "#include (<(torch|ATen|c10)/|$pattern)" ui >&2; then
  echo "check-layers: ui/ includes torch, or a core header that brings it in (above)" >&2
  bad=1
fi
[ "$bad" -eq 0 ] && echo "check-layers: core/ floors base < text < model < run < analysis < train hold; no Qt in core/, no torch in ui/"
exit "$bad"
