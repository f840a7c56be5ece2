#!/usr/bin/env bash
# kill_one_rank.sh MD_IPU WORKDIR RANK -- MPIEXEC...: md_ipu on 2 ranks runs several `run`s of a
# 2048-atom liquid, dumping text and NetCDF every step and writing a restart file after each
# run; once the first run's files are published and the next run is under way, rank RANK's
# process gets SIGKILL. mpirun must return within 10 s with a non-zero status and a message
# naming the killed rank, leave no rank running, and every file under its real name must be
# complete and readable (each text frame whole, the NetCDF trajectory read through by ncdump,
# the restart file by read_restart), the two dumps holding the same frames.
set -u
source "$(dirname "$0")/../support/faults.sh"
md_ipu=$1 work=$2 rank=$3
shift 4
mpiexec=("$@")
mkdir -p "$work"
rm -rf "${work:?}"/*

script=$work/in.kill
{
  printf '%s\n' "units lj" "atom_style atomic" "lattice fcc 0.8442" "region box block 0 8 0 8 0 8" \
    "create_box 1 box" "create_atoms 1 box" "mass 1 1.0" "velocity all create 1.0 5 loop geom" \
    "pair_style lj/cut 2.5" "pair_coeff 1 1 1.0 1.0 2.5" "fix 1 all nve" "thermo 5" \
    "dump text all custom 1 $work/dump.txt id type x y z vx vy vz" \
    "dump traj all netcdf 1 $work/traj.nc vx vy vz"
  for _ in $(seq 200); do printf '%s\n' "run 10" "write_restart $work/md.restart"; done
} >"$script"
printf '%s\n' 'read_restart ${file}' "run 0" >"$work/in.check"

start_job "$work/out.txt" "$work/err.txt" "${mpiexec[@]}" -np 2 "$md_ipu" --threads 1 \
  -log "$work/log.lammps" -in "$script"
# The first run's files are published (its restart file exists) and the third run is going.
wait_for_text "$work/out.txt" "^ +35 " 120
kill_rank_and_wait "$rank" 10
expect_ended_by_kill "$rank" "$work/err.txt" "$script"

text=$(text_frames "$work/dump.txt") || fail "dump.txt: $text"
nc=$(nc_frames "$work/traj.nc") || fail "traj.nc: $nc"
[[ $text == "$nc" ]] || fail "the text dump holds $text frames, the NetCDF dump $nc"
((text >= 31)) || fail "the dumps hold $text frames; the first three runs published 31"
"$md_ipu" --threads 1 -log none -in "$work/in.check" -var file "$work/md.restart" >/dev/null ||
  fail "md.restart cannot be read back"
[[ -s $work/log.lammps || ! -e $work/log.lammps ]] || fail "log.lammps is empty"
echo "passed: $(grep -Ei "rank $rank .*(signal 9|killed)" "$work/err.txt" | head -1)"
echo "passed: $text frames in each dump, md.restart readable"
