#!/usr/bin/env python3
"""Writes corpus/deepmd_model/tiny.yaml and tiny_float32.yaml: the smallest se_e2_a model of the
layout DeePMD-kit v3's `dp convert-backend` writes (O and H, sel 2 2, embedding 1-2-4 with a
resnet layer, fitting 8-3-3-1), as seeds for the deepmd_model harness and the model file the
md_script harness offers its scripts. The weights are arbitrary fixed numbers."""
import math
import os


def arr(v, dt="float64"):
    return '{"@class": np.ndarray, dtype: %s, value: %s}' % (dt, v)


def vals(rows, cols, k):
    return [[round(math.sin(k + 0.7 * r + 1.3 * c) * 0.5, 6) for c in range(cols)]
            for r in range(rows)]


def layer(i, o, k, act="tanh", resnet=False, idt=False, dt="float64", ind="            "):
    s = ind + "- activation_function: %s\n" % act
    s += ind + "  bias: true\n"
    s += ind + "  resnet: %s\n" % ("true" if resnet else "false")
    s += ind + "  precision: %s\n" % dt
    s += ind + '  "@variables":\n'
    s += ind + "    w: %s\n" % arr(vals(i, o, k), dt)
    s += ind + "    b: %s\n" % arr(vals(1, o, k + 5)[0], dt)
    s += ind + "    idt: %s\n" % (arr(vals(1, o, k + 9)[0], dt) if idt else "null")
    return s


def model(dt="float64"):
    nt, sel, width, axis = 2, [2, 2], 4, 2
    slots = sum(sel) * 4
    y = "model:\n"
    y += '  "@class": Model\n  type: standard\n  type_map: [O, H]\n'
    y += "  atom_exclude_types: []\n  pair_exclude_types: []\n"
    y += '  "@variables":\n    out_bias: %s\n' % arr([[[0.1], [-0.2]]])
    y += "  descriptor:\n    type: se_e2_a\n    type_one_side: true\n    exclude_types: []\n"
    y += "    spin: null\n    env_protection: 0.0\n    activation_function: tanh\n"
    y += "    rcut: 3.0\n    rcut_smth: 0.5\n    sel: %s\n    axis_neuron: %d\n" % (sel, axis)
    y += "    precision: %s\n" % dt
    y += '    "@variables":\n'
    y += "      davg: %s\n" % arr([[0.05 if s % 4 == 0 else 0.0 for s in range(slots)]
                                  for _ in range(nt)])
    y += "      dstd: %s\n" % arr([[0.2 for s in range(slots)] for _ in range(nt)])
    y += "    embeddings:\n      ndim: 1\n      networks:\n"
    for t in range(nt):
        y += "        - layers:\n"
        y += layer(1, 2, t)
        y += layer(2, 4, t + 2, resnet=True, idt=True)
    y += "  fitting:\n    type: ener\n    numb_fparam: 0\n    numb_aparam: 0\n"
    y += "    activation_function: tanh\n    precision: %s\n    mixed_types: false\n" % dt
    y += "    exclude_types: []\n    dim_descrpt: %d\n" % (width * axis)
    y += '    "@variables":\n      bias_atom_e: %s\n' % arr([[-1.0], [-0.5]])
    y += "    nets:\n      ndim: 1\n      networks:\n"
    for t in range(nt):
        y += "        - layers:\n"
        y += layer(width * axis, 3, t + 4)
        y += layer(3, 3, t + 6, resnet=True, idt=True)
        y += layer(3, 1, t + 8, act="none")
    return y


here = os.path.join(os.path.dirname(os.path.abspath(__file__)), "corpus", "deepmd_model")
os.makedirs(here, exist_ok=True)
with open(os.path.join(here, "tiny.yaml"), "w") as f:
    f.write("# A tiny se_e2_a model (O, H; sel 2 2; embedding 1-2-4; fitting 8-3-3-1) for "
            "fuzzing.\n" + model())
with open(os.path.join(here, "tiny_float32.yaml"), "w") as f:
    f.write("# tiny.yaml in float32.\n" + model("float32"))
