#!/usr/bin/env python3
"""Writes a LAMMPS data file (atom_style atomic) of a periodic box of water molecules.

The molecules sit on a simple cubic grid at liquid density (1.0 g/cm^3 by default), each with
the TIP3P/SPC-like rigid geometry (O-H 0.9572 Angstrom, H-O-H 104.52 degrees) and a random
orientation, so that a short NVT run melts the grid into a liquid. Types: 1 = O, 2 = H
(the element order of DeePMD-kit's water models).

usage: make_water_box.py MOLECULES_PER_EDGE OUTPUT.data [--density G_PER_CM3] [--seed N]
"""
import argparse
import math
import random

AVOGADRO = 6.02214076e23
MASS_O, MASS_H = 15.9994, 1.008
BOND, ANGLE = 0.9572, math.radians(104.52)


def random_rotation(rng):
    # A uniformly random unit quaternion (Shoemake 1992), as a rotation matrix.
    u1, u2, u3 = rng.random(), rng.random(), rng.random()
    a, b = math.sqrt(1 - u1), math.sqrt(u1)
    q = (a * math.sin(2 * math.pi * u2), a * math.cos(2 * math.pi * u2),
         b * math.sin(2 * math.pi * u3), b * math.cos(2 * math.pi * u3))
    x, y, z, w = q
    return [[1 - 2 * (y * y + z * z), 2 * (x * y - z * w), 2 * (x * z + y * w)],
            [2 * (x * y + z * w), 1 - 2 * (x * x + z * z), 2 * (y * z - x * w)],
            [2 * (x * z - y * w), 2 * (y * z + x * w), 1 - 2 * (x * x + y * y)]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("per_edge", type=int)
    parser.add_argument("output")
    parser.add_argument("--density", type=float, default=1.0)
    parser.add_argument("--seed", type=int, default=2026)
    args = parser.parse_args()
    n = args.per_edge
    molecules = n ** 3
    grams = molecules * (MASS_O + 2 * MASS_H) / AVOGADRO
    edge = (grams / args.density * 1e24) ** (1.0 / 3.0)  # cm^3 -> Angstrom^3
    spacing = edge / n
    rng = random.Random(args.seed)
    # The molecule in its own frame: O at the origin, the H atoms in the xy plane.
    half = ANGLE / 2
    local = [(0.0, 0.0, 0.0),
             (BOND * math.cos(half), BOND * math.sin(half), 0.0),
             (BOND * math.cos(half), -BOND * math.sin(half), 0.0)]
    atoms = []
    for i in range(n):
        for j in range(n):
            for k in range(n):
                centre = ((i + 0.5) * spacing, (j + 0.5) * spacing, (k + 0.5) * spacing)
                r = random_rotation(rng)
                for index, p in enumerate(local):
                    q = [sum(r[a][b] * p[b] for b in range(3)) + centre[a] for a in range(3)]
                    q = [c % edge for c in q]
                    atoms.append((1 if index == 0 else 2, q))
    with open(args.output, "w") as out:
        out.write(f"# {molecules} water molecules at {args.density} g/cm^3, made by "
                  f"make_water_box.py {n} (seed {args.seed})\n\n")
        out.write(f"{len(atoms)} atoms\n2 atom types\n\n")
        for axis in "xyz":
            out.write(f"0.0 {edge:.10f} {axis}lo {axis}hi\n")
        out.write(f"\nMasses\n\n1 {MASS_O}\n2 {MASS_H}\n\nAtoms # atomic\n\n")
        for number, (atom_type, q) in enumerate(atoms, start=1):
            out.write(f"{number} {atom_type} {q[0]:.10f} {q[1]:.10f} {q[2]:.10f}\n")


if __name__ == "__main__":
    main()
