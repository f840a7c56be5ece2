#!/usr/bin/env bash
# check_netcdf.sh FILE.nc plane|sphere COMMAND...: runs COMMAND (which writes FILE.nc), then
# passes when `ncdump -h` reads the file and shows the CF-1.8 attributes the
# weather output promises, when `cdo sinfo` reads it too, and when no
# partial file is left behind. cdo is installed by scripts/setup.
set -u
file=$1 kind=$2
shift 2
rm -f "$file" "$file.part"
out=$("$@" 2>&1) || { echo "command failed: $*"; echo "$out"; exit 1; }
[[ ! -e $file.part ]] || { echo "$file.part was left behind"; exit 1; }
header=$(ncdump -h "$file") || { echo "ncdump cannot read $file"; exit 1; }
common=(':Conventions = "CF-1.8"' 'time = UNLIMITED' 'time:units = "seconds since 2000-01-01 00:00:00"'
        'time:calendar = "standard"' 'time:standard_name = "time"' 'h:units = "m"' 'u:units = "m s-1"')
if [[ $kind == sphere ]]; then
  specific=('lon:units = "degrees_east"' 'lat:units = "degrees_north"' 'lat:standard_name = "latitude"'
            'double h\(time, lat, lon\)')
else
  specific=('x:units = "m"' 'x:axis = "X"' 'y:axis = "Y"' 'double h\(time, y, x\)'
            'b:standard_name = "surface_altitude"')
fi
for pattern in "${common[@]}" "${specific[@]}"; do
  grep -Eq -- "$pattern" <<<"$header" || { echo "ncdump -h shows no /$pattern/:"; echo "$header"; exit 1; }
done
command -v cdo >/dev/null || { echo "cdo is not installed: run scripts/setup"; exit 1; }
cdo -s sinfo "$file" >/dev/null || { echo "cdo sinfo cannot read $file"; cdo sinfo "$file"; exit 1; }
records=$(ncdump -v time "$file" | sed -n 's/.*time = UNLIMITED ; \/\/ (\([0-9]*\) currently).*/\1/p')
echo "$file: CF-1.8 header, $records records"
