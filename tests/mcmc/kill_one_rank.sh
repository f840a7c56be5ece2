#!/usr/bin/env bash
# kill_one_rank.sh MCMC_IPU WORKDIR RANK -- MPIEXEC...: mcmc_ipu on 2 ranks samples a long run
# with --output PREFIX, where an earlier run published its set (PREFIX_1.csv, PREFIX_2.csv,
# PREFIX.nc); once sampling is under way, rank RANK's process gets SIGKILL. mpirun must return
# within 10 s with a non-zero status and a message naming the killed rank, leave no rank
# running, and the earlier set must be there as it was, bit for bit (no file of the killed run
# under a real name).
set -u
source "$(dirname "$0")/../support/faults.sh"
mcmc_ipu=$1 work=$2 rank=$3
shift 4
mpiexec=("$@")
mkdir -p "$work"
rm -rf "${work:?}"/*
run=(--model std_normal --dimension 3 --chains 4 --no-summary --threads 1 --output "$work/o")

"${mpiexec[@]}" -np 2 "$mcmc_ipu" "${run[@]}" --warmup 100 --draws 100 --refresh 1000 \
  >/dev/null || fail "the first run failed"
mkdir -p "$work/first"
cp "$work"/o_?.csv "$work/o.nc" "$work/first/"

start_job "$work/out.txt" "$work/err.txt" "${mpiexec[@]}" -np 2 "$mcmc_ipu" "${run[@]}" \
  --seed 2 --warmup 1000 --draws 100000000 --thin 10000 --refresh 1000
wait_for_text "$work/out.txt" "^Iteration: +[0-9]+ / [0-9]+ .*\(Sampling\)" 120
kill_rank_and_wait "$rank" 10
expect_ended_by_kill "$rank" "$work/err.txt" "--output $work/o"
for f in o_1.csv o_2.csv o_3.csv o_4.csv o.nc; do same_file "$work/first/$f" "$work/$f"; done
echo "passed: $(grep -Ei "rank $rank .*(signal 9|killed)" "$work/err.txt" | head -1)"
echo "passed: the earlier output set is unchanged"
