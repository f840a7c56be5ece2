#!/usr/bin/env python3
"""A restart file of the layout md_ipu wrote before dihedrals and impropers existed reads as the
file it came from: this rewrites a current restart file of bonds and angles only into the old
layout (topology.layout of 3 counts, no dihedral and improper types, rows without the two empty
dihedral and improper counts, the checksum sealed again) and checks that md_ipu continues from
both files with the same thermo output.

usage: restart_before_dihedrals.py DATA_FOLDER RESTART_FILE MD_IPU [ARGS...] (the inputs
DATA_FOLDER/in.molecular_restart_write and in.molecular_restart_read)"""
import json
import struct
import subprocess
import sys
import zlib


def thermo_lines(cmd):
    out = subprocess.run(cmd, capture_output=True, text=True)
    if out.returncode != 0:
        sys.exit("FAIL: %s exited %d:\n%s" % (" ".join(cmd), out.returncode, out.stderr))
    lines = out.stdout.splitlines()
    start = next(i for i, l in enumerate(lines) if l.split()[:1] == ["Step"])
    return [l for l in lines[start:] if l and l.split()[0].lstrip("-").isdigit()]


def to_old_layout(path, old_path):
    data = open(path, "rb").read()
    first, rest = data.split(b"\n", 1)
    size, rest = rest.split(b"\n", 1)
    header = json.loads(rest[: int(size)])
    body = rest[int(size) : -len(b"crc32 00000000\n")]
    t = header["topology"]
    bonds, angles, dihedrals, impropers, specials = t["layout"]
    assert dihedrals == 0 and impropers == 0, "the file has dihedrals or impropers"
    t["layout"] = [bonds, angles, specials]
    del t["dihedral_types"], t["improper_types"]
    natoms, record = header["atoms"], header["atom_record_bytes"]
    atoms, rows = body[: natoms * record], body[natoms * record :]
    width = 1 + (1 + 2 * bonds) + (1 + 3 * angles) + 2 + 3 + specials
    specials_at = width - 3 - specials
    assert len(rows) == natoms * width * 8
    old_rows = b""
    for k in range(natoms):
        row = list(struct.unpack("<%dd" % width, rows[k * width * 8 : (k + 1) * width * 8]))
        assert row[specials_at - 2] == 0 and row[specials_at - 1] == 0
        del row[specials_at - 2 : specials_at]
        old_rows += struct.pack("<%dd" % len(row), *row)
    text = json.dumps(header, separators=(",", ":")).encode()
    out = first + b"\n" + str(len(text)).encode() + b"\n" + text + atoms + old_rows
    out += b"crc32 %08x\n" % (zlib.crc32(out) & 0xFFFFFFFF)
    open(old_path, "wb").write(out)


def main():
    data, restart, md_ipu = sys.argv[1], sys.argv[2], sys.argv[3:]
    writing = md_ipu + ["-in", data + "/in.molecular_restart_write", "-var", "data", data]
    reading = md_ipu + ["-in", data + "/in.molecular_restart_read"]
    thermo_lines(writing + ["-var", "restart", restart])
    old = restart + ".old"
    to_old_layout(restart, old)
    now = thermo_lines(reading + ["-var", "restart", restart])
    before = thermo_lines(reading + ["-var", "restart", old])
    if now != before or len(now) < 2:
        sys.exit("FAIL: the old layout's run differs:\n%s\n---\n%s" % ("\n".join(now), "\n".join(before)))
    print("the old layout continues as the new one: %d thermo lines equal" % len(now))


main()
