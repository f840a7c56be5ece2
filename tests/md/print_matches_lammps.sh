#!/usr/bin/env bash
# print_matches_lammps.sh DATA_DIR MD_IPU...: runs in.print in a fresh folder and passes when
# the printed lines (and the loop-time lines of each run every chunk, times blanked) and the
# files print wrote are LAMMPS's (print.lammps.out, print_{p,q}.lammps.txt by make_reference.sh).
set -u
data=$1
shift
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
filter() { grep -E '^(T = |half|over|chunk|Loop time of)' | sed -E 's/^Loop time of [^ ]+/Loop time of T/'; }
(cd "$work" && "$@" -in "$data/in.print") >"$work/out" 2>&1 || { echo "md_ipu failed:"; cat "$work/out"; exit 1; }
filter <"$work/out" >"$work/printed"
status=0
diff "$data/print.lammps.out" "$work/printed" || { echo "printed lines differ from LAMMPS's"; status=1; }
for f in p q; do
  diff "$data/print_$f.lammps.txt" "$work/print_$f.txt" || { echo "print_$f.txt differs from LAMMPS's"; status=1; }
done
((status == 0)) && echo "ok: print and run every as LAMMPS"
exit $status
