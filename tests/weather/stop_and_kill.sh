#!/usr/bin/env bash
# stop_and_kill.sh WEATHER_IPU WORKDIR INT|TERM|KILL [-- MPIEXEC...]: weather_ipu gets a signal
# in the middle of a long run that writes its NetCDF output every simulated quarter hour.
#
#   INT, TERM  a clean stop: exit status 128 + signal, "weather_ipu: stopped by SIG..." on
#              standard error, the output published, complete (ncdump reads all of it) and
#              holding the records the message gives, no partial file left; --restart then
#              continues it. With MPIEXEC (INT, TERM), weather_ipu runs on 2 ranks and the
#              signal goes to mpirun (the job), which passes SIGTERM to every rank whichever
#              it got and exits with a status of its own (1): the checks are then a non-zero
#              status within 30 s and "stopped by SIGTERM".
#   KILL       a checkpoint continued with --restart, killed while it appends: the file
#              under its name is the checkpoint as it was, bit for bit, and a later --restart
#              continues it; a new --output killed the same way leaves no file under its name.
set -u
source "$(dirname "$0")/../support/faults.sh"
weather_ipu=$1 work=$2 signal=$3
shift 3
[[ ${1:-} == -- ]] && shift
mpiexec=("$@")
((${#mpiexec[@]})) && mpiexec+=(-np 2)
mkdir -p "$work"
rm -rf "${work:?}"/*
run=("$weather_ipu" --threads 1 --case gravity-wave --dt 30 --output-every 0.25)
out=$work/out.nc

records() { ncdump -h "$1" | sed -n 's/.*UNLIMITED ; \/\/ (\([0-9]*\) currently).*/\1/p'; }
# Starts CMD in the background (its own process group, SIGINT not ignored) and waits until
# FILE exists and a second has passed; sets pid.
start_and_wait_for() {
  local file=$1
  shift
  set -m
  "$@" >"$work/stdout.txt" 2>"$work/stderr.txt" &
  pid=$!
  set +m
  for _ in $(seq 300); do [[ -e $file ]] && break; sleep 0.1; done
  [[ -e $file ]] || fail "$file did not appear: $(cat "$work/stderr.txt")"
  sleep 1
}

case $signal in
  INT | TERM)
    start_and_wait_for "$out.part" "${mpiexec[@]}" "${run[@]}" --days 100 --output "$out"
    kill -"$signal" "$pid"
    start=$(date +%s)
    wait "$pid"
    status=$?
    seconds=$(($(date +%s) - start))
    want=$((128 + $(kill -l "$signal"))) got=$signal
    if ((${#mpiexec[@]})); then
      [[ $status -ne 0 ]] || fail "mpirun exited 0 after SIG$signal: $(cat "$work/stderr.txt")"
      ((seconds <= 30)) || fail "mpirun took $seconds s to stop after SIG$signal"
      want=$status got=TERM
    fi
    [[ $status -eq $want ]] || fail "exit status $status, expected $want: $(cat "$work/stderr.txt")"
    message=$(grep -E "^weather_ipu: stopped by SIG$got at t = " "$work/stderr.txt") ||
      fail "no stop message on standard error: $(cat "$work/stderr.txt")"
    ncdump "$out" >/dev/null || fail "$out is not readable"
    n=$(records "$out")
    grep -q "holds $n records" <<<"$message" || fail "the message does not say $n records: $message"
    ((n >= 2)) || fail "$out holds $n records"
    no_partials "$work"
    "${run[@]}" --days 0.01 --restart "$out" >/dev/null || fail "--restart from the stopped output failed"
    (($(records "$out") > n)) || fail "--restart added no records"
    echo "passed: $message"
    ;;
  KILL)
    "${run[@]}" --days 0.01 --output "$out" >/dev/null || fail "the first run failed"
    cp "$out" "$work/checkpoint"
    start_and_wait_for "$out.part" "${run[@]}" --days 100 --restart "$out"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    same_file "$work/checkpoint" "$out"
    ncdump "$out" >/dev/null || fail "$out is not readable"
    "${run[@]}" --days 0.01 --restart "$out" >/dev/null || fail "--restart after the kill failed"
    (($(records "$out") > $(records "$work/checkpoint"))) || fail "--restart added no records"
    fresh=$work/fresh.nc
    start_and_wait_for "$fresh.part" "${run[@]}" --days 100 --output "$fresh"
    kill -KILL "$pid"
    wait "$pid" 2>/dev/null
    [[ ! -e $fresh ]] || fail "a killed run left $fresh under its name"
    echo "passed: the checkpoint survived the kill and continues"
    ;;
  *) fail "signal $signal: use INT, TERM or KILL" ;;
esac
