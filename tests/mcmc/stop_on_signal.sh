#!/usr/bin/env bash
# stop_on_signal.sh MCMC_IPU WORKDIR INT|TERM [-- MPIEXEC...]: mcmc_ipu samples a long run with
# --output PREFIX, where an earlier run published its set, and gets SIGINT or SIGTERM once
# sampling is under way. It must stop cleanly within 10 s: exit status 128 + signal,
# "mcmc_ipu: stopped by SIG... at iteration N of M (sampling); no output was written" on
# standard error, the earlier set as it was, bit for bit, and no partial file left.
# With MPIEXEC, mcmc_ipu runs on 2 ranks and the signal goes to mpirun (the job), which hands
# SIGTERM to every rank whichever it got and exits 1: the checks are a non-zero status and
# "stopped by SIGTERM".
set -u
source "$(dirname "$0")/../support/faults.sh"
mcmc_ipu=$1 work=$2 signal=$3
shift 3
[[ ${1:-} == -- ]] && shift
mpiexec=("$@")
((${#mpiexec[@]})) && mpiexec+=(-np 2)
mkdir -p "$work"
rm -rf "${work:?}"/*
run=(--model std_normal --dimension 3 --chains 4 --no-summary --threads 1 --output "$work/o")

"$mcmc_ipu" "${run[@]}" --warmup 100 --draws 100 --refresh 1000 >/dev/null ||
  fail "the first run failed"
mkdir -p "$work/first"
cp "$work"/o_?.csv "$work/o.nc" "$work/first/"

start_job "$work/out.txt" "$work/err.txt" "${mpiexec[@]}" "$mcmc_ipu" "${run[@]}" --seed 2 \
  --warmup 1000 --draws 100000000 --thin 10000 --refresh 1000
wait_for_text "$work/out.txt" "^Iteration: +[0-9]+ / [0-9]+ .*\(Sampling\)" 120
kill -"$signal" "$job_pid"
for _ in $(seq 200); do kill -0 "$job_pid" 2>/dev/null || break; sleep 0.05; done
kill -0 "$job_pid" 2>/dev/null && fail "mcmc_ipu was still running 10 s after SIG$signal"
wait "$job_pid"
status=$?
want=$((128 + $(kill -l "$signal"))) got=$signal
if ((${#mpiexec[@]})); then
  [[ $status -ne 0 ]] || fail "mpirun exited 0 after SIG$signal: $(cat "$work/err.txt")"
  want=$status got=TERM
fi
[[ $status -eq $want ]] || fail "exit status $status, expected $want: $(cat "$work/err.txt")"
message=$(grep -E "^mcmc_ipu: stopped by SIG$got at iteration [0-9]+ of 100001000 \(sampling\); no output was written" "$work/err.txt") ||
  fail "no stop message on standard error: $(cat "$work/err.txt")"
for f in o_1.csv o_2.csv o_3.csv o_4.csv o.nc; do same_file "$work/first/$f" "$work/$f"; done
no_partials "$work"
echo "passed: $message"
