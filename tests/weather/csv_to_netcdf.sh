#!/usr/bin/env bash
# csv_to_netcdf.sh IN.csv OUT.nc COMMAND...: writes the elevation CSV (rows north to
# south) as OUT.nc, a variable `elevation(y, x)` in metres whose y coordinate
# decreases (north to south, so the reader must flip it), with ncgen; then runs
# COMMAND (a --topography OUT.nc run to compare with the CSV one).
set -u
csv=$1 out=$2
shift 2
ny=$(grep -c . "$csv")
nx=$(head -1 "$csv" | awk -F, '{ print NF }')
{
  echo "netcdf elevation {"
  echo "dimensions: y = $ny ; x = $nx ;"
  echo "variables:"
  echo "  double y(y) ; y:units = \"m\" ;"
  echo "  double x(x) ; x:units = \"m\" ;"
  echo "  double elevation(y, x) ; elevation:units = \"m\" ;"
  echo "data:"
  echo "  y = $(seq -s ', ' $((ny - 1)) -1 0) ;"
  echo "  x = $(seq -s ', ' 0 $((nx - 1))) ;"
  echo "  elevation = $(tr -d '\r' <"$csv" | grep . | paste -sd, | sed 's/,/, /g') ;"
  echo "}"
} >"$out.cdl"
ncgen -4 -o "$out" "$out.cdl" || { echo "ncgen cannot read $out.cdl"; exit 2; }
exec "$@"
