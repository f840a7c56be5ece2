#!/usr/bin/env bash
# ranks_read_other_files.sh DIR (WEATHER_IPU, MPIEXEC in the environment): --initial from two
# different outputs of the same case and grid on two ranks (mpirun's MPMD form) ends with the
# ERROR that names the file and the rank that read something else, not with a failed run.
set -u
dir=$1
read -r -a mpiexec <<<"$MPIEXEC"
mkdir -p "$dir"
rm -f "$dir"/*.nc*
run=("$WEATHER_IPU" --case gravity-wave --dt 30 --threads 1)
"${run[@]}" --days 0.05 --output "$dir/a.nc" >/dev/null || exit 1
"${run[@]}" --days 0.1 --output "$dir/b.nc" >/dev/null || exit 1
exec "$(dirname "$0")/../support/expect_failure.sh" \
  "^ERROR: the start file '.*a.nc' \(as rank 0 names it\) differs between the MPI ranks: rank 1 read other data than rank 0" \
  "${mpiexec[@]}" -np 1 "${run[@]}" --days 0.01 --initial "$dir/a.nc" --output "$dir/o.nc" \
  : -np 1 "${run[@]}" --days 0.01 --initial "$dir/b.nc" --output "$dir/o.nc"
