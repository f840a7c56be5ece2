#!/usr/bin/env python3
"""langevin_bias_check.py MD_IPU...: runs tests/md/data/in.langevin_bias (864 atoms flowing
along x at 0.7 lattice spacings per time, 1.18; fix langevin at T = 1.5 with fix_modify temp of
temp/partial 0 1 1) and checks it as LAMMPS's biased Langevin thermostat (FixLangevin's Tp_BIAS)
behaves: the mean x velocity stays where it starts to 1e-12 (pair forces keep the momentum; a
thermostat acting on x would halve it within a damping time), and the y-z temperature averaged
over steps 1000-4000 is within 0.1 of 1.5 (one sample's standard deviation is 1.5/sqrt(864) =
0.05; the average of 31 correlated samples is tighter).
"""
import os
import subprocess
import sys

script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data", "in.langevin_bias")
out = subprocess.run(sys.argv[1:] + ["-in", script], check=True, capture_output=True,
                     text=True).stdout
rows, on = [], False
for line in out.splitlines():
    words = line.split()
    if words[:1] == ["Step"]:
        on = True
    elif on and words and words[0].isdigit():
        rows.append([float(w) for w in words])
    elif line.startswith("Loop"):
        on = False
drift = max(abs(r[2] - rows[0][2]) for r in rows)
late = [r[1] for r in rows if r[0] >= 1000]
temperature = sum(late) / len(late)
print(f"<vx> starts at {rows[0][2]:.15g}, moves by at most {drift:.2e}; "
      f"y-z temperature {temperature:.4f} (target 1.5)")
failures = []
if drift > 1e-12:
    failures.append("the flow along x is thermostatted")
if abs(temperature - 1.5) > 0.1:
    failures.append("y and z are not at the target temperature")
for f in failures:
    print("FAIL:", f)
sys.exit(1 if failures else 0)
