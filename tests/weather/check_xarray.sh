#!/usr/bin/env bash
# check_xarray.sh FILE.nc plane|sphere COMMAND...: runs COMMAND (which writes FILE.nc),
# then opens FILE.nc with xarray (CF decoding on) and passes when time decodes to
# increasing datetime64 values from 2000-01-01, h lies on (time, y, x) or (time, lat,
# lon) with its units, the coordinates carry theirs, and every h value is finite.
# Skips (77) without python3-xarray (scripts/setup analysis); $PYTHON overrides
# /usr/bin/python3.
set -u
file=$1 kind=$2
shift 2
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c "import xarray" 2>/dev/null || { echo "no python3-xarray: run scripts/setup analysis"; exit 77; }
rm -f "$file"
out=$("$@" 2>&1) || { echo "command failed: $*"; echo "$out"; exit 1; }
"$PYTHON" - "$file" "$kind" <<'PY'
import sys
import numpy as np
import xarray as xr

path, kind = sys.argv[1], sys.argv[2]
ds = xr.open_dataset(path)  # decode_times and CF conventions on
x, y = ("lon", "lat") if kind == "sphere" else ("x", "y")
problems = []
if not np.issubdtype(ds["time"].dtype, np.datetime64):
    problems.append(f"time decodes to {ds['time'].dtype}, not datetime64")
elif ds["time"].values[0] != np.datetime64("2000-01-01T00:00:00"):
    problems.append(f"the first time is {ds['time'].values[0]}, not 2000-01-01")
elif not (np.diff(ds["time"].values) > np.timedelta64(0, "s")).all():
    problems.append("the times do not increase")
if ds["h"].dims != ("time", y, x):
    problems.append(f"h is on {ds['h'].dims}, not (time, {y}, {x})")
if ds["h"].attrs.get("units") != "m":
    problems.append(f"h has units {ds['h'].attrs.get('units')!r}")
units = {"lon": "degrees_east", "lat": "degrees_north", "x": "m", "y": "m"}
for c in (x, y):
    if ds[c].attrs.get("units") != units[c]:
        problems.append(f"{c} has units {ds[c].attrs.get('units')!r}, not {units[c]!r}")
if not np.isfinite(ds["h"].values).all():
    problems.append("h holds non-finite values")
if problems:
    print(f"{path}:", *problems, sep="\n  ")
    sys.exit(1)
print(f"{path}: xarray reads {len(ds['time'])} records of h{ds['h'].dims}, times from {ds['time'].values[0]}")
PY
