#!/usr/bin/env bash
# output_faults.sh WEATHER_IPU WORKDIR KIND FAULT: weather_ipu writes its NetCDF output into a
# folder with a fault and must fail cleanly: exit status 1, an ERROR that names the file and
# the real reason (NetCDF-4 itself reports a full disk as an "HDF error" and a missing folder
# as "Permission denied"), the file published before left exactly as it was, no partial file
# left, no crash.
#
#   KIND   output   a new --output file
#          restart  --restart: the checkpoint continued in place (through a copy)
#          profile  --profile FILE.json, the runtime's profile (full and read_only only)
#   FAULT  full       the file system fills (output: a second run after a good one; restart:
#                     room for the copy, not for the new records)
#          read_only  the folder is on a read-only mount (EROFS, for root too)
#          missing    the folder does not exist (output only)
#          device     the file is a character device node, which must stay one (output only)
# Faults are made in a private mount namespace (../support/faults.sh); skipped (77) where that
# cannot be had.
set -u
source "$(dirname "$0")/../support/faults.sh"
private_mounts "$@"
weather_ipu=$1 work=$2 kind=$3 fault=$4
mkdir -p "$work"
rm -rf "${work:?}"/*

run=("$weather_ipu" --threads 1 --case gravity-wave --dt 30 --output-every 0.25)
declare -A file=([output]=out.nc [profile]=profile.json)
case $kind/$fault in
  output/full | profile/full)
    small_fs "$work/fs" 256
    out=$work/fs/${file[$kind]}
    "${run[@]}" --days 0.01 "--$kind" "$out" >/dev/null || fail "the first run, with room, failed"
    cp "$out" "$work/published"
    fill "$work/fs"
    expect_error "'$out.part'.*No space left on device.*'$out' keeps its earlier content" \
      "${run[@]}" --days 0.01 "--$kind" "$out"
    same_file "$work/published" "$out"
    ;;
  restart/full)
    small_fs "$work/fs" 512
    out=$work/fs/out.nc
    "${run[@]}" --days 0.01 --output "$out" >/dev/null || fail "the first run, with room, failed"
    cp "$out" "$work/published"
    # Room for the copy and a little more: the new records do not fit.
    size=$(($(stat -c %s "$out") / 1024 + 8))
    avail=$(df --output=avail "$work/fs" | tail -1)
    dd if=/dev/zero of="$work/fs/filler" bs=1k count=$((avail - size)) 2>/dev/null
    expect_error "'$out.part'.*No space left on device.*'$out' keeps its earlier content" \
      "${run[@]}" --days 0.1 --restart "$out"
    same_file "$work/published" "$out"
    ;;
  output/read_only | profile/read_only)
    read_only "$work/fs"
    out=$work/fs/${file[$kind]}
    expect_error "cannot write '$out': its folder '$work/fs' is not writable: Read-only file system" \
      "${run[@]}" --days 0.01 "--$kind" "$out"
    ;;
  restart/read_only)
    small_fs "$work/fs" 512
    out=$work/fs/out.nc
    "${run[@]}" --days 0.01 --output "$out" >/dev/null || fail "the first run failed"
    cp "$out" "$work/published"
    mount -o remount,ro "$work/fs" || skip "cannot remount $work/fs read-only"
    expect_error "cannot write '$out': its folder '$work/fs' is not writable: Read-only file system" \
      "${run[@]}" --days 0.01 --restart "$out"
    same_file "$work/published" "$out"
    ;;
  output/missing)
    out=$work/missing/folder/out.nc
    expect_error "cannot write '$out': its folder '$work/missing/folder' does not exist" \
      "${run[@]}" --days 0.01 --output "$out"
    ;;
  output/device)
    out=$work/device
    char_device "$out"
    expect_error "cannot write '$out': '$out' is a character device, not a regular file" \
      "${run[@]}" --days 0.01 --output "$out"
    [[ -c $out ]] || fail "$out is no longer a character device"
    ;;
  *) fail "unknown case $kind/$fault" ;;
esac
no_partials "$work"
echo "passed: $kind, $fault"
