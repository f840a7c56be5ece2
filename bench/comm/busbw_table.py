#!/usr/bin/env python3
"""Markdown tables of comm_bench results: all-reduce bus bandwidth against the anchor
measured in the same run (medians of the repetitions).

  comm_bench --benchmark_repetitions=5 --benchmark_out=a.json --benchmark_out_format=json
  mpirun -np 2 comm_bench --benchmark_repetitions=5 --benchmark_out=b.json ...
  bench/comm/busbw_table.py a.json b.json
"""
import json
import sys


def medians(path):
    runs = json.load(open(path))["benchmarks"]
    out = {}
    for r in runs:
        if r.get("aggregate_name") != "median":
            continue
        name, size = r["run_name"].split("/")[:2]
        out[(name, int(size))] = r
    return out


def size_label(b):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b // scale} {unit}"
    return f"{b} B"


def rate(x):
    for unit, scale in (("GB/s", 1e9), ("MB/s", 1e6), ("kB/s", 1e3)):
        if x >= scale:
            return f"{x / scale:.3g} {unit}"
    return f"{x:.3g} B/s"


def time(us):
    return f"{us / 1000:.3g} ms" if us >= 1000 else f"{us:.3g} µs"


def main(paths):
    for path in paths:
        m = medians(path)
        names = {n for n, _ in m}
        sizes = sorted({s for _, s in m})
        if "BM_AllReduceSimulated" in names:
            print("| bytes per IPU | comm time | comm busbw | memcpy | busbw / memcpy | algorithm |")
            print("| --- | --- | --- | --- | --- | --- |")
            for s in sizes:
                c, a = m[("BM_AllReduceSimulated", s)], m[("BM_Memcpy", s)]
                algo = "ring" if c["ring"] > 0.5 else "tree"
                print(f"| {size_label(s)} | {time(c['real_time'])} | {rate(c['busbw'])} | "
                      f"{rate(a['bw'])} | "
                      f"{100 * c['busbw'] / a['bw']:.1f}% | {algo} |")
        if "BM_AllReduceRanks" in names:
            print("| bytes per rank | comm time | MPI_Allreduce time | comm / MPI | "
                  "comm busbw | MPI busbw |")
            print("| --- | --- | --- | --- | --- | --- |")
            for s in sizes:
                c, a = m[("BM_AllReduceRanks", s)], m[("BM_MpiAllreduce", s)]
                print(f"| {size_label(s)} | {time(c['real_time'])} | {time(a['real_time'])} | "
                      f"{c['real_time'] / a['real_time']:.2f}× | {rate(c['busbw'])} | "
                      f"{rate(a['busbw'])} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
