#!/usr/bin/env bash
# kill_during_write.sh MCMC_IPU WORKDIR [TRIALS]: mcmc_ipu writes a large output set (4 CSV
# files and a NetCDF file, ~35 MB) over an earlier run's set at the same --output PREFIX, and
# is killed with SIGKILL at TRIALS moments (default 8) spread over the writing, which starts
# once sampling ends. After each kill the files under their names must be one run's set,
# never a mix: either the earlier set bit for bit, or the new set complete (each CSV file
# with its header, every draw row and CmdStan's timing trailer; the NetCDF file read through
# by ncdump with every draw). PREFIX_*.part files may be left.
set -u
source "$(dirname "$0")/../support/faults.sh"
mcmc_ipu=$1 work=$2 trials=${3:-8}
mkdir -p "$work"
rm -rf "${work:?}"/*
draws=30000
run=(--model std_normal --dimension 10 --chains 4 --warmup 100 --refresh 100000 --no-summary
     --threads 1)
files=(o_1.csv o_2.csv o_3.csv o_4.csv o.nc)

mkdir -p "$work/first"
"$mcmc_ipu" "${run[@]}" --draws 100 --seed 1 --output "$work/first/o" >/dev/null ||
  fail "the first run failed"

# new_file DIR FILE: FILE in DIR is a complete file of the new run.
new_file() {
  local f=$1/$2
  case $2 in
    *.csv)
      grep -q '^#   seed = 2$' "$f" || return 1
      [[ $(grep -cv '^#' "$f") -eq $((draws + 1)) ]] || return 1
      tail -2 "$f" | grep -q 'seconds (Total)' || return 1
      ;;
    *.nc)
      ncdump "$f" >/dev/null 2>&1 || return 1
      ncdump -h "$f" | grep -q "draw = $draws ;" || return 1
      ;;
  esac
}
# check DIR: prints "old" or "new", or fails.
check() {
  local dir=$1 old=0 new=0 f
  for f in "${files[@]}"; do
    [[ -e $dir/$f ]] || fail "$dir/$f is missing (the earlier set had it)"
    if cmp -s "$work/first/$f" "$dir/$f"; then
      old=$((old + 1))
    elif new_file "$dir" "$f"; then
      new=$((new + 1))
    else
      fail "$dir/$f is neither the earlier run's file nor a complete file of the new run"
    fi
  done
  ((old == 0 || new == 0)) || fail "$dir holds a mix of two runs: $old files of the earlier, $new of the new"
  ((old)) && echo old || echo new
}

# One run to its end: how long the writing takes (from the last progress line to the exit).
cp -r "$work/first" "$work/whole"
start_job "$work/whole.out" "$work/whole.err" "$mcmc_ipu" "${run[@]}" --draws "$draws" --seed 2 \
  --output "$work/whole/o"
wait_for_text "$work/whole.out" "\[100%\]" 120
start=$(date +%s%N)
wait "$job_pid" || fail "the run without a kill failed: $(cat "$work/whole.err")"
write_ns=$(($(date +%s%N) - start))
[[ $(check "$work/whole") == new ]] || fail "the whole run did not publish its set"
echo "whole run: writing took $((write_ns / 1000000)) ms"

seen_old=0 seen_new=0
for i in $(seq "$trials"); do
  dir=$work/trial$i
  cp -r "$work/first" "$dir"
  start_job "$work/trial.out" "$work/trial.err" "$mcmc_ipu" "${run[@]}" --draws "$draws" \
    --seed 2 --output "$dir/o"
  wait_for_text "$work/trial.out" "\[100%\]" 120
  delay_ms=$((write_ns * i / (trials + 1) / 1000000))
  sleep "$(awk -v ms="$delay_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -KILL "$job_pid" 2>/dev/null
  wait "$job_pid" 2>/dev/null
  found=$(check "$dir") || exit 1
  [[ $found == old ]] && seen_old=$((seen_old + 1)) || seen_new=$((seen_new + 1))
  echo "killed $delay_ms ms into the writing: the $found set, whole"
  rm -rf "$dir"
done
echo "passed: $trials kills, $seen_old left the earlier set, $seen_new the new one, none a mix"
