#!/usr/bin/env python3
"""SPC/E water under SHAKE at 300 K and 1 atm (tests/md/data/in.spce_statistics): md_ipu's mean
density and O-O radial distribution function against LAMMPS's, within the Monte-Carlo error of
both, estimated from block averages.

  spce_statistics.py summarize REFERENCE PREFIX...
      Writes REFERENCE from runs of in.spce_statistics (by LAMMPS, make_reference.sh): the
      PREFIX-density.dat and PREFIX-rdf.dat files of independent runs, pooled block by block.
  spce_statistics.py check REFERENCE STEPS -- COMMAND...
      Runs COMMAND (md_ipu and its options) on in.spce_statistics for STEPS production steps in
      a scratch folder and passes when its mean density and every g_OO(r) bin agree with
      REFERENCE: Welch's t statistic of each difference (the two means' standard errors from
      their block means) within the two-sided quantile of Student's t at a false-alarm rate of
      1e-3 for each of the density, the height of g_OO's first peak and the O-O coordination
      number at its first minimum (LAMMPS's peak and minimum bins), and 1e-3 shared (Bonferroni)
      over every bin where g_OO > 0.05.
  spce_statistics.py verdict REFERENCE PREFIX
      The same check of a run already made (its PREFIX-density.dat and PREFIX-rdf.dat).

A block is 10 ps (5000 steps of 2 fs): the script prints the density's integrated
autocorrelation time from its 1 ps averages, which must stay well below a block for the block
means to be independent (about 1 ps here, set by the barostat's 1 ps damping).
"""
import math
import os
import subprocess
import sys
import tempfile

BLOCK_STEPS = 5000  # the input's ${block}
DENSITY_EVERY = 500  # the input's density averages, 1 ps each
FALSE_ALARM = 1e-3
RDF_FLOOR = 0.05  # bins where g_OO is below this (r < 2.4 A) are zero in both and left out


def read_density(path):
    """[(step, density)] from fix ave/time's scalar file."""
    rows = []
    with open(path) as f:
        for line in f:
            if not line.startswith("#") and line.strip():
                step, value = line.split()[:2]
                rows.append((int(step), float(value)))
    return rows


def read_rdf(path):
    """{step: ([r], [g_OO], [coordination])} from fix ave/time's vector file of compute rdf (Row,
    r, g, coord)."""
    blocks, lines = {}, [line for line in open(path) if not line.startswith("#") and line.strip()]
    i = 0
    while i < len(lines):
        step, count = (int(w) for w in lines[i].split()[:2])
        rows = [lines[i + 1 + k].split() for k in range(count)]
        blocks[step] = tuple([float(r[c]) for r in rows] for c in (1, 2, 3))
        i += 1 + count
    return blocks


def density_blocks(rows):
    """Means of the 1 ps averages over each whole block."""
    per_block = BLOCK_STEPS // DENSITY_EVERY
    values = [v for _, v in rows]
    return [sum(values[k:k + per_block]) / per_block
            for k in range(0, len(values) - per_block + 1, per_block)]


def autocorrelation_time(values):
    """Integrated autocorrelation time in samples (Sokal's window: the sum stops at the first lag
    M >= 5 tau)."""
    n, mean = len(values), sum(values) / len(values)
    dev = [v - mean for v in values]
    c0 = sum(d * d for d in dev) / n
    tau = 1.0
    for lag in range(1, n // 2):
        tau += 2 * sum(dev[k] * dev[k + lag] for k in range(n - lag)) / (n * c0)
        if lag >= 5 * tau:
            break
    return tau


def mean_and_error(values):
    n = len(values)
    mean = sum(values) / n
    variance = sum((v - mean) ** 2 for v in values) / (n - 1)
    return mean, math.sqrt(variance / n), n


def student_t_two_sided_quantile(alpha, dof):
    """|t| exceeded with probability alpha by Student's t with dof degrees of freedom: the
    density integrated by Simpson's rule, the quantile by bisection."""
    log_norm = math.lgamma((dof + 1) / 2) - math.lgamma(dof / 2) - 0.5 * math.log(dof * math.pi)

    def pdf(x):
        return math.exp(log_norm - (dof + 1) / 2 * math.log1p(x * x / dof))

    def tail(t):  # P(|T| > t)
        steps = 2000
        h = t / steps
        s = pdf(0) + pdf(t) + sum((4 if k % 2 else 2) * pdf(k * h) for k in range(1, steps))
        return 1 - 2 * s * h / 3

    lo, hi = 0.0, 1000.0
    for _ in range(100):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if tail(mid) > alpha else (lo, mid)
    return hi


def welch(a, b):
    """(t, dof) for the difference of two means given as (mean, standard error, count)."""
    va, vb = a[1] ** 2, b[1] ** 2
    t = (a[0] - b[0]) / math.sqrt(va + vb)
    dof = (va + vb) ** 2 / (va * va / (a[2] - 1) + vb * vb / (b[2] - 1))
    return t, dof


def runs_statistics(prefixes):
    """Pooled block means of density, of each g_OO bin and of the coordination number at each
    bin over the runs PREFIX."""
    density, rdf_blocks, coord_blocks, tau, radii = [], [], [], [], None
    for prefix in prefixes:
        rows = read_density(prefix + "-density.dat")
        density += density_blocks(rows)
        tau.append(autocorrelation_time([v for _, v in rows]) * DENSITY_EVERY * 2e-3)
        for radii, g, coord in read_rdf(prefix + "-rdf.dat").values():
            rdf_blocks.append(g)
            coord_blocks.append(coord)
    bins = [mean_and_error([g[k] for g in rdf_blocks]) for k in range(len(radii))]
    coords = [mean_and_error([c[k] for c in coord_blocks]) for k in range(len(radii))]
    return mean_and_error(density), radii, bins, coords, tau


def summarize(reference, prefixes):
    density, radii, bins, coords, tau = runs_statistics(prefixes)
    with open(reference, "w") as out:
        out.write("# LAMMPS on tests/md/data/in.spce_statistics (make_reference.sh), %d runs of "
                  "10 ps blocks; density autocorrelation times %s ps\n"
                  % (len(prefixes), " ".join("%.2f" % t for t in tau)))
        out.write("density %.10g %.10g %d\n" % density)
        for r, (g, se, n), (c, c_se, _) in zip(radii, bins, coords):
            out.write("g_OO %.6g %.10g %.10g %d %.10g %.10g\n" % (r, g, se, n, c, c_se))


def read_reference(path):
    density, radii, bins, coords = None, [], [], []
    for line in open(path):
        words = line.split()
        if words[:1] == ["density"]:
            density = (float(words[1]), float(words[2]), int(words[3]))
        elif words[:1] == ["g_OO"]:
            radii.append(float(words[1]))
            bins.append((float(words[2]), float(words[3]), int(words[4])))
            coords.append((float(words[5]), float(words[6]), int(words[4])))
    return density, radii, bins, coords


def compare(name, ours, ref, alpha, unit=""):
    """Prints the comparison of two means; True when Welch's t is within its limit."""
    t, dof = welch(ours, ref)
    limit = student_t_two_sided_quantile(alpha, dof)
    print("%s %.5f +- %.5f%s (%d blocks), LAMMPS %.5f +- %.5f (%d blocks): t = %.2f, limit %.2f"
          % (name, ours[0], ours[1], unit, ours[2], ref[0], ref[1], ref[2], t, limit))
    return abs(t) <= limit


def verdict(reference, prefix):
    """0 when the run PREFIX agrees with REFERENCE (see the module's documentation), else 1."""
    ref_density, ref_radii, ref_bins, ref_coords = read_reference(reference)
    density, radii, bins, coords, tau = runs_statistics([prefix])
    if len(radii) != len(ref_radii) or max(abs(a - b) for a, b in zip(radii, ref_radii)) > 1e-6:
        print("FAIL: the g(r) bins differ from the reference's")
        return 1
    failures = []
    print("density autocorrelation time %.2f ps" % tau[0])
    if tau[0] * 5 > BLOCK_STEPS * 2e-3:
        failures.append("the density's autocorrelation time is not small against a 10 ps block")
    if not compare("density", density, ref_density, FALSE_ALARM, " g/cm^3"):
        failures.append("the mean density differs from LAMMPS's")
    tested = [k for k, ref in enumerate(ref_bins) if ref[0] > RDF_FLOOR]
    peak = max(tested, key=lambda k: ref_bins[k][0])
    minimum = min((k for k in tested if k > peak and radii[k] < 4.0), key=lambda k: ref_bins[k][0])
    if not compare("g_OO first peak (r = %.2f A)" % radii[peak], bins[peak], ref_bins[peak],
                   FALSE_ALARM):
        failures.append("the height of g_OO's first peak differs from LAMMPS's")
    if not compare("O-O coordination number to the first minimum (r = %.2f A)" % radii[minimum],
                   coords[minimum], ref_coords[minimum], FALSE_ALARM):
        failures.append("the first shell's coordination number differs from LAMMPS's")
    worst = None
    for k in tested:
        t, dof = welch(bins[k], ref_bins[k])
        limit = student_t_two_sided_quantile(FALSE_ALARM / len(tested), dof)
        if worst is None or abs(t) / limit > worst[0]:
            worst = (abs(t) / limit, radii[k], t, limit)
        if abs(t) > limit:
            failures.append("g_OO at r = %.2f A: %.4f +- %.4f, LAMMPS %.4f +- %.4f (t = %.2f)"
                            % (radii[k], bins[k][0], bins[k][1], ref_bins[k][0],
                               ref_bins[k][1], t))
    print("g_OO over its %d bins above %.2f: largest |t| / limit %.2f (r = %.2f A, t = %.2f, "
          "limit %.2f)" % ((len(tested), RDF_FLOOR) + worst))
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


def check(reference, steps, command):
    script = os.path.join(os.path.dirname(os.path.abspath(__file__)), "data",
                          "in.spce_statistics")
    data = os.path.join(os.path.dirname(script), "spce196.data")
    with tempfile.TemporaryDirectory() as work:
        subprocess.run(command + ["-in", script, "-var", "data", data, "-var", "steps",
                                  str(steps), "-var", "prefix", "run"],
                       cwd=work, check=True, stdout=subprocess.DEVNULL)
        return verdict(reference, os.path.join(work, "run"))


if __name__ == "__main__":
    args = sys.argv[1:]
    if args[:1] == ["summarize"] and len(args) >= 3:
        summarize(args[1], args[2:])
    elif args[:1] == ["check"] and len(args) >= 5 and args[3] == "--":
        sys.exit(check(args[1], int(args[2]), args[4:]))
    elif args[:1] == ["verdict"] and len(args) == 3:
        sys.exit(verdict(args[1], args[2]))
    else:
        sys.exit(__doc__)
