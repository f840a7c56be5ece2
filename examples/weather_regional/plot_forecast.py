#!/usr/bin/env python3
"""Maps of a weather_ipu forecast: free-surface height with wind arrows, and
the moisture tracer, over the topography, at chosen output times.

    plot_forecast.py FORECAST.nc OUT_DIR [--hours 0 6 12 24]

Reads the CF-1.8 file with netCDF4 and writes OUT_DIR/forecast_hHH.png, one
figure per hour asked for (the nearest record), plus OUT_DIR/topography.png.
Needs Debian's python3-matplotlib and python3-netcdf4 (scripts/setup analysis).
"""
import argparse
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import netCDF4  # noqa: E402
import numpy as np  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("forecast")
    parser.add_argument("out_dir")
    parser.add_argument("--hours", type=float, nargs="+", default=[0, 6, 12, 24])
    args = parser.parse_args()
    try:
        ds = netCDF4.Dataset(args.forecast)
    except OSError as e:
        sys.exit(f"ERROR: cannot read {args.forecast}: {e}")
    for name in ("time", "x", "y", "h", "u", "v", "c", "b"):
        if name not in ds.variables:
            sys.exit(f"ERROR: {args.forecast} has no variable '{name}'; is it a weather_ipu volcano run?")
    os.makedirs(args.out_dir, exist_ok=True)
    x = ds["x"][:] / 1e3
    y = ds["y"][:] / 1e3
    hours = ds["time"][:] / 3600.0
    b = ds["b"][:]

    fig, ax = plt.subplots(figsize=(5, 6))
    m = ax.pcolormesh(x, y, b, shading="auto", cmap="terrain")
    fig.colorbar(m, ax=ax, label="bottom height (m)")
    ax.set(xlabel="x (km)", ylabel="y (km)", title="Topography (Maunga Whau, scaled)", aspect="equal")
    fig.savefig(os.path.join(args.out_dir, "topography.png"), dpi=100, bbox_inches="tight")
    plt.close(fig)

    step = max(1, len(x) // 16)
    for want in args.hours:
        k = int(np.argmin(np.abs(hours - want)))
        surface = ds["h"][k] + b
        fig, (a1, a2) = plt.subplots(1, 2, figsize=(10, 6), sharey=True)
        m1 = a1.pcolormesh(x, y, surface, shading="auto", cmap="viridis")
        fig.colorbar(m1, ax=a1, label="free-surface height h + b (m)")
        a1.quiver(x[::step], y[::step], ds["u"][k][::step, ::step], ds["v"][k][::step, ::step])
        a1.contour(x, y, b, levels=6, colors="white", linewidths=0.5)
        a1.set(xlabel="x (km)", ylabel="y (km)", title="surface and wind", aspect="equal")
        m2 = a2.pcolormesh(x, y, ds["c"][k], shading="auto", cmap="Blues", vmin=0, vmax=1)
        fig.colorbar(m2, ax=a2, label="moisture tracer (1)")
        a2.contour(x, y, b, levels=6, colors="k", linewidths=0.5)
        a2.set(xlabel="x (km)", title="moisture", aspect="equal")
        fig.suptitle(f"regional forecast, t = {hours[k]:.0f} h")
        path = os.path.join(args.out_dir, f"forecast_h{hours[k]:02.0f}.png")
        fig.savefig(path, dpi=100, bbox_inches="tight")
        plt.close(fig)
        print(f"wrote {path}")


if __name__ == "__main__":
    main()
