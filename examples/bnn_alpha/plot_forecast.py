#!/usr/bin/env python3
"""Plots the held-out year of the bnn_alpha case study.

    plot_forecast.py PREFIX_predictions.csv OUT.png

Reads the predictions bnn_alpha --output PREFIX writes (time, actual, mean, alpha_lo,
alpha_hi, return_lo, return_hi; basis points) and draws the actual next-day DAX returns,
the posterior predictive mean with its credible band, and the predictive interval of the
return itself, with the sign hit rate in the title. Needs Debian's python3-matplotlib
(scripts/setup analysis).
"""
import csv
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = list(csv.DictReader(open(sys.argv[1])))
    if not rows:
        sys.exit(f"{sys.argv[1]}: no predictions")
    col = {k: [float(r[k]) for r in rows] for k in rows[0]}
    t, y, m = col["time"], col["actual"], col["mean"]
    signed = [(a, b) for a, b in zip(y, m) if a != 0 and b != 0]
    hits = sum((a > 0) == (b > 0) for a, b in signed) / max(len(signed), 1)
    inside = sum(lo <= a <= hi for a, lo, hi in zip(y, col["return_lo"], col["return_hi"]))

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7), sharex=True,
                                      gridspec_kw={"height_ratios": [2, 1]})
    top.fill_between(t, col["return_lo"], col["return_hi"], color="tab:blue", alpha=0.15,
                     label="predictive interval of the return")
    top.plot(t, y, ".", color="black", markersize=3, label="actual next-day return")
    top.plot(t, m, color="tab:red", linewidth=1, label="posterior predictive mean")
    top.set_ylabel("DAX log return (bp)")
    top.set_title(f"Bayesian NN alpha model, held-out year: sign hit rate {hits:.3f} "
                  f"({len(signed)} days), interval covers {inside / len(y):.3f}")
    top.legend(loc="lower left", fontsize=8)
    bottom.fill_between(t, col["alpha_lo"], col["alpha_hi"], color="tab:red", alpha=0.25,
                        label="credible interval of the predicted mean")
    bottom.plot(t, m, color="tab:red", linewidth=1)
    bottom.axhline(0, color="grey", linewidth=0.5)
    bottom.set_xlabel("year")
    bottom.set_ylabel("alpha (bp)")
    bottom.legend(loc="lower left", fontsize=8)
    fig.tight_layout()
    fig.savefig(sys.argv[2], dpi=120)
    print(f"wrote {sys.argv[2]}")


if __name__ == "__main__":
    main()
