#!/usr/bin/env python3
"""Writes groups.json: synthetic data for mcmc_hierarchical, drawn from the model itself.

J = 60 groups of 10 observations, x_ij uniform on (-1, 1), and
  (a_j, b_j) ~ N(mu, diag(tau) Omega diag(tau)),  y_ij ~ N(a_j + b_j x_ij, sigma)
with mu = (1.0, 0.5), tau = (0.5, 0.3), Omega's correlation rho = 0.4, sigma = 0.7
(Python's random.Random(2026), stdlib only). The true values go into the file as "truth".
"""
import json
import math
import random

rng = random.Random(2026)
J, n = 60, 10
mu, tau, rho, sigma = (1.0, 0.5), (0.5, 0.3), 0.4, 0.7
group, x, y = [], [], []
for j in range(J):
    z1, z2 = rng.gauss(0, 1), rng.gauss(0, 1)
    a = mu[0] + tau[0] * z1
    b = mu[1] + tau[1] * (rho * z1 + math.sqrt(1 - rho * rho) * z2)
    for _ in range(n):
        xi = round(rng.uniform(-1, 1), 3)
        group.append(j + 1)
        x.append(xi)
        y.append(round(a + b * xi + rng.gauss(0, sigma), 4))
data = {"N": J * n, "J": J, "group": group, "x": x, "y": y,
        "truth": {"mu[1]": mu[0], "mu[2]": mu[1], "tau[1]": tau[0], "tau[2]": tau[1],
                  "rho": rho, "sigma": sigma}}
with open("groups.json", "w") as f:
    json.dump(data, f)
