#!/usr/bin/env python3
"""wall_stochastic_check.py MD_IPU... : runs tests/md/data/in.wall_stochastic with each model of
fix wall/reflect/stochastic and checks the gas of non-interacting atoms (4000 of them) against
the walls, which are at TW = 0.5 and move along x at U = 0.3.

Debian's LAMMPS lacks the fix (EXTRA-FIX), so the reference is kinetic theory: walls that emit
atoms with the flux-weighted Maxwellian of their temperature keep a gas that starts at TW in
equilibrium at TW in every component, and drag it towards their velocity.
- diffusive and ccl (accommodation 1): the y and z temperatures averaged over steps 2000-20000
  lie within 0.045 of TW, four standard deviations of one sample (TW sqrt(2/N) = 0.011), so a
  wrong emission law (a Gaussian normal velocity, a scale off by sqrt(2)) is seen; the mean x
  velocity over the second half lies within 0.05 of U (a wall velocity ignored gives 0);
- maxwell with accommodation 0 is specular: the kinetic energy stays to 1e-12 and the gas does
  not move along x.
"""
import os
import subprocess
import sys

here = os.path.dirname(os.path.abspath(__file__))
script = os.path.join(here, "data", "in.wall_stochastic")


def run(command, *variables):
    out = subprocess.run(command + ["-in", script] + list(variables), check=True,
                         capture_output=True, text=True).stdout
    rows, on = [], False
    for line in out.splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            on = True
            continue
        if on and words and words[0].isdigit():
            rows.append([float(w) for w in words])
        elif on and line.startswith("Loop"):
            on = False
    return rows


def mean(values):
    return sum(values) / len(values)


def main():
    command = sys.argv[1:]
    failures = []
    tw, u = 0.5, 0.3
    for model, walls in [
        ("diffusive", "ylo EDGE 0.5 0.3 0 0 yhi EDGE 0.5 0.3 0 0"),
        ("ccl", "ylo EDGE 0.5 0.3 0 0 1 1 1 yhi EDGE 0.5 0.3 0 0 1 1 1"),
    ]:
        rows = run(command, "-var", "model", model, "-var", "walls", walls)
        late = [r for r in rows if r[0] >= 2000]
        half = [r for r in rows if r[0] >= 10000]
        ty, tz, vx = mean([r[1] for r in late]), mean([r[2] for r in late]), mean([r[3] for r in half])
        print(f"{model}: T_y {ty:.4f} T_z {tz:.4f} (walls {tw}), <vx> {vx:.4f} (walls {u})")
        if abs(ty - tw) > 0.045 or abs(tz - tw) > 0.045:
            failures.append(f"{model}: the gas is not at the walls' temperature")
        if abs(vx - u) > 0.05:
            failures.append(f"{model}: the gas does not follow the walls' velocity")
    rows = run(command, "-var", "model", "maxwell", "-var", "t", "2.0", "-var", "walls",
               "ylo EDGE 0.5 0.3 0 0 0 yhi EDGE 0.5 0.3 0 0 0")
    ke = [r[4] for r in rows]
    drift = max(abs(k - ke[0]) for k in ke) / ke[0]
    vx = max(abs(r[3]) for r in rows)
    print(f"maxwell, accommodation 0: kinetic energy kept to {drift:.2e}, |<vx>| <= {vx:.2e}")
    if drift > 1e-12 or vx > 1e-12:
        failures.append("maxwell with no accommodation is not specular")
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
