#!/usr/bin/env python3
"""make_dpa1.py DEEPMD_KIT_CHECKOUT: writes dpa1.yaml and dpa1-testcase.yaml from DeePMD-kit's
DPA-1 descriptor test (source/tests/pt/model/test_descriptor_dpa1.py, LGPL-3.0).

That test loads a se_atten descriptor block's PyTorch state dict (models/dpa1.pth, built from
models/dpa1.json: rcut 6, rcut_smth 2, sel 30, embedding [2, 4, 8], axis_neuron 4, two attention
layers of width 5 with attn_dotr, normalize, temperature 1, smooth) and a type embedding's
(models/dpa2_tebd.pth, width 8, with bias), evaluates 5 atoms in a triclinic cell and compares
the descriptor with its ref_d to 1e-10 (DescrptDPA1 with concat_output_tebd false). This script
reads the two state dicts without PyTorch (a .pth file is a zip of a pickle and raw storages),
writes them as DeePMD-kit's serialized DPA-1 descriptor (deepmd/dpmodel/descriptor/dpa1.py
serialize(), @version 2) inside a standard energy model, and copies the test's cell, coordinates,
types and ref_d into dpa1-testcase.yaml. DeePMD-kit's test has no fitting net: the model's
(mixed types, [5, 5] with resnet_dt) is Tessera's own, drawn from a seeded generator, so the
energies and forces are checked by their consistency (forces against the energy's gradient), the
descriptor against DeePMD-kit's numbers. Both files are YAML in JSON's flow syntax.

dpa1_strip.yaml is the same model in se_atten_v2's form (tebd_input_mode strip): its embedding
net takes R~_0 alone (the first row of the published net's first layer) and a strip net of
Tessera's own weights ([2, 4, 8] on the two types' embeddings) gates it.
"""
import collections
import io
import json
import os
import pickle
import random
import re
import struct
import subprocess
import sys
import zipfile

COMMIT = "bc902daf747d93c5d7314338d287fd2dd0a7e32c"


def git_show(checkout, path):
    return subprocess.run(["git", "-C", checkout, "show", f"{COMMIT}:{path}"], check=True,
                          capture_output=True).stdout


def state_dict(raw):
    """{name: (shape, flat values)} from the bytes of a PyTorch state-dict file."""
    z = zipfile.ZipFile(io.BytesIO(raw))
    root = z.namelist()[0].split("/")[0]

    class Unpickler(pickle.Unpickler):
        def find_class(self, module, name):
            if (module, name) == ("torch._utils", "_rebuild_tensor_v2"):
                return rebuild
            if module == "torch" and name == "DoubleStorage":
                return name
            if (module, name) == ("collections", "OrderedDict"):
                return collections.OrderedDict
            raise pickle.UnpicklingError(f"{module}.{name}")

        def persistent_load(self, pid):
            return pid[2]  # the storage's key (its file under data/)

    def rebuild(key, offset, size, stride, *_):
        data = z.read(f"{root}/data/{key}")
        flat = struct.unpack("<%dd" % (len(data) // 8), data)
        count = 1
        for s in size:
            count *= s
        values = []
        for n in range(count):
            index, rest = offset, n
            for s, st in zip(reversed(size), reversed(stride)):
                index += (rest % s) * st
                rest //= s
            values.append(flat[index])
        return (list(size), values)

    return Unpickler(z.open(f"{root}/data.pkl")).load()


def nested(shape, values):
    if not shape:
        return values[0]
    step = len(values) // shape[0]
    return [nested(shape[1:], values[k * step:(k + 1) * step]) for k in range(shape[0])]


def array(shape, values):
    return {"@class": "np.ndarray", "@is_variable": True, "@version": 1, "dtype": "float64",
            "value": nested(shape, values)}


def layer(w, b, activation, resnet, idt=None):
    return {"@class": "Layer", "@version": 1, "bias": True, "use_timestep": idt is not None,
            "activation_function": activation, "resnet": resnet, "precision": "float64",
            "@variables": {"w": array(*w), "b": array(*b), "idt": array(*idt) if idt else None}}


def main(checkout):
    here = os.path.dirname(os.path.abspath(__file__))
    tests = "source/tests/pt/model/"
    d = state_dict(git_show(checkout, tests + "models/dpa1.pth"))
    t = state_dict(git_show(checkout, tests + "models/dpa2_tebd.pth"))
    config = json.loads(git_show(checkout, tests + "models/dpa1.json"))
    dc = config["descriptor"]
    type_map = config["type_map"]
    ntypes, ng, attn = len(type_map), dc["neuron"][-1], dc["attn"]

    embedding = {"@class": "EmbeddingNetwork", "@version": 2, "in_dim": 1 + 2 * 8,
                 "neuron": dc["neuron"], "activation_function": "tanh", "resnet_dt": False,
                 "precision": "float64", "bias": True, "layers": []}
    for n in range(len(dc["neuron"])):
        p = f"filter_layers.networks.0.layers.{n}."
        embedding["layers"].append(layer(d[p + "matrix"], d[p + "bias"], "tanh", True))
    attention_layers = []
    for n in range(dc["attn_layer"]):
        p = f"dpa1_attention.attention_layers.{n}."
        common = {"nnei": dc["sel"], "embed_dim": ng, "hidden_dim": attn, "dotr": dc["attn_dotr"],
                  "do_mask": False, "scaling_factor": dc["scaling_factor"],
                  "normalize": dc["normalize"], "temperature": dc["temperature"],
                  "precision": "float64"}
        gated = dict(common, num_heads=1, bias=True, smooth=True,
                     in_proj=layer(d[p + "attention_layer.in_proj.matrix"],
                                   d[p + "attention_layer.in_proj.bias"], "linear", False),
                     out_proj=layer(d[p + "attention_layer.out_proj.matrix"],
                                    d[p + "attention_layer.out_proj.bias"], "linear", False))
        norm = {"@class": "LayerNorm", "@version": 1, "eps": 1e-5, "trainable": True,
                "precision": "float64",
                "@variables": {"w": array(*d[p + "attn_layer_norm.matrix"]),
                               "b": array(*d[p + "attn_layer_norm.bias"])}}
        attention_layers.append(dict(common, trainable_ln=True, ln_eps=1e-5,
                                     attention_layer=gated, attn_layer_norm=norm))
    tebd_keys = list(t)
    type_embedding = {
        "@class": "TypeEmbedNet", "@version": 2, "ntypes": ntypes, "neuron": [8],
        "resnet_dt": False, "precision": "float64", "activation_function": "Linear",
        "trainable": True, "padding": True, "use_econf_tebd": False, "use_tebd_bias": True,
        "type_map": type_map,
        "embedding": {"@class": "EmbeddingNetwork", "@version": 2, "in_dim": ntypes,
                      "neuron": [8], "activation_function": "Linear", "resnet_dt": False,
                      "precision": "float64", "bias": True,
                      "layers": [layer(t[tebd_keys[0]], t[tebd_keys[1]], "Linear", True)]}}
    descriptor = {
        "@class": "Descriptor", "type": "dpa1", "@version": 2, "rcut": dc["rcut"],
        "rcut_smth": dc["rcut_smth"], "sel": [dc["sel"]], "ntypes": ntypes,
        "neuron": dc["neuron"], "axis_neuron": dc["axis_neuron"], "tebd_dim": 8,
        "tebd_input_mode": "concat", "set_davg_zero": False, "attn": attn,
        "attn_layer": dc["attn_layer"], "attn_dotr": dc["attn_dotr"], "attn_mask": False,
        "activation_function": "tanh", "resnet_dt": False,
        "scaling_factor": dc["scaling_factor"], "normalize": dc["normalize"],
        "temperature": dc["temperature"], "trainable_ln": True, "ln_eps": 1e-5,
        "smooth_type_embedding": True, "type_one_side": False, "concat_output_tebd": False,
        "use_econf_tebd": False, "use_tebd_bias": True, "type_map": type_map,
        "precision": "float64",
        "embeddings": {"@class": "NetworkCollection", "@version": 1, "ndim": 0, "ntypes": ntypes,
                       "network_type": "embedding_network", "networks": [embedding]},
        "attention_layers": {"@class": "NeighborGatedAttention", "@version": 1,
                             "layer_num": dc["attn_layer"], "nnei": dc["sel"], "embed_dim": ng,
                             "hidden_dim": attn, "dotr": dc["attn_dotr"], "do_mask": False,
                             "scaling_factor": dc["scaling_factor"],
                             "normalize": dc["normalize"], "temperature": dc["temperature"],
                             "trainable_ln": True, "ln_eps": 1e-5, "precision": "float64",
                             "attention_layers": attention_layers},
        "env_mat": {"rcut": dc["rcut"], "rcut_smth": dc["rcut_smth"]},
        "type_embedding": type_embedding, "exclude_types": [], "env_protection": 0.0,
        "@variables": {"davg": array(*d["mean"]), "dstd": array(*d["stddev"])},
        "trainable": True, "spin": None}

    # Tessera's fitting net: 32 -> 5 -> 5 (resnet_dt) -> 1, weights uniform in [-0.5, 0.5).
    rng = random.Random(20261207)

    def uniform(*shape):
        count = 1
        for s in shape:
            count *= s
        return (list(shape), [rng.uniform(-0.5, 0.5) for _ in range(count)])

    dim = ng * dc["axis_neuron"]
    fitting_layers = [layer(uniform(dim, 5), uniform(5), "tanh", True, uniform(5)),
                      layer(uniform(5, 5), uniform(5), "tanh", True, uniform(5)),
                      layer(uniform(5, 1), uniform(1), "none", False)]
    fitting = {
        "@class": "Fitting", "type": "ener", "@version": 2, "ntypes": ntypes,
        "dim_descrpt": dim, "neuron": [5, 5], "resnet_dt": True, "numb_fparam": 0,
        "numb_aparam": 0, "activation_function": "tanh", "precision": "float64",
        "mixed_types": True, "exclude_types": [], "dim_out": 1, "layer_name": None,
        "atom_ener": [],
        "nets": {"@class": "NetworkCollection", "@version": 1, "ndim": 0, "ntypes": ntypes,
                 "network_type": "fitting_network",
                 "networks": [{"@class": "FittingNetwork", "@version": 1, "in_dim": dim,
                               "out_dim": 1, "neuron": [5, 5], "activation_function": "tanh",
                               "resnet_dt": True, "precision": "float64", "bias_out": True,
                               "layers": fitting_layers}]},
        "@variables": {"bias_atom_e": array([ntypes, 1], [-93.57, -187.15]),
                       "fparam_avg": None, "fparam_inv_std": None, "aparam_avg": None,
                       "aparam_inv_std": None}}
    model = {"backend": "PyTorch", "software": "deepmd-kit (converted by make_dpa1.py)",
             "model": {"@class": "Model", "type": "standard", "@version": 2,
                       "type_map": type_map, "atom_exclude_types": [],
                       "pair_exclude_types": [],
                       "@variables": {"out_bias": array([1, ntypes, 1], [0.0, 0.0]),
                                      "out_std": array([1, ntypes, 1], [1.0, 1.0])},
                       "descriptor": descriptor, "fitting": fitting}}
    with open(os.path.join(here, "dpa1.yaml"), "w") as out:
        json.dump(model, out, indent=1)
        out.write("\n")

    first = embedding["layers"][0]["@variables"]["w"]
    first["value"] = first["value"][:1]
    embedding["in_dim"] = 1
    strip = {"@class": "EmbeddingNetwork", "@version": 2, "in_dim": 16, "neuron": dc["neuron"],
             "activation_function": "tanh", "resnet_dt": False, "precision": "float64",
             "bias": True, "layers": []}
    width = 16
    for n in dc["neuron"]:
        strip["layers"].append(layer(uniform(width, n), uniform(n), "tanh", True))
        width = n
    descriptor.update({"tebd_input_mode": "strip", "embeddings_strip": {
        "@class": "NetworkCollection", "@version": 1, "ndim": 0, "ntypes": ntypes,
        "network_type": "embedding_network", "networks": [strip]}})
    with open(os.path.join(here, "dpa1_strip.yaml"), "w") as out:
        json.dump(model, out, indent=1)
        out.write("\n")

    source = git_show(checkout, tests + "test_descriptor_dpa1.py").decode()

    def numbers(pattern):
        block = re.search(pattern + r"\s*\[(.*?)\]", source, re.S).group(1)
        return [float(x) for x in re.findall(r"-?[0-9.]+e[-+]?[0-9]+", block)]

    testcase = {"source": f"deepmd-kit {COMMIT} {tests}test_descriptor_dpa1.py",
                "cell": numbers(r"cell = "), "coord": numbers(r"coord = "),
                "atype": [0, 0, 0, 1, 1],
                "descriptor": numbers(r"self\.ref_d = torch\.tensor\(")}
    with open(os.path.join(here, "dpa1-testcase.yaml"), "w") as out:
        json.dump(testcase, out, indent=1)
        out.write("\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
