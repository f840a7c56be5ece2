#!/usr/bin/env bash
# kill_during_write.sh WEATHER_IPU WORKDIR [TRIALS]: weather_ipu continues a checkpoint with
# --restart (a 256 x 128 gravity wave, records appended to a copy every simulated quarter hour
# until the file is ~22 MB, then published over the checkpoint) and is killed with SIGKILL at
# TRIALS moments (default 8) spread over the run, its publication included. After each kill
# the file under its name must be either the checkpoint as it was, bit for bit, or the whole
# continued run: read through by ncdump, with the unkilled run's record count and last-record
# state_checksum. FILE.part may be left.
set -u
source "$(dirname "$0")/../support/faults.sh"
weather_ipu=$1 work=$2 trials=${3:-8}
mkdir -p "$work"
rm -rf "${work:?}"/*
run=("$weather_ipu" --threads 1 --case gravity-wave --nx 256 --ny 128 --output-every 0.25)
records() { ncdump -h "$1" | sed -n 's/.*UNLIMITED ; \/\/ (\([0-9]*\) currently).*/\1/p'; }
state() { ncdump -h "$1" | sed -n 's/.*checkpoint:state_checksum = "\([0-9a-f]*\)".*/\1/p'; }

"${run[@]}" --days 0.02 --output "$work/checkpoint.nc" >/dev/null || fail "the first run failed"
cp "$work/checkpoint.nc" "$work/whole.nc"
start=$(date +%s%N)
"${run[@]}" --days 0.25 --restart "$work/whole.nc" >/dev/null || fail "the unkilled --restart failed"
total_ns=$(($(date +%s%N) - start))
want_records=$(records "$work/whole.nc") want_state=$(state "$work/whole.nc")
echo "whole run: $((total_ns / 1000000)) ms, $want_records records, state $want_state"

seen_old=0 seen_new=0
for i in $(seq "$trials"); do
  out=$work/trial.nc
  rm -f "$out" "$out.part"
  cp "$work/checkpoint.nc" "$out"
  "${run[@]}" --days 0.25 --restart "$out" >/dev/null 2>&1 &
  pid=$!
  # Moments up to 10 % past the unkilled run's length, to catch the publication too.
  delay_ms=$((total_ns * 11 * i / (10 * trials) / 1000000))
  sleep "$(awk -v ms="$delay_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  if cmp -s "$work/checkpoint.nc" "$out"; then
    found="the checkpoint as it was"
    seen_old=$((seen_old + 1))
  else
    ncdump "$out" >/dev/null 2>&1 || fail "killed after $delay_ms ms: $out is not readable"
    [[ $(records "$out") == "$want_records" && $(state "$out") == "$want_state" ]] ||
      fail "killed after $delay_ms ms: $out holds $(records "$out") records, state $(state "$out"); neither the checkpoint nor the whole run"
    found="the whole continued run"
    seen_new=$((seen_new + 1))
  fi
  echo "killed after $delay_ms ms: $found"
done
echo "passed: $trials kills, $seen_old left the checkpoint as it was, $seen_new the whole continued run"
