#!/usr/bin/env bash
# The Bayesian neural-network alpha case study, end to end:
#   examples/bnn_alpha/run.sh [BUILD_DIR [WORK_DIR]]
# BUILD_DIR holds examples/bnn_alpha/bnn_alpha (default: build); WORK_DIR receives the
# predictions, the CmdStan CSVs and forecast.png (default: bnn_alpha_work). BNN_OPTIONS
# adds options to every run: `BNN_OPTIONS=--published` runs the published configuration
# (1000 leapfrog steps, 100 burn-in, 400 kept; ~5 min per run on an idle 2-thread host,
# 38 min measured on a heavily loaded one).
# Needs `scripts/setup analysis` (matplotlib) for the plot.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-build}
work=${2:-bnn_alpha_work}
bnn=$build/examples/bnn_alpha/bnn_alpha
[[ -x $bnn ]] || { echo "no $bnn: build the target bnn_alpha first" >&2; exit 1; }
mkdir -p "$work"
# One chain per IPU on a simulated IPU-M2000 (pod4), then the same chains on the host.
"$bnn" --target pod4 --output "$work/pod4" ${BNN_OPTIONS:-}
"$bnn" --target host --output "$work/host" ${BNN_OPTIONS:-}
# Many chains per IPU: one chain per tile, ESS per simulated second against the chain count
# (a short configuration: every chain costs host time).
"$bnn" --target pod4 --leapfrog-steps 50 --burn-in 20 --draws 40 --sweep 4,16,64 \
  --output "$work/sweep" ${BNN_SWEEP_OPTIONS:-}
"${PYTHON:-/usr/bin/python3}" "$here/plot_forecast.py" "$work/pod4_predictions.csv" \
  "$work/forecast.png"
