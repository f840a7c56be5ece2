#!/usr/bin/env bash
# files_match_lammps.sh DATA_DIR INPUT FILE... -- MD_IPU...: runs DATA_DIR/INPUT in a fresh
# folder and passes when each FILE it writes is, byte for byte, LAMMPS's (DATA_DIR/STEM.lammps.EXT
# for STEM.EXT, by make_reference.sh).
set -u
data=$1 input=$2
shift 2
files=()
while (($#)) && [[ $1 != -- ]]; do files+=("$1"); shift; done
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$@" -in "$data/$input") >"$work/out" 2>&1 || { echo "md_ipu failed:"; cat "$work/out"; exit 1; }
status=0
for f in "${files[@]}"; do
  reference="$data/${f%.*}.lammps.${f##*.}"
  diff "$reference" "$work/$f" || { echo "$f differs from LAMMPS's"; status=1; }
done
((status == 0)) && echo "ok: ${files[*]} as LAMMPS writes them"
exit $status
