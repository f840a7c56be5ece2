#!/usr/bin/env bash
# kill_consistency.sh MD_IPU WORKDIR [TRIALS]: md_ipu runs several `run`s of a 2048-atom
# liquid, dumping every step as text and as NetCDF (files of several MB that each run
# continues through a copy) and writing a restart file after each run; it is killed with
# SIGKILL at TRIALS moments spread over the run (default 8). After each kill every file under
# its real name must be complete and readable (the text dump frame by frame, the NetCDF
# trajectory by ncdump reading all of it, the restart file by read_restart), and the two dumps
# must hold the same number of frames, since the dumps of one run are published together.
set -u
source "$(dirname "$0")/../support/faults.sh"
md_ipu=$1 work=$2 trials=${3:-8}
mkdir -p "$work"

script=$work/in.kill
{
  printf '%s\n' "units lj" "atom_style atomic" "lattice fcc 0.8442" "region box block 0 8 0 8 0 8" \
    "create_box 1 box" "create_atoms 1 box" "mass 1 1.0" "velocity all create 1.0 5 loop geom" \
    "pair_style lj/cut 2.5" "pair_coeff 1 1 1.0 1.0 2.5" "fix 1 all nve" "thermo 100" \
    'dump text all custom 1 ${dir}/dump.txt id type x y z vx vy vz' \
    'dump traj all netcdf 1 ${dir}/traj.nc vx vy vz'
  for _ in $(seq 12); do printf '%s\n' "run 10" 'write_restart ${dir}/md.restart'; done
} >"$script"
restart_check=$work/in.restart_check
printf '%s\n' 'read_restart ${file}' "run 0" >"$restart_check"

# check DIR: the files under their real names in DIR; prints the frame count.
check() {
  local dir=$1 text=absent nc=absent
  [[ -e $dir/dump.txt ]] && { text=$(text_frames "$dir/dump.txt") || fail "$dir/dump.txt: $text"; }
  [[ -e $dir/traj.nc ]] && { nc=$(nc_frames "$dir/traj.nc") || fail "$dir/traj.nc: $nc"; }
  [[ $text == "$nc" ]] || fail "$dir: the text dump holds $text frames, the NetCDF dump $nc"
  if [[ -e $dir/md.restart ]]; then
    "$md_ipu" --threads 1 -log none -in "$restart_check" -var file "$dir/md.restart" >/dev/null 2>&1 ||
      fail "$dir/md.restart cannot be read back"
  fi
  echo "$text"
}

# One run to the end: how long it takes, and what it leaves.
rm -rf "$work/whole"
mkdir -p "$work/whole"
start=$(date +%s%N)
"$md_ipu" --threads 1 -log none -in "$script" -var dir "$work/whole" >/dev/null ||
  fail "the run without a kill failed"
total_ns=$(($(date +%s%N) - start))
frames=$(check "$work/whole") || exit 1
[[ $frames -eq 121 ]] || fail "the whole run published $frames frames, not 121"
no_partials "$work/whole"
echo "whole run: $((total_ns / 1000000)) ms, $frames frames in each dump"

for i in $(seq "$trials"); do
  dir=$work/trial$i
  rm -rf "$dir"
  mkdir -p "$dir"
  "$md_ipu" --threads 1 -log none -in "$script" -var dir "$dir" >/dev/null 2>&1 &
  pid=$!
  delay_ms=$((total_ns * i / (trials + 1) / 1000000))
  sleep "$(awk -v ms="$delay_ms" 'BEGIN { printf "%.3f", ms / 1000 }')"
  kill -KILL "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  found=$(check "$dir") || exit 1
  echo "killed after $delay_ms ms: $found frames in each dump, files complete and readable"
done
echo "passed"
