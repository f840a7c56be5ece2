#!/usr/bin/env bash
# same_output.sh FILTER -- CMD_A... -- CMD_B... [-- CMD_C...]: runs each command,
# keeps the lines of standard output that match the extended regex FILTER, and
# passes when every command exited 0 and all kept outputs are byte-identical.
set -u
filter=$1
shift 2
reference=""
first=1
run() {
  local out
  out=$("$@" 2>&1) || { echo "command failed: $*"; echo "$out"; exit 1; }
  local kept
  kept=$(grep -E -- "$filter" <<<"$out")
  [[ -n $kept ]] || { echo "no output line matches /$filter/ from: $*"; echo "$out"; exit 1; }
  if ((first)); then
    reference=$kept; first=0; echo "reference: $*"; echo "$kept"
  elif [[ $kept != "$reference" ]]; then
    echo "output differs for: $*"; diff <(echo "$reference") <(echo "$kept"); exit 1
  else
    echo "identical: $*"
  fi
}
cmd=()
for arg in "$@"; do
  if [[ $arg == -- ]]; then run "${cmd[@]}"; cmd=(); else cmd+=("$arg"); fi
done
((${#cmd[@]})) && run "${cmd[@]}"
exit 0
