#!/usr/bin/env bash
# restart_same_bits.sh DIR DAYS -- COMMAND... [-- RESTART_COMMAND...]: runs COMMAND
# (weather_ipu with its case options, no --days/--output) for 2 DAYS into DIR/full.nc,
# for DAYS into DIR/part.nc, then COMMAND --initial DIR/part.nc for DAYS (a new
# file), then RESTART_COMMAND (default COMMAND) --restart DIR/part.nc for DAYS
# more. Passes when all three second halves end with the state checksum of the
# single run, and the restarted file holds the records of the single run bit for
# bit (`ncdump -p 9,17`: 17 significant digits identify a double). DAYS must be
# a whole number of output intervals, or the first half adds a record at DAYS. With
# SKIP_INITIAL=1 the --initial run is left out (it chooses its own default time step, from
# the state it starts from, so it is the same run only with --dt).
set -u
dir=$1 days=$2
shift 3
cmd=() restart=()
while (($#)) && [[ $1 != -- ]]; do cmd+=("$1"); shift; done
(($#)) && shift
restart=("$@")
((${#restart[@]})) || restart=("${cmd[@]}")
mkdir -p "$dir"
rm -f "$dir"/full.nc* "$dir"/part.nc* "$dir"/initial.nc*
twice=$(awk -v d="$days" 'BEGIN { printf "%.17g", 2 * d }')
run() {
  local out
  out=$("$@" 2>&1) || { echo "command failed: $*" >&2; echo "$out" >&2; exit 1; }
  grep -E '^state checksum' <<<"$out"
}
full=$(run "${cmd[@]}" --days "$twice" --output "$dir/full.nc") || exit 1
run "${cmd[@]}" --days "$days" --output "$dir/part.nc" >/dev/null || exit 1
if [[ ${SKIP_INITIAL:-0} == 1 ]]; then
  initial=skipped
else
  initial=$(run "${cmd[@]}" --days "$days" --initial "$dir/part.nc" --output "$dir/initial.nc") ||
    exit 1
fi
part=$(run "${restart[@]}" --days "$days" --restart "$dir/part.nc") || exit 1
echo "one run:   $full"
echo "restarted: $part"
echo "initial:   $initial"
[[ $full == "$part" && ($full == "$initial" || $initial == skipped) ]] ||
  { echo "the checksums differ"; exit 1; }
[[ ! -e $dir/part.nc.part ]] || { echo "$dir/part.nc.part was left behind"; exit 1; }
data() { ncdump -p 9,17 "$1" | sed -n '/^data:/,$p'; }
if ! diff <(data "$dir/full.nc") <(data "$dir/part.nc") >"$dir/diff.txt"; then
  echo "the records differ:"; head -20 "$dir/diff.txt"; exit 1
fi
records=$(ncdump -h "$dir/part.nc" | sed -n 's/.*time = UNLIMITED ; \/\/ (\([0-9]*\) currently).*/\1/p')
echo "same records bit for bit ($records records)"
