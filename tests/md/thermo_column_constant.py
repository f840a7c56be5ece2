#!/usr/bin/env python3
"""thermo_column_constant.py COLUMN TOLERANCE SKIP -- COMMAND...

Runs COMMAND (md_ipu on an input) and passes when, in every thermo table it prints, COLUMN stays
within TOLERANCE (absolute) of its value at the table's row SKIP (0 for the first row; later for
a start-up transient): a conserved quantity checked as conserved. Prints each table's largest
departure.
"""
import subprocess
import sys

column, tolerance, skip = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
assert sys.argv[4] == "--", __doc__
out = subprocess.run(sys.argv[5:], check=True, capture_output=True, text=True).stdout
tables, header = [], None
for line in out.splitlines():
    words = line.split()
    if words[:1] == ["Step"]:
        header = words
        tables.append([])
    elif header and words and len(words) == len(header) and words[0].isdigit():
        tables[-1].append(float(words[header.index(column)]))
    elif line.startswith("Loop time"):
        header = None
if not tables or any(len(t) <= skip + 1 for t in tables):
    sys.exit(f"expected thermo tables with {column} and more than {skip + 1} rows each")
worst = 0.0
for k, values in enumerate(tables):
    departure = max(abs(v - values[skip]) for v in values[skip:])
    print(f"table {k + 1}: {column} = {values[skip]:.12g} from row {skip}, "
          f"departs by at most {departure:.3g} (tolerance {tolerance:g})")
    worst = max(worst, departure)
sys.exit(0 if worst <= tolerance else 1)
