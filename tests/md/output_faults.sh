#!/usr/bin/env bash
# output_faults.sh MD_IPU WORKDIR KIND FAULT: md_ipu writes one kind of output into a folder
# with a fault, and must fail cleanly: exit status 1, an ERROR that names the file and the
# real reason, the file published before left exactly as it was, no partial file left.
#
#   KIND   text | xyz | netcdf (dumps), restart (write_restart), data (write_data), log (-log),
#          profile (--profile, the runtime's JSON profile)
#   FAULT  full       the file system fills: a second run after a good one (ENOSPC)
#          read_only  the folder is on a read-only mount (EROFS, for root too)
#          missing    the folder does not exist
#          device     the file is a character device node (it must stay one)
# Faults are made in a private mount namespace (../support/faults.sh); skipped (77) where that
# cannot be had.
set -u
source "$(dirname "$0")/../support/faults.sh"
private_mounts "$@"
md_ipu=$1 work=$2 kind=$3 fault=$4

mkdir -p "$work"
rm -rf "${work:?}"/*
name=out.$kind
case $fault in
  full) small_fs "$work/fs" 256; dir=$work/fs ;;
  read_only) read_only "$work/fs"; dir=$work/fs ;;
  missing) dir=$work/missing/folder ;;
  device) dir=$work; name=device; char_device "$work/device" ;;
  *) fail "unknown fault $fault" ;;
esac
out=$dir/$name

# A small LJ liquid, 3 frames; the output under test goes to $out.
script=$work/in.faults
{
  printf '%s\n' "units lj" "atom_style atomic" "lattice fcc 0.8442" "region box block 0 4 0 4 0 4" \
    "create_box 1 box" "create_atoms 1 box" "mass 1 1.0" "velocity all create 1.0 5 loop geom" \
    "pair_style lj/cut 2.5" "pair_coeff 1 1 1.0 1.0 2.5" "fix 1 all nve" "thermo 10"
  case $kind in
    text) echo "dump d all custom 10 $out id type x y z" ;;
    xyz) echo "dump d all xyz 10 $out" ;;
    netcdf) echo "dump d all netcdf 10 $out vx vy vz" ;;
  esac
  echo "run 20"
  [[ $kind == restart ]] && echo "write_restart $out"
  [[ $kind == data ]] && echo "write_data $out"
} >"$script"
log=none profile=()
[[ $kind == log ]] && log=$out
[[ $kind == profile ]] && profile=(--profile "$out")
run=("$md_ipu" --threads 1 -log "$log" "${profile[@]}" -in "$script")

case $fault in
  full)
    "${run[@]}" >/dev/null || fail "the first run, on a file system with room, failed"
    [[ -s $out ]] || fail "the first run did not publish $out"
    cp "$out" "$work/published"
    fill "$dir"
    expect_error "'$out.part'.*No space left on device.*'$out' keeps its earlier content" "${run[@]}"
    same_file "$work/published" "$out"
    ;;
  read_only)
    expect_error "cannot write '$out': its folder '$dir' is not writable: Read-only file system" \
      "${run[@]}"
    ;;
  missing)
    expect_error "cannot write '$out': its folder '$dir' does not exist" "${run[@]}"
    ;;
  device)
    expect_error "cannot write '$out': '$out' is a character device, not a regular file" \
      "${run[@]}"
    [[ -c $out ]] || fail "$out is no longer a character device"
    ;;
esac
[[ -d $dir ]] && no_partials "$dir"
echo "passed: $kind, $fault"
