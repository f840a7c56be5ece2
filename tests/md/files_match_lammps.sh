#!/usr/bin/env bash
# files_match_lammps.sh DATA_DIR INPUT [--tolerance T] FILE... -- MD_IPU...: runs DATA_DIR/INPUT
# in a fresh folder and passes when each FILE it writes is, byte for byte, LAMMPS's
# (DATA_DIR/STEM.lammps.EXT for STEM.EXT, by make_reference.sh); with --tolerance, when its
# numbers are LAMMPS's within T of their line's scale and its other words the same (files_match.py).
set -u
data=$1 input=$2
shift 2
tolerance=
if [[ ${1:-} == --tolerance ]]; then tolerance=$2; shift 2; fi
files=()
while (($#)) && [[ $1 != -- ]]; do files+=("$1"); shift; done
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
(cd "$work" && "$@" -in "$data/$input") >"$work/out" 2>&1 || { echo "md_ipu failed:"; cat "$work/out"; exit 1; }
status=0
for f in "${files[@]}"; do
  reference="$data/${f%.*}.lammps.${f##*.}"
  if [[ -n $tolerance ]]; then
    python3 "$(dirname "$0")/files_match.py" "$reference" "$work/$f" "$tolerance" || status=1
  else
    diff "$reference" "$work/$f" || { echo "$f differs from LAMMPS's"; status=1; }
  fi
done
((status == 0)) && echo "ok: ${files[*]} as LAMMPS writes them"
exit $status
