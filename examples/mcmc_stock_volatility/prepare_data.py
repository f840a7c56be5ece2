#!/usr/bin/env python3
"""Daily DAX log returns (in percent) as mcmc_ipu data files.

    prepare_data.py CSV OUTDIR [--days N]

Reads examples/data/eu_stock_markets.csv (R's EuStockMarkets), takes the last
N + 1 DAX closes, and writes OUTDIR/garch11.json (posteriordb's garch11 layout:
T, y, sigma1) and OUTDIR/stochastic_volatility.json (T, y: demeaned returns, as
the Stan User's Guide's stochastic-volatility model expects). Plain Python: no
third-party modules.
"""
import argparse
import csv
import json
import math
import os
import statistics


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("csv")
    parser.add_argument("outdir")
    parser.add_argument("--days", type=int, default=500, help="returns to keep (the last N)")
    args = parser.parse_args()
    with open(args.csv, newline="") as f:
        rows = list(csv.DictReader(f))
    if not rows or "DAX" not in rows[0]:
        raise SystemExit(f"{args.csv}: no DAX column; expected R's EuStockMarkets layout")
    closes = [float(r["DAX"]) for r in rows]
    times = [float(r["time"]) for r in rows]
    if args.days < 10 or args.days + 1 > len(closes):
        raise SystemExit(f"--days must lie in [10, {len(closes) - 1}]")
    closes, times = closes[-(args.days + 1):], times[-(args.days + 1):]
    returns = [100.0 * math.log(b / a) for a, b in zip(closes, closes[1:])]
    mean = statistics.fmean(returns)
    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "garch11.json"), "w") as f:
        json.dump({"T": len(returns), "y": returns, "sigma1": statistics.stdev(returns)}, f)
    with open(os.path.join(args.outdir, "stochastic_volatility.json"), "w") as f:
        json.dump({"T": len(returns), "y": [r - mean for r in returns]}, f)
    with open(os.path.join(args.outdir, "returns.json"), "w") as f:
        json.dump({"time": times[1:], "returns": returns}, f)
    print(f"{len(returns)} daily DAX log returns, {times[1]:.3f} to {times[-1]:.3f}: "
          f"mean {mean:.4f} %, sd {statistics.stdev(returns):.4f} %")


if __name__ == "__main__":
    main()
