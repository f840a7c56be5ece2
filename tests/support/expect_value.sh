#!/usr/bin/env bash
# expect_value.sh LABEL EXPECTED TOLERANCE COMMAND...: runs COMMAND, takes the
# number that follows LABEL on its output, and passes when the command exited 0
# and |number - EXPECTED| <= TOLERANCE.
set -u
label=$1 expected=$2 tolerance=$3
shift 3
out=$("$@" 2>&1) || { echo "command failed: $*"; echo "$out"; exit 1; }
value=$(grep -E -- "$label" <<<"$out" | tail -1 | sed -E "s/.*$label[[:space:]]+([-+0-9.eE]+).*/\1/")
[[ -n $value ]] || { echo "no '$label' in the output of: $*"; echo "$out"; exit 1; }
if awk -v v="$value" -v e="$expected" -v t="$tolerance" 'BEGIN { d = v - e; if (d < 0) d = -d; exit !(d <= t) }'; then
  echo "$label $value (expected $expected +- $tolerance)"
else
  echo "$label $value is not within $tolerance of $expected"; echo "$out"; exit 1
fi
