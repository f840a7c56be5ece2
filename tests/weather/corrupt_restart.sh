#!/usr/bin/env bash
# corrupt_restart.sh WEATHER_IPU DIR [HEAD_STEP TAIL_STEP]: a small mutational fuzz of
# --restart. A real weather_ipu output (gravity-wave, 16 x 4) gets one byte inverted at a
# time, at every HEAD_STEP-th [97] offset of its first 16 000 bytes (HDF5's superblock, object
# headers, B-trees and heaps live there) and every TAIL_STEP-th [401] after; each copy is
# restarted. Passes when every run either
# ends with exit status 1 and an `ERROR: ` line, or runs to the end (exit 0) with the state
# checksum of the restart from the intact file (the byte did not matter: an attribute's
# text, unused space), and none dies of a signal (HDF5 crashed on some of these bytes: a
# double free, SIGABRT at exit) or continues from a wrong state.
set -u
weather_ipu=$1 dir=$2 head_step=${3:-97} tail_step=${4:-401}
mkdir -p "$dir"
rm -f "$dir"/*.nc*
run=("$weather_ipu" --case gravity-wave --nx 16 --ny 4 --dt 30 --threads 1)
"${run[@]}" --days 0.05 --output-every 0.4 --output "$dir/good.nc" >/dev/null ||
  { echo "the first run failed"; exit 1; }
cp "$dir/good.nc" "$dir/intact.nc"
intact=$("${run[@]}" --days 0.01 --restart "$dir/intact.nc" | grep '^state checksum') ||
  { echo "the restart of the intact file failed"; exit 1; }
size=$(stat -c %s "$dir/good.nc")
offsets=$( (seq 0 "$head_step" 15999; seq 16000 "$tail_step" $((size - 1))) )
errors=0 runs=0 failures=0
for offset in $offsets; do
  cp "$dir/good.nc" "$dir/bad.nc"
  byte=$(od -An -tu1 -j "$offset" -N1 "$dir/good.nc" | tr -d ' ')
  printf "$(printf '\\%03o' $((byte ^ 255)))" |
    dd of="$dir/bad.nc" bs=1 seek="$offset" conv=notrunc status=none
  "${run[@]}" --days 0.01 --restart "$dir/bad.nc" >"$dir/out.txt" 2>"$dir/err.txt"
  status=$?
  if [[ $status -eq 1 ]] && grep -q '^ERROR: ' "$dir/err.txt"; then
    errors=$((errors + 1))
  elif [[ $status -eq 0 ]] && grep -qx "$intact" "$dir/out.txt"; then
    runs=$((runs + 1))
  else
    failures=$((failures + 1))
    echo "offset $offset: exit status $status, $(grep '^state checksum' "$dir/out.txt")" \
      "(intact: $intact)"
    head -3 "$dir/err.txt"
  fi
done
echo "$((errors + runs + failures)) corrupted copies: $errors clean errors, $runs correct runs," \
  "$failures failures"
[[ $failures -eq 0 ]]
