#!/usr/bin/env bash
# stop_on_signal.sh MD_IPU WORKDIR INT|TERM [-- MPIEXEC...]: md_ipu, in a long run that dumps
# text and NetCDF and logs, gets SIGINT or SIGTERM once its dumps hold a few frames. It must
# stop cleanly: exit status 128 + signal, "md_ipu: stopped by SIG... at step N" on standard
# error and in the log, both dumps published with the same frames (those up to step N), the
# log published, no partial file left, and the input's later commands (write_restart) not run.
# With MPIEXEC, md_ipu runs on 2 ranks and the signal goes to mpirun (the job): mpirun passes
# SIGTERM to every rank whichever of the two it got, and exits with a status of its own (1),
# so the checks are a non-zero status within 30 s and "stopped by SIGTERM".
set -u
source "$(dirname "$0")/../support/faults.sh"
md_ipu=$1 work=$2 signal=$3
shift 3
[[ ${1:-} == -- ]] && shift
mpiexec=("$@")
((${#mpiexec[@]})) && mpiexec+=(-np 2)
mkdir -p "$work"
rm -rf "${work:?}"/*

script=$work/in.stop
printf '%s\n' "units lj" "atom_style atomic" "lattice fcc 0.8442" "region box block 0 6 0 6 0 6" \
  "create_box 1 box" "create_atoms 1 box" "mass 1 1.0" "velocity all create 1.0 5 loop geom" \
  "pair_style lj/cut 2.5" "pair_coeff 1 1 1.0 1.0 2.5" "fix 1 all nve" "thermo 100" \
  "dump text all custom 10 $work/dump.txt id type x y z" \
  "dump traj all netcdf 10 $work/traj.nc" "run 1000000" "write_restart $work/md.restart" \
  >"$script"
# Job control: the background job gets its own process group and SIGINT as it is by default
# (a script without it starts background jobs with SIGINT ignored).
set -m
"${mpiexec[@]}" "$md_ipu" --threads 1 -log "$work/log.lammps" -in "$script" >"$work/out.txt" 2>"$work/err.txt" &
pid=$!
# Wait for a few frames in the text dump's partial file (at most 60 s).
for _ in $(seq 600); do
  [[ -e $work/dump.txt.part ]] && (($(grep -c TIMESTEP "$work/dump.txt.part") >= 3)) && break
  sleep 0.1
done
kill -"$signal" "$pid"
start=$(date +%s)
wait "$pid"
status=$?
seconds=$(($(date +%s) - start))
case $signal in INT) want=130 ;; TERM) want=143 ;; *) fail "signal $signal: use INT or TERM" ;; esac
got=$signal
if ((${#mpiexec[@]})); then
  [[ $status -ne 0 ]] || fail "mpirun exited 0 after SIG$signal; stderr: $(cat "$work/err.txt")"
  ((seconds <= 30)) || fail "mpirun took $seconds s to stop after SIG$signal"
  want=$status got=TERM
fi
[[ $status -eq $want ]] || fail "exit status $status, expected $want; stderr: $(cat "$work/err.txt")"
message=$(grep -E "^md_ipu: stopped by SIG$got at step [0-9]+" "$work/err.txt") ||
  fail "no stop message on standard error: $(cat "$work/err.txt")"
step=$(sed -E 's/.* at step ([0-9]+).*/\1/' <<<"$message")
grep -q "stopped by SIG$got at step $step" "$work/log.lammps" 2>/dev/null ||
  fail "the log was not published with the stop message"
text=$(text_frames "$work/dump.txt") || fail "dump.txt: $text"
nc=$(nc_frames "$work/traj.nc") || fail "traj.nc: $nc"
[[ $text -eq $nc ]] || fail "the text dump holds $text frames, the NetCDF dump $nc"
[[ $text -eq $((step / 10 + 1)) ]] ||
  fail "the dumps hold $text frames; stopped at step $step, they should hold $((step / 10 + 1))"
[[ ! -e $work/md.restart ]] || fail "the command after the stopped run was run"
no_partials "$work"
echo "passed: $message; $text frames in each dump"
