#!/usr/bin/env bash
# Regional forecast for precision irrigation: a one-day shallow-water forecast
# over real topography with a moisture tracer, hourly CF-NetCDF output, and
# maps of surface height, wind and moisture.
#
#   examples/weather_regional/run_forecast.sh [BUILD_DIR] [OUT_DIR] [extra weather_ipu options...]
#
# BUILD_DIR defaults to build, OUT_DIR to weather_regional_out. Extra options go
# to weather_ipu (e.g. --target gc200 or --threads 2); DAYS [=1] and
# OUTPUT_EVERY [=1 hour] set the forecast length and output interval. The plots need Debian's
# python3 with matplotlib and netCDF4 (scripts/setup analysis); $PYTHON
# overrides /usr/bin/python3.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=${1:-$root/build}
out=${2:-weather_regional_out}
shift $(($# < 2 ? $# : 2))
PYTHON=${PYTHON:-/usr/bin/python3}
if ! "$PYTHON" -c "import matplotlib, netCDF4" 2>/dev/null; then
  echo "run_forecast.sh: $PYTHON lacks matplotlib or netCDF4; run scripts/setup analysis" >&2
  exit 77  # CTest's skip code
fi
mkdir -p "$out"
"$build/apps/weather/weather_ipu" --case volcano \
  --topography "$root/examples/data/volcano_elevation.csv" \
  --days "${DAYS:-1}" --output-every "${OUTPUT_EVERY:-1}" --output "$out/regional_forecast.nc" "$@" | tee "$out/forecast.log"
"$PYTHON" "$here/plot_forecast.py" "$out/regional_forecast.nc" "$out"
