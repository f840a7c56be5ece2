#!/usr/bin/env bash
# initial_csv_same_bits.sh DIR COMMAND...: runs COMMAND (weather_ipu with its case
# options, no --days/--output/--initial) for 0.01 days into DIR/start.nc, writes the
# layer depth of its first record (t = 0: the case's initial state) as DIR/depth.csv
# (rows north to south, 17 significant digits, so every double is exact), then runs
# COMMAND --initial DIR/depth.csv. Passes when both runs end with the same state
# checksum: a CSV start (same grid, so no resampling) reproduces the case's state.
set -u
dir=$1
shift
mkdir -p "$dir"
rm -f "$dir"/start.nc* "$dir"/depth.csv
run() {
  local out
  out=$("$@" 2>&1) || { echo "command failed: $*" >&2; echo "$out" >&2; exit 1; }
  grep -E '^state checksum' <<<"$out"
}
direct=$(run "$@" --days 0.01 --output "$dir/start.nc") || exit 1
nx=$(ncdump -h "$dir/start.nc" | sed -n 's/^\tx = \([0-9]*\) ;/\1/p')
ny=$(ncdump -h "$dir/start.nc" | sed -n 's/^\ty = \([0-9]*\) ;/\1/p')
ncdump -p 9,17 -v h "$dir/start.nc" | sed -n '/^ h =/,/;/p' | sed 's/^ h =//; s/;//' | tr ',' '\n' |
  tr -d ' ' | grep . | head -n $((nx * ny)) | paste -sd, | awk -v nx="$nx" -F, '
    { for (j = 0; j < NF / nx; ++j) { row = $(j * nx + 1); for (i = 2; i <= nx; ++i) row = row "," $(j * nx + i); rows[j] = row }
      for (j = NF / nx - 1; j >= 0; --j) print rows[j] }' >"$dir/depth.csv"
[[ $(wc -l <"$dir/depth.csv") -eq $ny ]] || { echo "could not write $ny rows to $dir/depth.csv"; exit 1; }
from_csv=$(run "$@" --days 0.01 --initial "$dir/depth.csv") || exit 1
echo "built-in start: $direct"
echo "CSV start:      $from_csv"
[[ $direct == "$from_csv" ]] || { echo "the checksums differ"; exit 1; }
