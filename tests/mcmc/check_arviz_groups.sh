#!/usr/bin/env bash
# check_arviz_groups.sh FILE.nc DATA.json COMMAND...: runs COMMAND (mcmc_ipu sampling
# tests/mcmc/data/schools_predictive.stan with --posterior-predictive y=y_rep, writing FILE.nc),
# then reads FILE.nc's groups with xarray as ArviZ's az.from_netcdf does and passes when:
# posterior holds the parameters and not the grouped quantities; posterior_predictive holds
# y_rep as y on (chain, draw, y_dim_0); observed_data holds the data's y; log_likelihood holds
# log_lik, and each of its values equals the normal log density of y[j] given that draw's
# theta[j] (so the groups line up draw by draw).
# Skips (77) without python3-xarray (scripts/setup analysis); $PYTHON overrides /usr/bin/python3.
set -u
file=$1 data=$2
shift 2
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c "import xarray" 2>/dev/null || { echo "no python3-xarray: run scripts/setup analysis"; exit 77; }
rm -f "$file"
out=$("$@" 2>&1) || { echo "command failed: $*"; echo "$out"; exit 1; }
"$PYTHON" - "$file" "$data" <<'PY'
import json
import sys
import numpy as np
import xarray as xr

path, data_path = sys.argv[1], sys.argv[2]
data = json.load(open(data_path))
group = {name: xr.open_dataset(path, group=name) for name in
         ("posterior", "posterior_predictive", "log_likelihood", "sample_stats", "observed_data")}
posterior = group["posterior"]
assert set(posterior.data_vars) == {"theta_trans", "mu", "tau", "theta"}, list(posterior.data_vars)
assert posterior["theta"].dims == ("chain", "draw", "theta_dim_0"), posterior["theta"].dims
y_rep = group["posterior_predictive"]["y"]
assert list(group["posterior_predictive"].data_vars) == ["y"]
assert y_rep.dims == ("chain", "draw", "y_dim_0") and y_rep.shape[2] == data["J"], y_rep.shape
observed = group["observed_data"]["y"]
assert observed.dims == ("y_dim_0",) and np.array_equal(observed.values, data["y"]), observed
log_lik = group["log_likelihood"]["log_lik"]
assert log_lik.dims == ("chain", "draw", "log_lik_dim_0"), log_lik.dims
theta, sigma, y = posterior["theta"].values, np.array(data["sigma"]), np.array(data["y"])
expected = -0.5 * ((y - theta) / sigma) ** 2 - np.log(sigma) - 0.5 * np.log(2 * np.pi)
error = np.abs(log_lik.values - expected).max()
assert error < 1e-10, f"log_lik differs from normal_lpdf(y | theta, sigma) by {error}"
# The predictive draws scatter around theta with sd sigma: their mean differs from theta's by
# less than 5 standard errors (sigma / sqrt(draws)), per school.
draws = y_rep.shape[0] * y_rep.shape[1]
gap = np.abs(y_rep.values.mean(axis=(0, 1)) - theta.mean(axis=(0, 1))) / (sigma / np.sqrt(draws))
assert gap.max() < 5, f"y_rep's mean is {gap.max():.1f} standard errors from theta's"
print(f"{path}: posterior {sorted(posterior.data_vars)}, posterior_predictive y{y_rep.shape}, "
      f"log_likelihood log_lik{log_lik.shape} within {error:.1e} of normal_lpdf, observed y")
PY
