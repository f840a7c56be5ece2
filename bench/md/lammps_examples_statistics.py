#!/usr/bin/env python3
"""bench/md/lammps_examples_statistics.py [--md-ipu PATH] [--replicas N] [--jobs J] [INPUT...]

LAMMPS's example inputs that thermostat with fix langevin cannot match LAMMPS digit for digit:
LAMMPS draws its random forces from one stream per processor, md_ipu from one per atom (so that
its results do not depend on the tiles and ranks). What must match is the statistics. This
script runs each input N times (default 8) with md_ipu and N times with Debian's lmp, each
replica with its own fix langevin seed (the only change made to the input; every other seed
stays, so the initial velocities and deposited atoms are LAMMPS's), and compares, for every
thermo column of the input's last run (its production run), two statistics of each replica:
the time average over that run's printed rows after its first, and the value at its last row.

For each statistic it prints the mean and standard error over the replicas on both sides, the
Welch z score of their difference, and the bias the comparison can detect: 4 standard errors of
the difference, relative to LAMMPS's mean. A |z| above 4 is marked FAIL (with 8 replicas a side
a Student t of 14 degrees of freedom passes 4 by chance with probability 0.0013 per statistic).
A replica that stops with an error (an atom of deposit's melting substrate can evaporate through
the fixed top face, on either program) is listed and left out of the statistics.

INPUT names inputs under /usr/share/lammps/examples (default: the fix langevin inputs that
Debian's lmp can run and that end within minutes). Each replica runs in a copy of its folder,
one process with one thread, J at a time (default 2).
"""
import argparse
import concurrent.futures
import math
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

EXAMPLES = "/usr/share/lammps/examples"
DEFAULT_INPUTS = [
    "DIFFUSE/in.msd.2d", "DIFFUSE/in.vacf.2d", "VISCOSITY/in.einstein.2d", "VISCOSITY/in.gk.2d",
    "VISCOSITY/in.nemd.2d", "VISCOSITY/in.wall.2d", "deposit/in.deposit.atom",
]
LANGEVIN = re.compile(r"^(\s*fix\s+\S+\s+\S+\s+langevin\s+\S+\s+\S+\s+\S+\s+)(\d+)(.*)$")
Z_LIMIT = 4.0


def replica_input(text, replica):
    """The input with every fix langevin seed replaced by one of this replica's."""
    lines = []
    for k, line in enumerate(text.splitlines()):
        match = LANGEVIN.match(line)
        if match:
            line = f"{match.group(1)}{1000 + 7919 * replica + 104729 * k}{match.group(3)}"
        lines.append(line)
    return "\n".join(lines) + "\n"


def last_run_thermo(output):
    """The header and numeric rows of the last thermo table in a LAMMPS-style output."""
    header, rows, table = None, [], None
    for line in output.splitlines():
        words = line.split()
        if words[:1] == ["Step"]:
            header, table = words, []
            rows = table
        elif line.startswith("Loop time"):
            table = None
        elif table is not None and words and words[0].isdigit() and len(words) == len(header):
            table.append([float(w) for w in words])
    return header, rows


def run_replica(program, name, replica, workdir):
    folder = os.path.join(workdir, f"{program[0]}_{name.replace('/', '_')}_{replica}")
    shutil.copytree(os.path.join(EXAMPLES, os.path.dirname(name)), folder)
    script = os.path.basename(name)
    with open(os.path.join(folder, script)) as f:
        text = f.read()
    with open(os.path.join(folder, "in.replica"), "w") as f:
        f.write(replica_input(text, replica))
    command = program[1] + ["-in", "in.replica", "-log", "none"]
    done = subprocess.run(command, cwd=folder, capture_output=True, text=True)
    shutil.rmtree(folder, ignore_errors=True)
    if done.returncode != 0:
        errors = [l for l in (done.stdout + done.stderr).splitlines() if l.startswith("ERROR")]
        return None, errors[0] if errors else f"exit {done.returncode}"
    header, rows = last_run_thermo(done.stdout)
    if len(rows) < 2:
        return None, "no thermo rows in the last run"
    return header, rows


def replica_statistics(header, rows):
    """{(column, 'time average' | 'last row'): value} for one replica's last run."""
    values = {}
    for j, column in enumerate(header[1:], start=1):
        later = [r[j] for r in rows[1:]]
        values[(column, "time average")] = sum(later) / len(later)
        values[(column, "last row")] = rows[-1][j]
    return values


def mean_and_error(samples):
    mean = statistics.fmean(samples)
    error = statistics.stdev(samples) / math.sqrt(len(samples)) if len(samples) > 1 else 0.0
    return mean, error


def compare(name, ours, theirs):
    """Markdown rows for one input and the number of statistics outside Z_LIMIT."""
    rows, failures = [], 0
    for key in theirs[0]:
        if key not in ours[0]:
            continue
        a_mean, a_error = mean_and_error([r[key] for r in ours])
        b_mean, b_error = mean_and_error([r[key] for r in theirs])
        spread = math.hypot(a_error, b_error)
        if spread == 0:
            z = 0.0 if a_mean == b_mean else math.inf
        else:
            z = (a_mean - b_mean) / spread
        detectable = (f"{Z_LIMIT * spread / abs(b_mean):.2g}" if b_mean != 0 else
                      f"{Z_LIMIT * spread:.2g} (absolute)")
        verdict = "FAIL" if abs(z) > Z_LIMIT else ""
        failures += verdict == "FAIL"
        rows.append(f"| `{name}` | {key[0]} | {key[1]} | {a_mean:.6g} ± {a_error:.2g} | "
                    f"{b_mean:.6g} ± {b_error:.2g} | {z:+.2f} {verdict} | {detectable} |")
    return rows, failures


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[2])
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    parser.add_argument("--md-ipu", default=os.path.join(root, "build/apps/md/md_ipu"))
    parser.add_argument("--replicas", type=int, default=8)
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("inputs", nargs="*", default=DEFAULT_INPUTS)
    options = parser.parse_args()
    if shutil.which("lmp") is None or not os.path.isdir(EXAMPLES):
        sys.exit("lmp or the LAMMPS examples not found: run scripts/setup bench")
    if options.replicas < 2:
        sys.exit("--replicas must be at least 2: a standard error needs two replicas")
    programs = [("md_ipu", [os.path.abspath(options.md_ipu), "--threads", "1"]),
                ("lmp", ["lmp"])]
    work = tempfile.mkdtemp()
    try:
        with concurrent.futures.ProcessPoolExecutor(options.jobs) as pool:
            jobs = {(p[0], name, r): pool.submit(run_replica, p, name, r, work)
                    for name in options.inputs for r in range(options.replicas)
                    for p in programs}
            print("| input | column | statistic | md_ipu | lmp | z | detectable bias |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
            total, notes = 0, []
            for name in options.inputs:
                per_side, stopped = {}, []
                for program, _ in programs:
                    results = [jobs[(program, name, r)].result() for r in range(options.replicas)]
                    per_side[program] = [replica_statistics(*r) for r in results if r[0]]
                    stopped += [f"{program} replica {r}: {result[1]}"
                                for r, result in enumerate(results) if result[0] is None]
                if min(len(v) for v in per_side.values()) < 2:
                    print(f"| `{name}` | - | fewer than 2 replicas ran to the end | | | | |")
                    total += 1
                else:
                    rows, failures = compare(name, per_side["md_ipu"], per_side["lmp"])
                    print("\n".join(rows), flush=True)
                    total += failures
                notes += [f"`{name}`, {s}" for s in stopped]
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if notes:
        print("\nReplicas that stopped before their end (left out of the statistics):")
        print("\n".join(f"- {n}" for n in notes))
    print(f"\n{len(options.inputs)} inputs, {options.replicas} replicas a side: "
          f"{total} statistics with |z| > {Z_LIMIT:g}.")
    return 1 if total else 0


if __name__ == "__main__":
    sys.exit(main())
