#!/usr/bin/env python3
"""Posterior summaries, one-day-ahead volatility forecasts and plots for the
DAX volatility case study, from mcmc_ipu's ArviZ-layout NetCDF files.

    analyze.py WORKDIR

Reads WORKDIR/returns.json (prepare_data.py), WORKDIR/garch.nc and
WORKDIR/sv.nc (mcmc_ipu --output), prints the summaries and forecasts, and
writes WORKDIR/volatility.png. Needs Debian's python3-numpy, python3-netcdf4
and python3-matplotlib (scripts/setup analysis).
"""
import json
import os
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import netCDF4  # noqa: E402
import numpy as np  # noqa: E402

TRADING_DAYS = 252  # to annualise a daily volatility: sd * sqrt(252)


def posterior(path):
    """The posterior group as a dict of arrays (chain, draw, ...)."""
    with netCDF4.Dataset(path) as nc:
        group = nc.groups["posterior"]
        return {name: np.asarray(var[:]) for name, var in group.variables.items()
                if name not in ("chain", "draw")}


def describe(name, draws, unit=""):
    flat = np.asarray(draws).ravel()
    q05, q50, q95 = np.quantile(flat, [0.05, 0.5, 0.95])
    print(f"  {name:<28} mean {flat.mean():9.4f}  sd {flat.std(ddof=1):8.4f}  "
          f"90% interval [{q05:8.4f}, {q95:8.4f}]  median {q50:8.4f} {unit}")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    work = sys.argv[1]
    with open(os.path.join(work, "returns.json")) as f:
        data = json.load(f)
    time, returns = np.array(data["time"]), np.array(data["returns"])

    garch = posterior(os.path.join(work, "garch.nc"))
    print("GARCH(1,1), posteriordb's garch11 (returns in %):")
    for name in ("mu", "alpha0", "alpha1", "beta1"):
        describe(name, garch[name])
    describe("alpha1 + beta1 (persistence)", garch["alpha1"] + garch["beta1"])
    describe("next-day volatility", garch["sigma_next"], "% per day")
    describe("  annualised", garch["sigma_next"] * np.sqrt(TRADING_DAYS), "% per year")

    sv = posterior(os.path.join(work, "sv.nc"))
    print("Stochastic volatility (Kim-Shephard-Chib AR(1) log-variance):")
    for name in ("mu", "phi", "sigma"):
        describe(name, sv[name])
    # One-day-ahead: h_T+1 ~ N(mu + phi (h_T - mu), sigma^2) per posterior draw, then
    # the daily sd exp(h_T+1 / 2). A fixed seed keeps the forecast reproducible.
    rng = np.random.default_rng(20240601)
    h_last = sv["h"][..., -1]
    h_next = sv["mu"] + sv["phi"] * (h_last - sv["mu"]) + sv["sigma"] * rng.standard_normal(h_last.shape)
    describe("next-day volatility", np.exp(h_next / 2), "% per day")
    describe("  annualised", np.exp(h_next / 2) * np.sqrt(TRADING_DAYS), "% per year")

    # Posterior volatility paths: SV's exp(h_t / 2) with a 90% band, and the GARCH
    # conditional sd recomputed from each posterior draw (as the Stan program does).
    sv_vol = np.exp(sv["h"].reshape(-1, sv["h"].shape[-1]) / 2)
    mu_g = garch["mu"].ravel()[:, None]
    a0, a1, b1 = (garch[k].ravel()[:, None] for k in ("alpha0", "alpha1", "beta1"))
    sigma = np.empty((mu_g.shape[0], returns.size))
    sigma[:, 0] = np.std(returns, ddof=1)  # the data file's sigma1
    for t in range(1, returns.size):
        sigma[:, t] = np.sqrt(a0[:, 0] + a1[:, 0] * (returns[t - 1] - mu_g[:, 0]) ** 2
                              + b1[:, 0] * sigma[:, t - 1] ** 2)

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True)
    top.plot(time, returns, lw=0.6, color="0.3")
    top.set_ylabel("DAX daily log return (%)")
    top.set_title("DAX: daily returns and posterior volatility")
    for paths, label, colour in ((sv_vol, "stochastic volatility", "C0"), (sigma, "GARCH(1,1)", "C1")):
        lo, mid, hi = np.quantile(paths, [0.05, 0.5, 0.95], axis=0)
        bottom.fill_between(time, lo, hi, color=colour, alpha=0.3, lw=0)
        bottom.plot(time, mid, color=colour, lw=1, label=f"{label} (median, 90% band)")
    bottom.plot(time, np.abs(returns), ".", ms=2, color="0.5", label="|return|")
    bottom.set_ylabel("volatility (% per day)")
    bottom.set_xlabel("year")
    bottom.legend(loc="upper left")
    fig.tight_layout()
    out = os.path.join(work, "volatility.png")
    fig.savefig(out, dpi=120)
    print(f"wrote {out}")


if __name__ == "__main__":
    main()
