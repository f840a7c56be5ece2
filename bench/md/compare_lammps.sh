#!/usr/bin/env bash
# md_ipu on the host target beside Debian's LAMMPS, plain `lmp` and `lmp -sf opt` (the OPT
# package, what a LAMMPS user runs for lj/cut), on the same cores, in alternating runs; prints
# timesteps/s (median of the repetitions) and every ratio, for three layouts of two cores:
#   1 rank            md_ipu 1 rank x 1 thread     against LAMMPS 1 rank
#   2 ranks           md_ipu 2 ranks x 1 thread    against LAMMPS 2 ranks
#   1 rank x 2 thr    md_ipu 1 rank x 2 threads    against LAMMPS 2 ranks (threads are tiles)
# and the peak memory (maximum resident set) of the 1-rank runs, in bytes per atom. Then md_ipu
# on a simulated GC200 for the first system.
#
#   bench/md/compare_lammps.sh [REPETITIONS=5] [INPUT [LAMMPS-VARIABLES...]]
#
# Without INPUT: issue 17's three systems, LAMMPS's bench/in.lj (32 000 atoms,
# tests/md/data/in.lj), the same at 2 x 2 x 2 (256 000 atoms, where memory traffic dominates) and
# at density 0.4 (bench/md/in.lj_dilute, where the neighbour lists weigh more). With INPUT (e.g.
# bench/md/in.eam), that input alone, with `-var NAME VALUE` pairs passed to both programs.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
reps=${1:-5}
shift || true
"$root/scripts/setup" bench
md_ipu=$root/build/apps/md/md_ipu
[[ -x $md_ipu ]] || "$root/scripts/build"
mpirun=(mpirun --oversubscribe --allow-run-as-root)

lj=$root/tests/md/data/in.lj
if (($# > 0)); then
  systems=("$(realpath "$1")|${*:2}")
else
  systems=("$lj|" "$lj|-var x 2 -var y 2 -var z 2" "$root/bench/md/in.lj_dilute|")
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cd "$work"

rate() { sed -n 's/.*, \([0-9.]*\) timesteps\/s.*/\1/p' | head -1; }
atoms() { sed -n 's/^Loop time of .* with \([0-9]*\) atoms.*/\1/p' | head -1; }
median() { sort -g | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : (a[NR/2] + a[NR/2+1]) / 2}'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN {printf "%.2f", a / b}'; }

# run NAME COMMAND...: appends the run's timesteps/s to NAME.rate (and its atom count to atoms).
run() {
  local name=$1
  shift
  "$@" > out.txt 2> /dev/null
  rate < out.txt >> "$name.rate"
  atoms < out.txt > atoms
}
# run_1rank NAME COMMAND...: as run, and the peak resident memory (bytes) to NAME.rss.
run_1rank() {
  local name=$1
  shift
  /usr/bin/time -f %M -o rss.kib "$@" > out.txt 2> /dev/null
  rate < out.txt >> "$name.rate"
  atoms < out.txt > atoms
  echo $(($(cat rss.kib) * 1024)) >> "$name.rss"
}

echo "load average before: $(cut -d' ' -f1-3 /proc/loadavg)"
printf "%-40s %-15s %10s %10s %10s %8s %8s\n" system layout "lmp" "lmp-opt" "md_ipu" "/lmp" "/opt"
for system in "${systems[@]}"; do
  input=${system%%|*}
  read -r -a vars <<< "${system#*|}"
  label="$(basename "$input") ${vars[*]}"
  rm -f ./*.rate ./*.rss
  md=("$md_ipu" -in "$input" -log none --target host "${vars[@]}")
  for ((r = 0; r < reps; r++)); do
    run_1rank lmp1 lmp -in "$input" -log none "${vars[@]}"
    run_1rank opt1 lmp -sf opt -in "$input" -log none "${vars[@]}"
    run_1rank md1 "${md[@]}" --threads 1
    run lmp2 "${mpirun[@]}" -np 2 lmp -in "$input" -log none "${vars[@]}"
    run opt2 "${mpirun[@]}" -np 2 lmp -sf opt -in "$input" -log none "${vars[@]}"
    run md2 "${mpirun[@]}" -np 2 "${md[@]}" --threads 1
    run md1x2 "${md[@]}" --threads 2
  done
  n=$(cat atoms)
  for layout in "1 rank|1|md1" "2 ranks|2|md2" "1 rank x 2 thr|2|md1x2"; do
    IFS='|' read -r name np ours <<< "$layout"
    l=$(median < "lmp$np.rate")
    o=$(median < "opt$np.rate")
    m=$(median < "$ours.rate")
    printf "%-40s %-15s %10s %10s %10s %8s %8s\n" "$label" "$name" "$l" "$o" "$m" \
      "$(ratio "$m" "$l")" "$(ratio "$m" "$o")"
  done
  printf "%-40s %-15s %10.0f %10.0f %10.0f %8s %8s   (peak memory, bytes/atom, %s atoms)\n" \
    "$label" "1 rank" "$(median < lmp1.rss | awk -v n="$n" '{print $1 / n}')" \
    "$(median < opt1.rss | awk -v n="$n" '{print $1 / n}')" \
    "$(median < md1.rss | awk -v n="$n" '{print $1 / n}')" \
    "$(ratio "$(median < md1.rss)" "$(median < lmp1.rss)")" \
    "$(ratio "$(median < md1.rss)" "$(median < opt1.rss)")" "$n"
done
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"

echo
input=${systems[0]%%|*}
read -r -a vars <<< "${systems[0]#*|}"
echo "md_ipu on a simulated GC200 (1472 tiles), 2 host threads, $(basename "$input") ${vars[*]}:"
"$md_ipu" -in "$input" -log none --target gc200 --threads 2 "${vars[@]}" |
  grep -E "^(Loop time|Simulated time|worst tile)"
