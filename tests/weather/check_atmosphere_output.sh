#!/usr/bin/env bash
# check_atmosphere_output.sh FILE.nc COMMAND...: runs COMMAND (which writes FILE.nc with the
# 3-D model's fields), then passes when
#   - ncdump shows the hybrid sigma-pressure coordinate as CF-1.8 defines it (standard_name,
#     formula_terms with bounds) and the fields on (time, lev, lat, lon);
#   - cdo reads lev as a hybrid coordinate (its 'vct') and interpolates T to 850 hPa
#     (ml2pl) from the file's own coefficients and ps;
#   - that T agrees within 0.05 K with our interpolation (linear in p, as cdo's) from
#     p = hyam P0 + hybm ps, computed here with xarray, and the coefficients are pure pressure
#     at the top and pure sigma at the ground (ps stays near P0 in a short run, so a and b
#     swapped would otherwise give the same pressures);
#   - the first record's T (the initial state, ps = 1000 hPa) is Jablonowski & Williamson's
#     analytic T at each layer's lev to 1e-9 K: lev is where the values are;
#   - the pressure-level fields (ta, ua, va, zg on plev, CMIP6's plev8 by default): cdo sees
#     the 8 pressure levels; ta is the model levels' T interpolated linearly in ln p (to 1e-9 K
#     in every record, computed here); in the first record ta at 850 and 500 hPa is JW06's
#     analytic T to 0.3 K (the interpolation's own error between the L26 midpoints: 0.18 K
#     measured) and zg at 850, 500 and 250 hPa their analytic geopotential (eq. 7) / g to 5 m
#     (the model's isothermal-layer hydrostatics: 1.0, 2.8 and 3.4 m measured), zg at 1000 hPa
#     = ps is phis / g; and cdo's ml2pl T at 850 hPa is our ta there to 0.1 K (cdo interpolates
#     linearly in p, we in ln p: 0.049 K apart, measured at 11.25 degrees).
# Skips (77) without python3-xarray (scripts/setup analysis); cdo comes from scripts/setup.
set -u
file=$1
shift
PYTHON=${PYTHON:-/usr/bin/python3}
"$PYTHON" -c "import xarray" 2>/dev/null || { echo "no python3-xarray: run scripts/setup analysis"; exit 77; }
command -v cdo >/dev/null || { echo "cdo is not installed: run scripts/setup"; exit 1; }
rm -f "$file" "$file.part" "$file.850.nc"
out=$("$@" 2>&1) || { echo "command failed: $*"; echo "$out"; exit 1; }
[[ ! -e $file.part ]] || { echo "$file.part was left behind"; exit 1; }
header=$(ncdump -h "$file") || { echo "ncdump cannot read $file"; exit 1; }
for pattern in 'lev:standard_name = "atmosphere_hybrid_sigma_pressure_coordinate"' \
               'lev:formula_terms = "a: hyam b: hybm p0: P0 ps: ps"' 'lev:bounds = "lev_bnds"' \
               'lev_bnds:formula_terms = "a: hyam_bnds b: hybm_bnds p0: P0 ps: ps"' \
               'lev:positive = "down"' 'double T\(time, lev, lat, lon\)' 'double u\(time, lev, lat, lon\)' \
               'ps:standard_name = "surface_air_pressure"' 'phis:standard_name = "surface_geopotential"' \
               'double ta\(time, plev, lat, lon\)' 'double zg\(time, plev, lat, lon\)' \
               'plev:standard_name = "air_pressure"' 'zg:standard_name = "geopotential_height"' \
               ':source = "Tessera weather: hydrostatic primitive equations'; do
  grep -Eq -- "$pattern" <<<"$header" || { echo "ncdump -h shows no /$pattern/:"; echo "$header"; exit 1; }
done
cdo -s sinfo "$file" 2>&1 | grep -q "hybrid *: levels=26" || { echo "cdo does not see 26 hybrid levels:"; cdo sinfo "$file"; exit 1; }
cdo -s sinfo "$file" 2>&1 | grep -q "pressure *: levels=8" || { echo "cdo does not see 8 pressure levels:"; cdo sinfo "$file"; exit 1; }
cdo -s -selname,T,ps -ml2pl,85000 "$file" "$file.850.nc" || { echo "cdo ml2pl failed"; exit 1; }
"$PYTHON" - "$file" "$file.850.nc" <<'PY'
import sys
import numpy as np
import xarray as xr

ds = xr.open_dataset(sys.argv[1], decode_times=False)
cdo = xr.open_dataset(sys.argv[2], decode_times=False)
p = ds["hyam"] * ds["P0"] + ds["hybm"] * ds["ps"]  # (lev, time, lat, lon)
p = p.transpose("time", "lev", "lat", "lon").values
t = ds["T"].values
target = 85000.0
ours = np.empty(t.shape[:1] + t.shape[2:])
for n in range(t.shape[0]):
    for j in range(t.shape[2]):
        for i in range(t.shape[3]):
            ours[n, j, i] = np.interp(target, p[n, :, j, i], t[n, :, j, i])
theirs = cdo["T"].values[:, 0]
worst = np.abs(ours - theirs).max()
print(f"T at 850 hPa: cdo against p = hyam P0 + hybm ps, largest difference {worst:.3g} K "
      f"({ours.min():.1f} to {ours.max():.1f} K)")
# The first record is Jablonowski & Williamson's initial state (their eqs. 2-7, Table 1) with
# ps = 1000 hPa, so each layer's lev (a + b at its midpoint) is its eta: T there must be their
# analytic T at that eta.
a, omega, g, rd, u0, t0, gamma, eta0 = 6.371229e6, 7.29212e-5, 9.80616, 287.04, 35.0, 288.0, 0.005, 0.252
eta = ds["lev"].values[:, None]
ev = (eta - eta0) * np.pi / 2
phi = np.deg2rad(ds["lat"].values)[None, :]
s, c = np.sin(phi), np.cos(phi)
mean = t0 * eta ** (rd * gamma / g) + np.where(eta < 0.2, 4.8e5 * (0.2 - eta) ** 5, 0.0)
exact = mean + 0.75 * (eta * np.pi * u0 / rd) * np.sin(ev) * np.sqrt(np.cos(ev)) * (
    (-2 * s**6 * (c**2 + 1 / 3) + 10 / 63) * 2 * u0 * np.cos(ev) ** 1.5
    + (1.6 * c**3 * (s**2 + 2 / 3) - np.pi / 4) * a * omega)
initial = np.abs(t[0] - exact[:, :, None]).max()
print(f"T of the first record against JW06's analytic T at each layer's lev: {initial:.3g} K")
# ps stays near P0, so a and b swapped would give the same pressures: check that the top layer
# is pure pressure (b = 0) and the ground pure sigma (a = 0, b = 1), as CAM's L26 has them.
ends = (ds["hybm"].values[0] == 0 and ds["hyam_bnds"].values[-1, 1] == 0
        and ds["hybm_bnds"].values[-1, 1] == 1 and ds["hyam"].values[0] > 0)
print(f"hybrid coefficients at the top and the ground as CAM L26's: {ends}")

# Pressure levels: ta against our own ln-p interpolation of T, every record and column.
plev = ds["plev"].values
ta, zg = ds["ta"].values, ds["zg"].values
interpolation = 0.0
for n in range(t.shape[0]):
    for j in range(t.shape[2]):
        for i in range(t.shape[3]):
            lnp = np.log(p[n, :, j, i])
            for k, target in enumerate(plev):
                if target > p[n, -1, j, i] or target < p[n, 0, j, i]:
                    continue  # outside the midpoints: extrapolated, not interpolated
                mine = np.interp(np.log(target), lnp, t[n, :, j, i])
                interpolation = max(interpolation, abs(mine - ta[n, k, j, i]))
print(f"ta against T interpolated linearly in ln p: largest difference {interpolation:.3g} K")
# The first record against JW06's analytic T and geopotential (eq. 7) at eta = p / P0.
eta_p = plev[:, None] / 1e5
ev_p = (eta_p - eta0) * np.pi / 2
jet = (-2 * s**6 * (c**2 + 1 / 3) + 10 / 63)
waves = (1.6 * c**3 * (s**2 + 2 / 3) - np.pi / 4) * a * omega
t_exact = t0 * eta_p ** (rd * gamma / g) + 0.75 * (eta_p * np.pi * u0 / rd) * np.sin(ev_p) * np.sqrt(
    np.cos(ev_p)) * (jet * 2 * u0 * np.cos(ev_p) ** 1.5 + waves)
z_exact = (t0 * g / gamma * (1 - eta_p ** (rd * gamma / g))
           + u0 * np.cos(ev_p) ** 1.5 * (jet * u0 * np.cos(ev_p) ** 1.5 + waves)) / g
levels = list(plev)
ta_err = max(np.abs(ta[0, levels.index(q)] - t_exact[levels.index(q)][:, None]).max() for q in (85000.0, 50000.0))
zg_err = max(np.abs(zg[0, levels.index(q)] - z_exact[levels.index(q)][:, None]).max() for q in (85000.0, 50000.0, 25000.0))
ground = np.abs(zg[0, levels.index(100000.0)] - ds["phis"].values / g).max()
print(f"first record against JW06: ta at 850 and 500 hPa {ta_err:.3g} K, zg at 850, 500 and 250 hPa "
      f"{zg_err:.3g} m, zg at 1000 hPa against phis / g {ground:.3g} m")
with_cdo = np.abs(ta[:, levels.index(85000.0)] - theirs).max()
print(f"ta at 850 hPa against cdo's ml2pl T (linear in p): {with_cdo:.3g} K")
ok = (worst < 0.05 and initial < 1e-9 and ends and np.isfinite(ours).all() and interpolation < 1e-9
      and ta_err < 0.3 and zg_err < 5 and ground < 1e-6 and with_cdo < 0.1 and np.isfinite(zg).all())
sys.exit(0 if ok else 1)
PY
