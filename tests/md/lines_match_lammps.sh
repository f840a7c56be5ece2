#!/usr/bin/env bash
# lines_match_lammps.sh REFERENCE REGEX -- MD_IPU...: runs MD_IPU... and passes when the lines of
# its output that match the extended regular expression REGEX are, in order and byte for byte,
# those of REFERENCE (LAMMPS's, filtered the same way by make_reference.sh).
set -u
reference=$1 regex=$2
shift 3
out=$(mktemp)
trap 'rm -f "$out"' EXIT
"$@" >"$out" 2>&1 || { echo "md_ipu failed:"; cat "$out"; exit 1; }
if diff "$reference" <(grep -E "$regex" "$out"); then
  echo "ok: the lines matching '$regex' are LAMMPS's"
else
  echo "the lines matching '$regex' differ from LAMMPS's ($reference)"
  exit 1
fi
