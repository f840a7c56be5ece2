#!/usr/bin/env bash
# bench/md/lammps_examples.sh [MD_IPU] [TIMEOUT_SECONDS] [PATTERN]: runs md_ipu on LAMMPS's own example
# inputs (Debian's lammps-examples, /usr/share/lammps/examples), unmodified, next to Debian's lmp,
# and prints one Markdown table row per input: whether md_ipu ran it to the end or the first
# command it stopped at, and the largest relative difference of the thermo columns the two print
# at the same steps.
#
# The inputs: every in.* there whose pair styles are md_ipu's (lj/cut, morse, buck, soft, zero,
# eam, eam/alloy, eam/fs, tersoff, tersoff/mod, tersoff/mod/c, sw, vashishta; no hybrid) and
# whose atom style is atomic (the default), outside PACKAGES (accelerator variants of the same inputs) and the
# folders that drive LAMMPS from another program (COUPLE, message, python, kim, plugins).
# Each runs in a copy of its folder, one process each, both programs with -log none, both
# stopped after TIMEOUT_SECONDS (default 120); lmp runs only where md_ipu printed thermo. With
# PATTERN (an extended regex), only the inputs whose path under the examples matches it.
set -u
root=$(cd "$(dirname "$0")/../.." && pwd)
md_ipu=$(realpath "${1:-$root/build/apps/md/md_ipu}")
limit=${2:-120}
pattern=${3:-}
examples=/usr/share/lammps/examples
command -v lmp >/dev/null || { echo "lmp not found: run scripts/setup bench" >&2; exit 1; }
[[ -d $examples ]] || { echo "$examples not found: run scripts/setup bench" >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

styles='(lj/cut|morse|buck|soft|zero|eam|eam/alloy|eam/fs|tersoff|tersoff/mod|tersoff/mod/c|sw|vashishta)'
inputs=()
while IFS= read -r f; do
  case $f in
    */PACKAGES/* | */COUPLE/* | */message/* | */python/* | */kim/* | */plugins/*) continue ;;
  esac
  [[ -z $pattern ]] || [[ ${f#"$examples"/} =~ $pattern ]] || continue
  grep -qE '^\s*pair_style\s+' "$f" || continue
  grep -E '^\s*pair_style\s+' "$f" | grep -qvE "^\s*pair_style\s+$styles(\s|$)" && continue
  grep -qE '^\s*pair_style\s+hybrid' "$f" && continue
  grep -qE '^\s*atom_style\s+' "$f" && ! grep -qE '^\s*atom_style\s+atomic\b' "$f" && continue
  inputs+=("$f")
done < <(find "$examples" -name 'in.*' | sort)

# The thermo tables of a run's output: "run step column value" for every numeric row under a
# header that starts with Step (runs numbered from 1, so that the steps a later run repeats after
# read_restart or reset_timestep are compared with the same run's).
thermo() {
  awk '/^ *Step /{n = split($0, h); on = 1; ++run; next}
       /^Loop time/{on = 0}
       on && $1 ~ /^[0-9]+$/ && NF == n {for (k = 2; k <= n; ++k) print run, $1, h[k], $k}' "$1"
}

echo "| input | md_ipu | steps compared | largest relative thermo difference | agrees to 1e-6 through step |"
echo "| --- | --- | --- | --- | --- |"
ran=0 matched=0
for f in "${inputs[@]}"; do
  name=${f#"$examples"/}
  dir=$work/$(echo "$name" | tr / _)
  cp -rL "$(dirname "$f")" "$dir"  # the potential files are links into ../../potentials
  input=$(basename "$f")
  # The rerun examples read the dump another input of their folder writes (its README says to
  # run that first): lmp writes it, so both programs read the same file.
  case $name in
    rerun/in.rerun | rerun/in.read_dump) (cd "$dir" && lmp -in in.first -log none >/dev/null 2>&1) ;;
    rerun/in.rdf.rerun) (cd "$dir" && lmp -in in.rdf.first -log none >/dev/null 2>&1) ;;
  esac
  (cd "$dir" && timeout "$limit" "$md_ipu" --threads 1 -in "$input" -log none >ours.out 2>&1)
  status=$?
  # LAMMPS runs only where there is something to compare: md_ipu printed thermo.
  lmp_status=0
  : >"$dir/lmp.out"
  if grep -q '^ *Step ' "$dir/ours.out"; then
    (cd "$dir" && timeout "$limit" lmp -in "$input" -log none >lmp.out 2>&1)
    lmp_status=$?
  fi
  if ((status == 0)); then
    result="runs"
    ran=$((ran + 1))
  elif ((status == 124)); then
    result="stopped after ${limit} s"
  else
    # The first ERROR line, without its location and the list of what md_ipu has.
    line=$(grep -m1 '^ERROR' "$dir/ours.out" | sed -E 's/ \(.*, line [0-9]+: .*\)$//; s/; (md_ipu speaks|the [a-z ]+ are|supported:).*//' | cut -c1-110)
    result="stops: ${line:-exit $status}"
  fi
  thermo "$dir/lmp.out" | sort >"$dir/lmp.thermo"
  thermo "$dir/ours.out" | sort >"$dir/ours.thermo"
  # Per common step its largest relative difference; then the count of steps, the largest
  # difference, and the last step up to which every step agrees within 1e-6 (for a chaotic
  # input, how long md_ipu follows LAMMPS's trajectory; "S/R" for step S of the input's R-th run).
  diff=$(join -j1 <(awk '{print $1"/"$2"/"$3, $4}' "$dir/lmp.thermo" | sort) \
                  <(awk '{print $1"/"$2"/"$3, $4}' "$dir/ours.thermo" | sort) |
         awk '{a = $2 + 0; b = $3 + 0; d = a - b; if (d < 0) d = -d; s = (a < 0 ? -a : a);
               r = s > 0 ? d / s : d; split($1, p, "/"); key = p[1] " " p[2]
               if (!(key in st) || r > st[key]) st[key] = r}
              END {for (k in st) print k, st[k]}' | sort -k1,1n -k2,2n |
         awk '{n++; if ($3 > m) m = $3
               if (!bad && $3 <= 1e-6) through = ($1 == 1 ? $2 : $2 "/" $1); else bad = 1}
              END {if (n) printf "%d %.2g %s\n", n, m, (through == "" ? "-" : through); else print "0 - -"}')
  read -r steps largest through <<<"$diff"
  ((lmp_status != 0)) && largest="$largest (lmp exit $lmp_status)"
  if [[ $result == runs && $largest != - ]] &&
     awk -v m="$largest" 'BEGIN {exit !(m + 0 <= 1e-6)}'; then
    matched=$((matched + 1))
  fi
  echo "| \`$name\` | $result | $steps | $largest | $through |"
  rm -rf "$dir"
done
echo
echo "${#inputs[@]} inputs; md_ipu runs $ran to the end, $matched of them within 1e-6 of LAMMPS's thermo at every step."
