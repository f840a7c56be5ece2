#!/usr/bin/env bash
# expect_error_norm.sh NORM MAX COMMAND...: runs COMMAND, takes NORM (l1, l2 or
# linf) from its `error: l1=... l2=... linf=...` line, and passes when the
# command exited 0 and 0 <= NORM <= MAX.
set -u
norm=$1 max=$2
shift 2
out=$("$@" 2>&1) || { echo "command failed: $*"; echo "$out"; exit 1; }
line=$(grep -E '^error: l1=' <<<"$out" | tail -1)
[[ -n $line ]] || { echo "no error line in the output of: $*"; echo "$out"; exit 1; }
value=$(sed -E "s/.* $norm=([-+0-9.eE]+).*/\1/; s/^error: $norm=([-+0-9.eE]+).*/\1/" <<<"$line")
if awk -v v="$value" -v m="$max" 'BEGIN { exit !(v >= 0 && v <= m) }'; then
  echo "$norm = $value <= $max"
else
  echo "$norm = $value is not within [0, $max]"; echo "$out"; exit 1
fi
