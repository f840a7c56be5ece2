#!/usr/bin/env bash
# own_model_outputs.sh PREFIX COMMAND...: runs COMMAND, which samples and writes
# PREFIX_<chain>.csv and PREFIX.nc, then prints the header row of PREFIX_1.csv and the
# header of PREFIX.nc (ncdump -h), for the test to match.
set -euo pipefail
prefix=$1
shift
rm -f "$prefix"_*.csv "$prefix.nc"
mkdir -p "$(dirname "$prefix")"
"$@"
awk '!/^#/ { print; exit }' "${prefix}_1.csv"
ncdump -h "$prefix.nc"
