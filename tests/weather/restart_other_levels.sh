#!/usr/bin/env bash
# restart_other_levels.sh DIR EXPECT_FAILURE WEATHER_IPU: writes a baroclinic-wave output
# (26 levels), copies it with python3-netCDF4 keeping 20 of its levels and no checkpoint
# attributes (as a file from elsewhere would come), and passes when weather_ipu --initial
# refuses the copy with the variable, its level count and the run's, and --restart of the
# first output refuses other pressure levels than the file's (CMIP6's plev8) with the file's.
# Skips (77) without python3-netCDF4 (scripts/setup analysis).
set -u
dir=$1 fails=$2 weather=$3
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c "import netCDF4" 2>/dev/null || { echo "no python3-netcdf4: run scripts/setup analysis"; exit 77; }
mkdir -p "$dir"
rm -f "$dir"/l26.nc "$dir"/l20.nc
"$weather" --case baroclinic-wave --resolution 11.25 --days 0.125 --output-every 3 \
  --output "$dir/l26.nc" --threads 1 >/dev/null || { echo "the first run failed"; exit 1; }
"$fails" "^ERROR: '.*l26.nc' has the pressure levels 1000, 850, 700, 500, 250, 100, 50, 10 hPa: continue it with those, leaving out --pressure-levels" \
  "$weather" --case baroclinic-wave --resolution 11.25 --days 0.125 --restart "$dir/l26.nc" \
  --pressure-levels 500,850 --threads 1 || exit 1
"$PYTHON" - "$dir/l26.nc" "$dir/l20.nc" <<'PY' || exit 1
import sys
import netCDF4

src, dst = netCDF4.Dataset(sys.argv[1]), netCDF4.Dataset(sys.argv[2], "w")
for name, dim in src.dimensions.items():
    dst.createDimension(name, None if dim.isunlimited() else (20 if name == "lev" else len(dim)))
for name, var in src.variables.items():
    if name == "checkpoint":
        continue
    out = dst.createVariable(name, var.dtype, var.dimensions)
    out.setncatts({a: var.getncattr(a) for a in var.ncattrs()})
    data = var[...]
    if "lev" in var.dimensions:
        data = data.take(range(20), axis=var.dimensions.index("lev"))
    out[...] = data
dst.close()
PY
exec "$fails" "^ERROR: '.*l20.nc': u_face has 20 model levels where this run has 26; use the output of weather_ipu for the same case" \
  "$weather" --case baroclinic-wave --resolution 11.25 --days 0.125 --initial "$dir/l20.nc" --threads 1
