#!/usr/bin/env python3
"""files_match.py REFERENCE OUTPUT TOLERANCE: passes when OUTPUT has REFERENCE's lines and words,
each number within TOLERANCE of the reference relative to the largest magnitude on its line
(sums over atoms in another order differ in their last digits), every other word identical."""
import sys


def number(word):
    try:
        return float(word)
    except ValueError:
        return None


def main():
    reference, output, tolerance = sys.argv[1], sys.argv[2], float(sys.argv[3])
    with open(reference) as f:
        ref_lines = f.read().splitlines()
    with open(output) as f:
        out_lines = f.read().splitlines()
    if len(ref_lines) != len(out_lines):
        print(f"{output}: {len(out_lines)} lines, the reference {len(ref_lines)}")
        return 1
    worst = 0.0
    for n, (r, o) in enumerate(zip(ref_lines, out_lines), 1):
        rw, ow = r.split(), o.split()
        if len(rw) != len(ow):
            print(f"{output}:{n}: {len(ow)} words, the reference {len(rw)}\n  {r}\n  {o}")
            return 1
        values = [abs(x) for x in map(number, rw) if x is not None]
        scale = max(values) if values else 0.0
        for a, b in zip(rw, ow):
            x, y = number(a), number(b)
            if x is None or y is None:
                if a != b:
                    print(f"{output}:{n}: '{b}' where the reference has '{a}'")
                    return 1
                continue
            difference = abs(x - y) / scale if scale > 0 else abs(x - y)
            worst = max(worst, difference)
            if difference > tolerance:
                print(f"{output}:{n}: {b} against {a}: {difference:.3g} of the line's scale")
                return 1
    print(f"ok: {output} matches within {worst:.3g} of each line's scale")
    return 0


if __name__ == "__main__":
    sys.exit(main())
