#!/usr/bin/env python3
"""Markdown tables of comm_bench results: all-reduce bus bandwidth against the anchors
measured in the same run (medians of the repetitions): memcpy and, when the run has it,
the direct in-process all-reduce (a); MPI_Allreduce, in wall and in CPU time (b).

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
            direct = "BM_DirectAllReduce" in names
            # busbw / memcpy is a ratio of times (same bytes): t_memcpy * 2(p-1)/p / t_comm.
            print("| bytes per IPU | comm time | comm busbw | memcpy | busbw / memcpy | "
                  "busbw / memcpy, CPU time | algorithm |"
                  + (" direct: busbw / memcpy, CPU time | comm / direct, CPU time |"
                     if direct else ""))
            print("| --- | --- | --- | --- | --- | --- | --- |" + (" --- | --- |" if direct else ""))
            for s in sizes:
                c, a = m[("BM_AllReduceSimulated", s)], m[("BM_Memcpy", s)]
                algo = "ring" if c["ring"] > 0.5 else "tree"
                row = (f"| {size_label(s)} | {time(c['real_time'])} | {rate(c['busbw'])} | "
                       f"{rate(a['bw'])} | "
                       f"{100 * c['busbw'] / a['bw']:.1f}% | "
                       f"{100 * 1.5 * a['cpu_time'] / c['cpu_time']:.1f}% | {algo} |")
                if direct:
                    d = m[("BM_DirectAllReduce", s)]
                    row += (f" {100 * 1.5 * a['cpu_time'] / d['cpu_time']:.1f}% | "
                            f"{c['cpu_time'] / d['cpu_time']:.2f}× |")
                print(row)
        if "BM_AllReduceRanks" in names:
            print("| bytes per rank | comm time | MPI_Allreduce time | comm / MPI | "
                  "comm / MPI, CPU time | comm busbw | MPI busbw |")
            print("| --- | --- | --- | --- | --- | --- | --- |")
            for s in sizes:
                c, a = m[("BM_AllReduceRanks", s)], m[("BM_MpiAllreduce", s)]
                print(f"| {size_label(s)} | {time(c['real_time'])} | {time(a['real_time'])} | "
                      f"{c['real_time'] / a['real_time']:.2f}× | "
                      f"{c['cpu_time'] / a['cpu_time']:.2f}× | {rate(c['busbw'])} | "
                      f"{rate(a['busbw'])} |")
        print()


if __name__ == "__main__":
    main(sys.argv[1:])
