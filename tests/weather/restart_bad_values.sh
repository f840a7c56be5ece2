#!/usr/bin/env bash
# restart_bad_values.sh WEATHER_IPU DIR: --restart checks every value it reads like the
# option it stands for (issue 21). Restart files are made with ncgen: 4 x 3 files without a
# checkpoint (as hand-made files come) whose time is 1e30, inf, NaN or negative, whose depth
# is negative in one cell, or whose u_face holds a NaN; and a real weather_ipu output dumped
# with ncdump and rebuilt with one value changed: the last time, the recorded time step,
# the step count. Each must end with exit status 1 and the ERROR given below, within 60 s
# (before: a time of 1e30 or inf never finished, NaN ran and exited 0, a negative depth was
# taken).
set -u
weather_ipu=$1 dir=$2
support=$(dirname "$0")/../support
mkdir -p "$dir"
rm -f "$dir"/*
failures=0
# expect NAME REGEX FILE [OPTIONS...]: restarts FILE and checks the error.
expect() {
  local name=$1 regex=$2 file=$3
  shift 3
  if timeout 60 "$support/expect_failure.sh" "$regex" "$weather_ipu" --restart "$file" \
       --threads 1 --days 0.01 "$@" >"$dir/$name.log" 2>&1; then
    echo "ok: $name"
  else
    echo "FAILED: $name (status $?)"; cat "$dir/$name.log"; failures=$((failures + 1))
  fi
}
# small NAME TIME H U: a 4 x 3 restart file without a checkpoint.
small() {
  cat >"$dir/$1.cdl" <<CDL
netcdf small {
dimensions:
  time = UNLIMITED ; y = 3 ; x = 4 ;
variables:
  double time(time) ; double h(time, y, x) ; double u_face(y, x) ; double v_face(y, x) ;
data:
  time = $2 ;
  h = $3 ;
  u_face = $4 ;
  v_face = 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 ;
}
CDL
  ncgen -4 -o "$dir/$1.nc" "$dir/$1.cdl" || { echo "ncgen failed on $1"; exit 2; }
}
level="1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000, 1000"
still="0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0"
grid=(--nx 4 --ny 3 --tiles-per-ipu 1)
small huge_time 1e30 "$level" "$still"
expect huge_time "^ERROR: times near t = 1e\+30 s are too coarse for steps of" \
  "$dir/huge_time.nc" "${grid[@]}"
small infinite_time Infinity "$level" "$still"
expect infinite_time "^ERROR: '.*infinite_time.nc': the time of its last record is inf s" \
  "$dir/infinite_time.nc" "${grid[@]}"
small nan_time NaN "$level" "$still"
expect nan_time "^ERROR: '.*nan_time.nc': the time of its last record is nan s" \
  "$dir/nan_time.nc" "${grid[@]}"
small negative_time -5 "$level" "$still"
expect negative_time "the time of its last record is -5 s; a run continues only from a finite" \
  "$dir/negative_time.nc" "${grid[@]}"
small negative_depth 3600 "1000, 1000, 1000, 1000, 1000, 1000, -5, 1000, 1000, 1000, 1000, 1000" \
  "$still"
expect negative_depth "^ERROR: '.*negative_depth.nc': h is -5 at cell \(i, j\) = \(2, 1\) of the 4 x 3 grid, at x = .* km, y = .* km \(its last record\); the layer depth must be positive" \
  "$dir/negative_depth.nc" "${grid[@]}"
small nan_velocity 3600 "$level" "0, 0, 0, 0, 0, NaN, 0, 0, 0, 0, 0, 0"
expect nan_velocity "^ERROR: '.*nan_velocity.nc': u_face is nan at cell \(i, j\) = \(1, 1\).*every value must be a finite number" \
  "$dir/nan_velocity.nc" "${grid[@]}"

# A real output, rebuilt with one value changed.
run=(--case gravity-wave --nx 16 --ny 4 --dt 30)
"$weather_ipu" "${run[@]}" --threads 1 --days 0.05 --output-every 0.4 --output "$dir/good.nc" \
  >/dev/null || { echo "the first run failed"; exit 1; }
ncdump -p 9,17 "$dir/good.nc" >"$dir/good.cdl"
# rebuilt NAME SED: good.cdl through the sed script, as NAME.nc.
rebuilt() {
  sed -E "$2" "$dir/good.cdl" >"$dir/$1.cdl"
  cmp -s "$dir/good.cdl" "$dir/$1.cdl" && { echo "sed changed nothing for $1"; exit 2; }
  ncgen -4 -o "$dir/$1.nc" "$dir/$1.cdl" || { echo "ncgen failed on $1"; exit 2; }
}
rebuilt changed_time 's/^( *time = .*, )4320 ;/\14321 ;/'
expect changed_time "^ERROR: '.*changed_time.nc': its last record does not match the state_checksum" \
  "$dir/changed_time.nc" "${run[@]}"
rebuilt zero_step 's/checkpoint:time_step = 30\. ;/checkpoint:time_step = 0. ;/'
expect zero_step "^ERROR: '.*zero_step.nc': its checkpoint's time_step is 0 s; a time step must be positive" \
  "$dir/zero_step.nc" "${run[@]}"
rebuilt far_step 's/checkpoint:step = 144\. ;/checkpoint:step = 1e+300 ;/'
expect far_step "^ERROR: '.*far_step.nc': its checkpoint's step is 1e\+300; a step count must be a whole number" \
  "$dir/far_step.nc" "${run[@]}"
rebuilt off_grid 's/checkpoint:step = 144\. ;/checkpoint:step = 100. ;/'
expect off_grid "^ERROR: '.*off_grid.nc': the time of its last record, 4320 s, is not that of its step 100" \
  "$dir/off_grid.nc" "${run[@]}"

# A spherical output without its checkpoint attributes (as an older file) and a NaN in
# u_face: the cell is named by latitude and longitude.
"$weather_ipu" --case williamson2 --resolution 11.25 --days 0.05 --threads 1 \
  --output "$dir/sphere.nc" >/dev/null || { echo "the spherical run failed"; exit 1; }
ncdump -p 9,17 "$dir/sphere.nc" |
  sed -E '/checkpoint:(time_step|time_origin|step|checksum_variables|state_checksum) =/d' |
  sed -E '/^ u_face =/{n;s/^( *)[^,]+,/\1NaN,/}' >"$dir/sphere_nan.cdl"
ncgen -4 -o "$dir/sphere_nan.nc" "$dir/sphere_nan.cdl" || { echo "ncgen failed on sphere"; exit 2; }
expect sphere_nan "^ERROR: '.*sphere_nan.nc': u_face is nan at cell \(i, j\) = \(0, 0\) of the 32 x 16 grid, at lon 5.625, lat -84.375 degrees" \
  "$dir/sphere_nan.nc" --case williamson2 --resolution 11.25
((failures == 0))
