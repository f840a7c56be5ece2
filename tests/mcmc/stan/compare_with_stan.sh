#!/usr/bin/env bash
# Tessera's NUTS against Stan's own (Debian's rstan) on the same posteriors, in one run:
# the mean and sd of every parameter, with their MCSEs and the z-score of the difference.
#
#   tests/mcmc/stan/compare_with_stan.sh MCMC_IPU WORK_DIR [DRAWS] [SHARED_DATA] [POSTERIOR...]
#
# POSTERIORs (default: all four) pick among correlated_gaussian, eight_schools_noncentered,
# garch11 and logmesquite.
# Both sides run 4 chains of 1000 warm-up iterations and DRAWS [25000] draws, diag_e, the
# defaults otherwise. Prints a markdown table (the one docs/mcmc.md keeps) and exits 1 when a
# parameter differs beyond 4.5 MCSE. Needs r-cran-rstan, r-cran-posterior, r-cran-jsonlite
# (scripts/setup installs them). Each Stan model compiles once (~30 s), cached in WORK_DIR.
# Exits 77 (skipped) when the posteriordb data in ../shared/data are absent.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
mcmc_ipu=$1
work=$(mkdir -p "$2" && cd "$2" && pwd)
draws=${3:-25000}
shared=${4:-$here/../../../../shared/data}
chains=4 warmup=1000 seed=20261201
for need in Rscript; do
  command -v $need >/dev/null || { echo "ERROR: $need not found; run scripts/setup" >&2; exit 1; }
done

echo '{"N": 10, "rho": 0.9}' >"$work/correlated_gaussian.json"
posteriors=(
  "correlated_gaussian $work/correlated_gaussian.json"
  "eight_schools_noncentered $shared/posteriordb/eight_schools-eight_schools_noncentered/data.json"
  "garch11 $shared/posteriordb/garch-garch11/data.json"
  "logmesquite $shared/posteriordb/mesquite-logmesquite/data.json"
)

if (($# > 4)); then
  wanted=("${@:5}")
  chosen=()
  for p in "${posteriors[@]}"; do
    for w in "${wanted[@]}"; do [[ ${p%% *} == "$w" ]] && chosen+=("$p"); done
  done
  ((${#chosen[@]} == ${#wanted[@]})) || { echo "ERROR: unknown posterior in: ${wanted[*]}" >&2; exit 1; }
  posteriors=("${chosen[@]}")
fi

echo "| posterior | parameter | Stan mean (MCSE) | Tessera mean (MCSE) | z | Stan sd (MCSE) | Tessera sd (MCSE) | z | sd ratio |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"
status=0
for p in "${posteriors[@]}"; do
  read -r model data <<<"$p"
  if [[ ! -f $data ]]; then
    echo "skipped: $data not found (the posteriordb data stay in ../shared/data, which is not next to the project)"
    exit 77
  fi
  start=$(date +%s%N)
  "$mcmc_ipu" --model "$model" --data "$data" --chains $chains --warmup $warmup --draws "$draws" \
    --seed $seed --output "$work/$model" --formats csv --no-summary --refresh 100000000 \
    >"$work/$model.tessera.log"
  tessera_ms=$((($(date +%s%N) - start) / 1000000))
  if ! Rscript "$here/compare_with_stan.R" "$here/$model.stan" "$data" "$work/$model" \
      $chains $warmup "$draws" $seed "$work" 2>"$work/$model.rstan.log"; then
    status=1
  fi
  printf '# %s: mcmc_ipu %d x %d draws in %d.%03d s\n' "$model" $chains "$draws" \
    $((tessera_ms / 1000)) $((tessera_ms % 1000))
done
exit $status
