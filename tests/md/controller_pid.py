#!/usr/bin/env python3
"""controller_pid.py -- MD_IPU...: runs md_ipu on tests/md/data/in.controller and checks its two
fix controllers against LAMMPS's FixController::end_of_step, worked from the printed thermo: at
each sample n (every NEVERY steps of the second run), with e_n = PVAR - SETPOINT, S_n = e_2 + ...
+ e_n and D_n = e_n - e_(n-1) (both 0 at the first sample) and tau = NEVERY * dt,
  f_ID[1] = -KP ALPHA tau e_n, f_ID[2] = -KI ALPHA tau^2 S_n, f_ID[3] = -KD ALPHA D_n,
  CVAR_n = CVAR_(n-1) + f_ID[1] + f_ID[2] + f_ID[3].
Passes when every relation holds to 1e-9 of its scale (the thermo prints 15 digits)."""
import subprocess
import sys

DT = 0.005
# (column of the process value, of the control variable, first term column, NEVERY, ALPHA,
#  KP, KI, KD, SETPOINT), as in.controller defines fixes 10 and 11.
CONTROLLERS = {
    "10": ("Pzz", "v_zhi", "f_10[1]", 10, -0.05, 50.0, 2.0, 0.0, 1.5),
    "11": ("Pzz", "v_dummy", "f_11[1]", 10, 0.1, 1.0, 0.5, 3.0, 1.0),
}


def main():
    command = sys.argv[sys.argv.index("--") + 1:]
    out = subprocess.run(command, capture_output=True, text=True)
    if out.returncode != 0:
        print(out.stdout, out.stderr)
        return 1
    tables, header = [], None
    for line in out.stdout.splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            header = words
            tables.append([])
        elif header and words and words[0].isdigit() and len(words) == len(header):
            tables[-1].append(dict(zip(header, map(float, words))))
        elif line.startswith("Loop time"):
            header = None
    rows = tables[-1]
    previous = tables[-2][-1]  # the control variables when the controllers start
    failures = 0
    for name, (pv, cv, term, every, alpha, kp, ki, kd, setpoint) in CONTROLLERS.items():
        tau = every * DT
        control, total, last, first = previous[cv], 0.0, 0.0, True
        checked = 0
        for row in rows[1:]:  # the first row is the run's setup, before any sample
            if int(row["Step"]) % every:
                continue
            e = row[pv] - setpoint
            d = 0.0 if first else e - last
            if not first:
                total += e
            first, last = False, e
            expected = [-kp * alpha * tau * e, -ki * alpha * tau * tau * total, -kd * alpha * d]
            control += sum(expected)
            got = [row[f"f_{name}[{k}]"] for k in (1, 2, 3)]
            for k, (x, y) in enumerate(zip(expected, got)):
                if abs(x - y) > 1e-9 * max(1.0, abs(x)):
                    print(f"step {int(row['Step'])}: f_{name}[{k + 1}] = {y}, expected {x}")
                    failures += 1
            if abs(control - row[cv]) > 1e-9 * max(1.0, abs(control)):
                print(f"step {int(row['Step'])}: {cv} = {row[cv]}, expected {control}")
                failures += 1
            control = row[cv]  # go on from the printed value (15 digits)
            checked += 1
        print(f"fix {name}: {checked} samples checked")
        if checked < 5:
            failures += 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
