#!/usr/bin/env python3
"""thermo_matches_lammps.py REFERENCE RELATIVE_TOLERANCE [STATS_TOLERANCE] -- COMMAND...

Runs COMMAND (md_ipu on an input) and passes when every thermo table it prints matches the
LAMMPS thermo tables in REFERENCE (LAMMPS's thermo tables from its screen output, each from its
Step header to its Loop time line, as make_reference.sh saves them): the
same column headers, the same steps, and every value within RELATIVE_TOLERANCE of LAMMPS's
(relative to the largest magnitude in its column, so that a column crossing zero is compared at
its own scale). Prints the largest difference per column. Where REFERENCE holds LAMMPS's
"Minimization stats" blocks, the run must print as many, with the same stopping criteria,
iteration and force evaluation counts, and every other number within STATS_TOLERANCE (by default
RELATIVE_TOLERANCE) of the largest on its line (a final force norm near zero is compared at the
initial one's scale).
"""
import re
import subprocess
import sys


def min_stats(text):
    """[(criterion, counts, numbers)] for each Minimization stats block."""
    out = []
    for block in text.split("Minimization stats:")[1:]:
        lines = block.strip().splitlines()
        criterion = lines[0].split("=", 1)[1].strip()
        numbers, counts = [], []
        # The energies are on the line after their label.
        text = "\n".join(lines[1:7]).replace("= \n", "= ")
        for line in text.splitlines():
            values = [float(v) for v in re.findall(r"-?[0-9.]+(?:e[-+]?[0-9]+)?", line.split("=")[-1])]
            if line.strip().startswith("Iterations"):
                counts = [int(v) for v in values]
            elif values:
                numbers.append(values)
        out.append((criterion, counts, numbers))
    return out


def tables(text):
    """[(header, {step: [values]})] for each thermo table in a LAMMPS-style output. A run under
    thermo_style multi (a "---- Step N ----- CPU = ..." line, then "Name = value" lines) is read
    as a table whose columns are Step and the names (CPU left out)."""
    out, header, rows = [], None, None
    record = None  # the multi block being read: [(name, value)]

    def close_record():
        nonlocal header, rows, record
        if record:
            names = [name for name, _ in record]
            if header != names:
                header, rows = names, {}
                out.append((header, rows))
            rows[int(record[0][1])] = [float(v) for _, v in record[1:]]
        record = None

    for line in text.splitlines():
        words = line.split()
        multi = re.match(r"^-+ Step +(\d+) -+ CPU", line)
        if multi:
            close_record()
            record = [("Step", multi.group(1))]
            continue
        if record is not None:
            pairs = re.findall(r"(\S+) += +(\S+)", line)
            if pairs:
                record.extend(pairs)
                continue
            close_record()
        if words[:1] == ["Step"]:
            header, rows = words, {}
            out.append((header, rows))
        elif line.startswith("Loop time"):
            header = None
        elif header and len(words) == len(header) and words[0].isdigit():
            rows[int(words[0])] = [float(w) for w in words[1:]]
    close_record()
    return out


def main():
    reference, tolerance = sys.argv[1], float(sys.argv[2])
    dashes = sys.argv.index("--")
    stats_tolerance = float(sys.argv[3]) if dashes > 3 else tolerance
    command = sys.argv[dashes + 1:]
    with open(reference) as f:
        theirs = tables(f.read())
    run = subprocess.run(command, capture_output=True, text=True)
    if run.returncode != 0:
        print("command failed:", " ".join(command), run.stdout[-2000:], run.stderr[-2000:])
        return 1
    ours = tables(run.stdout)
    with open(reference) as f:
        stats_theirs = min_stats(f.read())
    stats_ours = min_stats(run.stdout)
    if len(stats_ours) != len(stats_theirs):
        print(f"{len(stats_ours)} minimizations, LAMMPS printed {len(stats_theirs)}")
        return 1
    for k, (a, b) in enumerate(zip(stats_ours, stats_theirs)):
        if a[0] != b[0] or a[1] != b[1] or len(a[2]) != len(b[2]):
            print(f"minimization {k + 1}: {a[0]}, iterations and evaluations {a[1]};"
                  f" LAMMPS: {b[0]}, {b[1]}")
            return 1
        # Each line's numbers (initial and final, ...) at the scale of the line's largest.
        worst = 0.0
        for x, y in zip(a[2], b[2]):
            if len(x) != len(y):
                print(f"minimization {k + 1}: {x} against LAMMPS's {y}")
                return 1
            scale = max(abs(v) for v in y) or 1.0
            worst = max([worst] + [abs(p - q) / scale for p, q in zip(x, y)])
        print(f"minimization {k + 1}: {a[0]}, {a[1][0]} iterations, {a[1][1]} evaluations;"
              f" largest relative difference of its statistics {worst:.2e}")
        if worst > stats_tolerance:
            print("  FAIL")
            return 1
    if len(ours) != len(theirs) or not theirs:
        print(f"{len(ours)} thermo tables, LAMMPS printed {len(theirs)}")
        return 1
    failed = False
    for (h_ours, r_ours), (h_theirs, r_theirs) in zip(ours, theirs):
        if h_ours != h_theirs:
            print("columns differ:", " ".join(h_ours), "| LAMMPS:", " ".join(h_theirs))
            return 1
        if sorted(r_ours) != sorted(r_theirs):
            print("steps differ:", sorted(r_ours), "| LAMMPS:", sorted(r_theirs))
            return 1
        for c, name in enumerate(h_theirs[1:]):
            scale = max(abs(r[c]) for r in r_theirs.values()) or 1.0
            worst = max(abs(r_ours[s][c] - r_theirs[s][c]) / scale for s in r_theirs)
            ok = worst <= tolerance
            failed = failed or not ok
            print(f"{name:>12}: largest difference {worst:.2e} of the column's scale"
                  f"{'' if ok else f'  > {tolerance:g}  FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
