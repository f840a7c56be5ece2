#!/usr/bin/env bash
# make_netcdf.sh CDL OUT.nc COMMAND...: turns the CDL text into OUT.nc with
# ncgen, then runs COMMAND (malformed start files for the --initial error tests).
set -u
cdl=$1 out=$2
shift 2
ncgen -4 -o "$out" "$cdl" || { echo "ncgen cannot read $cdl"; exit 2; }
exec "$@"
