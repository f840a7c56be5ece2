#!/usr/bin/env python3
"""Effective samples per second: Tessera's mcmc_ipu against emcee, same targets, same core.

    compare_emcee.py --mcmc-ipu build/apps/mcmc/mcmc_ipu [--repeats 3] [--quick]

Targets: the 100-dimensional correlated Gaussian (AR(1) correlation, rho = 0.9;
mcmc_ipu's correlated_gaussian) and Goodman & Weare's 2-D Rosenbrock density.
Samplers: Tessera's NUTS (its best sampler here) and its ensemble stretch move
(emcee's algorithm), against emcee 3's default StretchMove with vectorised log
densities (its fastest mode). Every sampler runs the same total iterations of
warm-up/burn-in plus draws; wall time covers sampling only (mcmc_ipu's
"sampling took" line; emcee's run_mcmc). ESS/s = bulk-ESS of the slowest
parameter (rank-normalised split chains, Vehtari et al. 2021, computed here for
all samplers with the same code) / wall seconds. Each configuration runs
--repeats times; the table reports the median. Tessera runs with --threads 1 and
OMP/OPENBLAS threads are pinned to 1, so every sampler uses one core.
Needs Debian's python3-emcee, python3-numpy, python3-netcdf4 (scripts/setup bench analysis).
"""
import argparse
import os

os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import re  # noqa: E402
import statistics  # noqa: E402
import subprocess  # noqa: E402
import tempfile  # noqa: E402
import time  # noqa: E402

import emcee  # noqa: E402
import netCDF4  # noqa: E402
import numpy as np  # noqa: E402
from scipy_free_ndtri import ndtri  # noqa: E402


def autocovariance(x):
    """Biased autocovariance of one chain (Geyer 1992), by FFT."""
    n = len(x)
    y = x - x.mean()
    f = np.fft.rfft(y, n=2 * n)
    return np.fft.irfft(f * np.conj(f))[:n] / n


def ess(chains):
    """posterior's .ess(): chains is (m, n)."""
    m, n = chains.shape
    acov = np.array([autocovariance(c) for c in chains])
    mean_var = acov[:, 0].mean() * n / (n - 1)
    var_plus = mean_var * (n - 1) / n + (chains.mean(axis=1).var(ddof=1) if m > 1 else 0)
    rho = np.zeros(n)
    rho[0] = 1
    rho_even, rho_odd = 1.0, 1 - (mean_var - acov[:, 1].mean()) / var_plus
    rho[1] = rho_odd
    t = 0
    while t < n - 5 and rho_even + rho_odd > 0:
        t += 2
        rho_even = 1 - (mean_var - acov[:, t].mean()) / var_plus
        rho_odd = 1 - (mean_var - acov[:, t + 1].mean()) / var_plus
        if rho_even + rho_odd >= 0:
            rho[t], rho[t + 1] = rho_even, rho_odd
    max_t = t
    if rho_even > 0:
        rho[max_t] = rho_even
    t = 0
    while t <= max_t - 4:
        t += 2
        if rho[t] + rho[t + 1] > rho[t - 2] + rho[t - 1]:
            rho[t] = rho[t + 1] = (rho[t - 2] + rho[t - 1]) / 2
    tau = max(-1 + 2 * rho[:max_t].sum() + rho[max_t], 1 / np.log10(m * n))
    return m * n / tau


def bulk_ess(chains):
    """Rank-normalised split-chain ESS of draws (m, n)."""
    half = chains.shape[1] // 2
    split = np.concatenate([chains[:, :half], chains[:, -half:]])
    ranks = split.ravel().argsort(kind="stable").argsort(kind="stable") + 1.0
    # average ranks of ties are irrelevant for continuous draws
    z = ndtri((ranks - 0.375) / (ranks.size + 0.25)).reshape(split.shape)
    return ess(z)


def min_bulk_ess(draws):
    """draws: (chains, draws, parameters)."""
    return min(bulk_ess(draws[:, :, k]) for k in range(draws.shape[2]))


def run_tessera(mcmc_ipu, model_args, sampler, chains, warmup, draws, seed, work):
    prefix = os.path.join(work, f"t{seed}")
    out = subprocess.run([mcmc_ipu, *model_args, "--sampler", sampler, "--chains", str(chains),
                          "--warmup", str(warmup), "--draws", str(draws), "--seed", str(seed),
                          "--threads", "1", "--refresh", str(10 ** 8), "--output", prefix, "--formats", "nc",
                          "--no-summary"],
                         check=True, capture_output=True, text=True).stdout
    seconds = float(re.search(r"sampling took ([0-9.]+) s", out).group(1))
    with netCDF4.Dataset(prefix + ".nc") as nc:
        x = np.asarray(nc.groups["posterior"].variables["x"][:])
    return seconds, x if x.ndim == 3 else x[:, :, None]


def run_emcee(log_prob, dim, walkers, burn, steps, seed):
    rng = np.random.default_rng(seed)
    start = rng.uniform(-2, 2, size=(walkers, dim))
    sampler = emcee.EnsembleSampler(walkers, dim, log_prob, vectorize=True)
    sampler._random = np.random.mtrand.RandomState(seed)
    t0 = time.perf_counter()
    sampler.run_mcmc(start, burn + steps, progress=False)
    seconds = time.perf_counter() - t0
    chain = sampler.get_chain(discard=burn)  # (steps, walkers, dim)
    return seconds, np.transpose(chain, (1, 0, 2))


def gaussian_log_prob(rho, dim):
    diag = np.full(dim, 1 + rho * rho)
    diag[0] = diag[-1] = 1.0

    def log_prob(x):
        q = (x * x) @ diag - 2 * rho * np.sum(x[:, :-1] * x[:, 1:], axis=1)
        return -0.5 * q / (1 - rho * rho)
    return log_prob


def rosenbrock_log_prob(x):
    return -(100 * (x[:, 1] - x[:, 0] ** 2) ** 2 + (1 - x[:, 0]) ** 2) / 20


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--mcmc-ipu", required=True)
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--quick", action="store_true", help="a tenth of the iterations (a smoke test)")
    args = parser.parse_args()
    scale = 10 if args.quick else 1
    targets = [
        ("correlated Gaussian, d = 100", ["--model", "correlated_gaussian", "--dimension", "100"],
         gaussian_log_prob(0.9, 100), 100, 200, 2000 // scale, 2000 // scale),
        ("Rosenbrock, d = 2", ["--model", "rosenbrock"], rosenbrock_log_prob, 2, 32, 10000 // scale,
         10000 // scale),
    ]
    print(f"emcee {emcee.__version__}; wall time = sampling only; median of {args.repeats} runs")
    print(f"{'target':<30} {'sampler':<22} {'iterations':>14} {'seconds':>8} {'min bulk-ESS':>12} "
          f"{'ESS/s':>10} {'vs emcee':>9}")
    with tempfile.TemporaryDirectory() as work:
        for name, model_args, log_prob, dim, walkers, burn, steps in targets:
            results = {}
            configs = [
                ("emcee stretch", lambda seed: run_emcee(log_prob, dim, walkers, burn, steps, seed),
                 f"{walkers} x {burn + steps}"),
                ("tessera ensemble", lambda seed: run_tessera(args.mcmc_ipu, model_args, "ensemble", walkers,
                                                              burn, steps, seed, work),
                 f"{walkers} x {burn + steps}"),
                ("tessera nuts", lambda seed: run_tessera(args.mcmc_ipu, model_args, "nuts", 4,
                                                          1000, 1000 if not args.quick else 200, seed, work),
                 f"4 x {2000 if not args.quick else 1200}"),
            ]
            for label, run, iterations in configs:
                rates = []
                for seed in range(1, args.repeats + 1):
                    seconds, draws = run(seed)
                    rates.append((min_bulk_ess(draws) / seconds, seconds, min_bulk_ess(draws)))
                rate, seconds, e = sorted(rates)[len(rates) // 2]
                results[label] = rate
                ratio = rate / results["emcee stretch"]
                print(f"{name:<30} {label:<22} {iterations:>14} {seconds:8.2f} {e:12.1f} {rate:10.1f} "
                      f"{ratio:8.2f}x", flush=True)


if __name__ == "__main__":
    main()
