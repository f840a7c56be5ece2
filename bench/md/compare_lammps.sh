#!/usr/bin/env bash
# Runs LAMMPS's bench/in.lj (32000 atoms, 100 steps), or INPUT (bench/md/in.eam: LAMMPS's
# bench/in.eam), with Debian's lammps and with md_ipu on the host target, on the same cores,
# alternating, and prints timesteps/s for each and their ratio (median of the repetitions), on
# 1 and 2 MPI ranks; then runs md_ipu on a simulated GC200 and prints its simulated time.
#
#   bench/md/compare_lammps.sh [REPETITIONS=3] [INPUT=tests/md/data/in.lj]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reps=${1:-3}
"$root/scripts/setup" bench
md_ipu=$root/build/apps/md/md_ipu
[[ -x $md_ipu ]] || "$root/scripts/build"
input=$(realpath "${2:-$root/tests/md/data/in.lj}")
mpirun=(mpirun --oversubscribe --allow-run-as-root)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

rate() { sed -n 's/.*, \([0-9.]*\) timesteps\/s.*/\1/p' | head -1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }

printf "%-6s %-18s %-18s %s\n" ranks "LAMMPS steps/s" "md_ipu steps/s" "md_ipu / LAMMPS"
for np in 1 2; do
  : > lammps.txt
  : > tessera.txt
  for ((r = 0; r < reps; r++)); do
    "${mpirun[@]}" -np "$np" lmp -in "$input" -log none 2>/dev/null | rate >> lammps.txt
    "${mpirun[@]}" -np "$np" "$md_ipu" -in "$input" -log none --target host --threads 1 2>/dev/null | rate >> tessera.txt
  done
  l=$(median < lammps.txt)
  t=$(median < tessera.txt)
  printf "%-6s %-18s %-18s %.2f\n" "$np" "$l" "$t" "$(awk -v a="$t" -v b="$l" 'BEGIN {print a / b}')"
done

echo
echo "md_ipu on a simulated GC200 (1472 tiles), 2 host threads:"
"$md_ipu" -in "$input" -log none --target gc200 --threads 2 | grep -E "^(Loop time|Simulated time|worst tile)"
