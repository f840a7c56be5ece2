#!/usr/bin/env python3
"""Before/after table of comm_bench's case (b), the all-reduce across 2 MPI ranks against
plain MPI_Allreduce on the same buffer in the same run, for two builds run back to back.

Each round runs the "before" binary, then the "after" one (mpirun -np 2, repetitions per
case as given); a case's figure in a round is the median of its repetitions, and the
table gives, per size, the median over the rounds of each time and of each run's ratio
(ours / MPI_Allreduce of the same run), in wall and in CPU time, with the load average
(uptime) seen before every run. The two cores may be shared with other jobs: repeat
when the load is high.

  bench/comm/ranks_before_after.py build-comm/bench/comm/comm_bench_before \\
      build-comm/bench/comm/comm_bench --rounds 5 --repetitions 5 [--filter REGEX]
"""
import argparse
import json
import os
import statistics
import subprocess
import tempfile


def run(binary, repetitions, filter_regex):
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as f:
        out = f.name
    cmd = ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", "2", binary,
           f"--benchmark_repetitions={repetitions}", "--benchmark_report_aggregates_only=true",
           f"--benchmark_out={out}", "--benchmark_out_format=json"]
    if filter_regex:
        cmd.append(f"--benchmark_filter={filter_regex}")
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    runs = json.load(open(out))["benchmarks"]
    os.unlink(out)
    m = {}
    for r in runs:
        if r.get("aggregate_name") == "median":
            name, size = r["run_name"].split("/")[:2]
            m[(name, int(size))] = (r["real_time"], r["cpu_time"])
    return m


def load():
    return os.getloadavg()[0]


def size_label(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b // scale} {unit}"
    return f"{b} B"


def time(us):
    return f"{us / 1000:.3g} ms" if us >= 1000 else f"{us:.3g} µs"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repetitions", type=int, default=5)
    ap.add_argument("--filter", default="")
    a = ap.parse_args()
    results = {"before": [], "after": []}
    loads = []
    for _ in range(a.rounds):
        for which, binary in (("before", a.before), ("after", a.after)):
            loads.append(load())
            results[which].append(run(binary, a.repetitions, a.filter))
    sizes = sorted({s for _, s in results["after"][0]})

    def med(which, name, s, i):
        return statistics.median(r[(name, s)][i] for r in results[which])

    def ratio(which, s, i):
        return statistics.median(r[("BM_AllReduceRanks", s)][i] / r[("BM_MpiAllreduce", s)][i]
                                 for r in results[which])

    print(f"{a.rounds} rounds x {a.repetitions} repetitions; load average (1 min) before the "
          f"runs: {min(loads):.1f}-{max(loads):.1f}, median {statistics.median(loads):.1f}")
    print()
    print("| bytes per rank | before: comm | before: MPI_Allreduce | before: ratio | "
          "after: comm | after: MPI_Allreduce | after: ratio | after: ratio, CPU time |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for s in sizes:
        print(f"| {size_label(s)} | {time(med('before', 'BM_AllReduceRanks', s, 0))} | "
              f"{time(med('before', 'BM_MpiAllreduce', s, 0))} | {ratio('before', s, 0):.2f}× | "
              f"{time(med('after', 'BM_AllReduceRanks', s, 0))} | "
              f"{time(med('after', 'BM_MpiAllreduce', s, 0))} | {ratio('after', s, 0):.2f}× | "
              f"{ratio('after', s, 1):.2f}× |")


if __name__ == "__main__":
    main()
