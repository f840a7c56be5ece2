#!/usr/bin/env bash
# make_seeds.sh [BUILD_DIR]: writes the seeds under corpus/ that are outputs of Tessera's own
# programs (restart files, data files, CmdStan CSV files, NetCDF files in the classic formats)
# and the tiny DeePMD model, from the programs in BUILD_DIR (default: build/). The files are
# kept in the tree; run this again when a format changes.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
build=$(cd "${1:-$root/build}" && pwd)
md=$build/apps/md/md_ipu mcmc=$build/apps/mcmc/mcmc_ipu weather=$build/apps/weather/weather_ipu
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
corpus=$here/corpus

python3 "$here/make_tiny_model.py"

# md: restart and data files of small systems (lj/cut with nve + langevin, nvt, two types;
# deepmd water), written by md_ipu.
mkdir -p "$corpus/md_restart" "$corpus/md_data"
cp "$corpus/deepmd_model/tiny.yaml" "$work/model.yaml"
cp "$root/examples/deepmd_water/water_192.data" "$work/"
cat >"$work/in.lj" <<'IN'
units lj
lattice fcc 0.8442
region box block 0 2 0 2 0 2
create_box 2 box
create_atoms 1 box
mass * 1.0
velocity all create 1.0 5 loop geom
pair_style lj/cut 2.5
pair_coeff 1 1 1.0 1.0 2.5
pair_coeff 2 2 0.5 1.1
pair_modify shift yes mix arithmetic
fix 1 all nve
fix 2 all langevin 1.0 1.0 1.0 77
run 5
write_restart lj_langevin.restart
write_data lj_two_types.data
unfix 2
unfix 1
fix 3 all nvt temp 1.0 1.2 0.5
run 5
write_restart lj_nvt.restart
IN
cat >"$work/in.water" <<'IN'
units metal
read_data water_192.data
pair_style deepmd model.yaml
pair_coeff * * O H
velocity all create 300.0 4928459 dist gaussian mom yes
timestep 0.0005
fix 1 all nve
run 2
write_restart water_deepmd.restart
IN
(cd "$work" && "$md" --threads 1 -log none -in in.lj >/dev/null && "$md" --threads 1 -log none -in in.water >/dev/null)
cp "$work"/lj_langevin.restart "$work"/lj_nvt.restart "$work"/water_deepmd.restart "$corpus/md_restart/"
cp "$work/lj_two_types.data" "$corpus/md_data/"

# mcmc: CmdStan CSV files of each sampler and metric, with and without the saved warm-up.
mkdir -p "$corpus/mcmc_csv"
schools=$root/tests/mcmc/data/schools_3.json
quick=(--warmup 20 --draws 10 --chains 1 --threads 1 --formats csv --no-summary)
"$mcmc" --model eight_schools_noncentered --data "$schools" "${quick[@]}" --output "$work/nuts" >/dev/null
"$mcmc" --model eight_schools_noncentered --data "$schools" "${quick[@]}" --metric dense_e --save-warmup --thin 2 --output "$work/dense" >/dev/null
"$mcmc" --model std_normal --dimension 2 "${quick[@]}" --sampler hmc --output "$work/hmc" >/dev/null
"$mcmc" --model rosenbrock "${quick[@]}" --sampler pt --temperatures 3 --output "$work/pt" >/dev/null
"$mcmc" --model std_normal --dimension 2 --warmup 5 --draws 5 --chains 4 --threads 1 --formats csv --no-summary --sampler ensemble --output "$work/ensemble" >/dev/null
for run in nuts dense hmc pt ensemble; do cp "$work/${run}_1.csv" "$corpus/mcmc_csv/$run.csv"; done

# weather: outputs of three cases (the restart fields, a leapfrog level, a tracer, a
# topography) in the classic, 64-bit-offset and CDF-5 formats, and the CDL files of the tests.
mkdir -p "$corpus/weather_netcdf"
small=(--nx 8 --ny 6 --threads 1)
"$weather" --case gravity-wave "${small[@]}" --days 0.05 --output-every 0.5 --output "$work/gravity.nc" >/dev/null
"$weather" --case tracer-rotation "${small[@]}" --days 0.02 --output-every 0.2 --integrator leapfrog --output "$work/tracer.nc" >/dev/null
"$weather" --case volcano --topography "$root/examples/data/volcano_elevation.csv" "${small[@]}" --days 0.02 --output "$work/volcano.nc" >/dev/null
nccopy -k classic "$work/gravity.nc" "$corpus/weather_netcdf/gravity_classic.nc"
nccopy -k 64-bit-offset "$work/tracer.nc" "$corpus/weather_netcdf/tracer_leapfrog_64bit.nc"
nccopy -k cdf5 "$work/volcano.nc" "$corpus/weather_netcdf/volcano_cdf5.nc"
for cdl in "$root"/tests/weather/data/*.cdl; do
  ncgen -k classic -o "$corpus/weather_netcdf/$(basename "$cdl" .cdl).nc" "$cdl"
done
echo "seeds written under $corpus"
