#!/usr/bin/env python3
"""Writes lj.table, the Lennard-Jones tables that in.table reads (LAMMPS's pair table format).

Sections (energy E = 4 eps [(s/r)^12 - (s/r)^6], force -dE/dr):
  LJ_R    eps 1, sigma 1:    N 300 R 0.8 2.5 (even in r; every style splines from it)
  LJ_RSQ  eps 1, sigma 1:    N 400 RSQ 0.8 2.5 (even in r^2: `table linear 400` uses it as is)
  LJ_FILE eps 1, sigma 1:    200 distances of the file's own, denser at short range, FPRIME
  LJ_B    eps 0.8, sigma 1.1: N 250 R 0.85 2.75
Run: python3 make_lj_table.py > lj.table
"""
import math


def lj(r, eps, sigma):
    sr6 = (sigma / r) ** 6
    return 4 * eps * (sr6 * sr6 - sr6), 24 * eps * (2 * sr6 * sr6 - sr6) / r


def dlj(r, eps, sigma):  # dF/dr
    sr6 = (sigma / r) ** 6
    return -24 * eps * (26 * sr6 * sr6 - 7 * sr6) / (r * r)


def section(name, header, rs, eps, sigma):
    print(name)
    print(header)
    print()
    for i, r in enumerate(rs):
        e, f = lj(r, eps, sigma)
        print(f"{i + 1} {r:.12g} {e:.12g} {f:.12g}")
    print()


print("# Lennard-Jones tables for tests/md/data/in.table (written by make_lj_table.py)")
print()
n = 300
section("LJ_R", f"N {n} R 0.8 2.5", [0.8 + 1.7 * i / (n - 1) for i in range(n)], 1.0, 1.0)
n = 400
section("LJ_RSQ", f"N {n} RSQ 0.8 2.5",
        [math.sqrt(0.64 + (6.25 - 0.64) * i / (n - 1)) for i in range(n)], 1.0, 1.0)
n = 200
rs = [0.8 + 1.7 * (i / (n - 1)) ** 1.5 for i in range(n)]
section("LJ_FILE", f"N {n} FPRIME {dlj(rs[0], 1, 1):.12g} {dlj(rs[-1], 1, 1):.12g}", rs, 1.0, 1.0)
n = 250
section("LJ_B", f"N {n} R 0.85 2.75", [0.85 + 1.9 * i / (n - 1) for i in range(n)], 0.8, 1.1)
