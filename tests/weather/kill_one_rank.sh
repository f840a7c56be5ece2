#!/usr/bin/env bash
# kill_one_rank.sh WEATHER_IPU WORKDIR RANK -- MPIEXEC...: weather_ipu on 2 ranks continues a
# checkpoint (--restart out.nc, which appends through a copy) in a long run that writes a
# record every simulated quarter hour; once records are being appended, rank RANK's process
# gets SIGKILL. mpirun must return within 10 s with a non-zero status and a message naming the
# killed rank, leave no rank running, and the checkpoint under its name must be as it was, bit
# for bit, and readable, and a later --restart must continue it.
set -u
source "$(dirname "$0")/../support/faults.sh"
weather_ipu=$1 work=$2 rank=$3
shift 4
mpiexec=("$@")
mkdir -p "$work"
rm -rf "${work:?}"/*
out=$work/out.nc
run=("$weather_ipu" --threads 1 --case gravity-wave --dt 30 --output-every 0.25)
records() { ncdump -h "$1" | sed -n 's/.*UNLIMITED ; \/\/ (\([0-9]*\) currently).*/\1/p'; }

"${mpiexec[@]}" -np 2 "${run[@]}" --days 0.01 --output "$out" >/dev/null || fail "the first run failed"
cp "$out" "$work/checkpoint"
start_job "$work/out.txt" "$work/err.txt" "${mpiexec[@]}" -np 2 "${run[@]}" --days 100 \
  --progress-every 0 --restart "$out"
wait_for_text "$work/out.txt" "^progress: t = " 60
sleep 1
kill_rank_and_wait "$rank" 10
expect_ended_by_kill "$rank" "$work/err.txt" "--restart $out"
same_file "$work/checkpoint" "$out"
ncdump "$out" >/dev/null || fail "$out is not readable"
"${mpiexec[@]}" -np 2 "${run[@]}" --days 0.01 --restart "$out" >/dev/null ||
  fail "--restart after the kill failed"
(($(records "$out") > $(records "$work/checkpoint"))) || fail "--restart added no records"
echo "passed: $(grep -Ei "rank $rank .*(signal 9|killed)" "$work/err.txt" | head -1)"
echo "passed: the checkpoint survived the kill and continues"
