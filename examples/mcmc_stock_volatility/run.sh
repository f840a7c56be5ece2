#!/usr/bin/env bash
# The DAX volatility case study, end to end:
#   examples/mcmc_stock_volatility/run.sh [BUILD_DIR [WORK_DIR]]
# BUILD_DIR holds apps/mcmc/mcmc_ipu (default: build); WORK_DIR receives the data
# files, the CmdStan CSVs, the NetCDF files and volatility.png (default:
# mcmc_stock_volatility_work). Extra mcmc_ipu options (e.g. --target gc200) can be
# passed in MCMC_OPTIONS. Needs `scripts/setup analysis` for the Python step.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
work=${2:-mcmc_stock_volatility_work}
mcmc_ipu=$build/apps/mcmc/mcmc_ipu
[[ -x $mcmc_ipu ]] || { echo "no $mcmc_ipu: build the target mcmc_ipu first" >&2; exit 1; }
mkdir -p "$work"
python3 "$here/prepare_data.py" "$here/../data/eu_stock_markets.csv" "$work" --days 500
# GARCH(1,1): four chains, Stan's defaults.
"$mcmc_ipu" --model garch11 --data "$work/garch11.json" --chains 4 --warmup 1000 --draws 1000 \
  --seed 1 --output "$work/garch" --refresh 500 ${MCMC_OPTIONS:-}
# Stochastic volatility: 503 parameters with a funnel-like geometry between sigma and the
# latent log-variances, hence the higher target acceptance.
"$mcmc_ipu" --model stochastic_volatility --data "$work/stochastic_volatility.json" --chains 4 \
  --warmup 1000 --draws 1000 --delta 0.95 --seed 1 --output "$work/sv" --refresh 500 ${MCMC_OPTIONS:-}
# Debian's Python, where scripts/setup installs numpy, netCDF4 and matplotlib.
"${PYTHON:-/usr/bin/python3}" "$here/analyze.py" "$work"
