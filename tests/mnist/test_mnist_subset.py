#!/usr/bin/env python3
"""The committed MNIST subset (examples/mnist/data/: 200 real test digits and the trained,
quantized seed network) on `tpu run --backend golden`, against the independent NumPy int8
reference of examples/mnist/quant.py: every output element bit-exact, the number of digits
classified right equal to the one recorded when the subset was made (expected.json), and the
same outputs from every form of the network.
No network access, no training. Usage: test_mnist_subset.py TPU [--onnx] [NET.json ...]
(default: examples/mnist/data/seed_int8/net_fixed.json and net.json: integer multipliers and
shifts, and per-channel float scales turned into them by golden::QuantizeMultiplier). --onnx:
also `tpu import` the network's int8 ONNX export (seed_int8/model.onnx, float32 scales as
quantize.py computes with) and check the imported network the same way.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np

sys.dont_write_bytecode = True
root = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
sys.path.insert(0, os.path.join(root, "examples", "mnist"))
import quant  # noqa: E402

DATA = os.path.join(root, "examples", "mnist", "data")


def reference_layers(net, base):
    """The network file's layers as quant.run_reference records."""
    def load(name):
        return np.load(os.path.join(base, name))
    layers = []
    for L in net["layers"]:
        kind = L["type"]
        if kind in ("conv2d", "dense"):
            r = L["requant"]
            if "scales" in r:
                qm = [quant.quantize_multiplier(s) for s in load(r["scales"])]
                mult = np.array([m for m, _ in qm]); shifts = np.array([s for _, s in qm])
            else:
                mult, shifts = load(r["multipliers"]), load(r["shifts"])
            layers.append({"type": kind, "w": load(L["weights"]), "b": load(L["bias"]),
                           "padding": L.get("padding", "valid"),
                           "relu": L.get("activation", "none") == "relu",
                           "multipliers": mult, "shifts": shifts,
                           "output_zero_point": L.get("output_zero_point", 0)})
        elif kind == "pool" and L.get("mode", "max") == "max":
            layers.append({"type": "pool", "window": tuple(L["window"])})
        elif kind == "activation" and L["function"] == "relu":
            layers.append({"type": "relu"})
        elif kind == "activation" and L["function"] == "clamp":
            layers.append({"type": "clamp", "min": L.get("min", -128), "max": L.get("max", 127)})
        elif kind == "flatten":
            layers.append({"type": kind})
        else:
            sys.exit(f"FAIL: the NumPy reference has no {kind} layer like {L}")
    return layers


def run_golden(tpu, net_path, net, x):
    """`tpu run --backend golden` on x, with the network's input batch set to len(x) and its
    file names made absolute (a copy in a temporary directory)."""
    base = os.path.dirname(os.path.abspath(net_path))
    net = json.loads(json.dumps(net))
    net["input"]["shape"][0] = len(x)
    for L in net["layers"]:
        for key in ("weights", "bias"):
            if key in L:
                L[key] = os.path.join(base, L[key])
        for key, value in L.get("requant", {}).items():
            if isinstance(value, str):
                L["requant"][key] = os.path.join(base, value)
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "net.json")
        with open(path, "w") as f:
            json.dump(net, f)
        np.save(os.path.join(tmp, "x.npy"), x)
        subprocess.run([tpu, "run", path, "--input", os.path.join(tmp, "x.npy"), "--output",
                        os.path.join(tmp, "y.npy"), "--backend", "golden", "--report", "json"],
                       check=True, stdout=subprocess.DEVNULL)
        return np.load(os.path.join(tmp, "y.npy"))


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    tpu = sys.argv[1]
    args = [a for a in sys.argv[2:] if a != "--onnx"]
    nets = args or [os.path.join(DATA, "seed_int8", n) for n in ("net_fixed.json", "net.json")]
    tmp = tempfile.TemporaryDirectory()
    if "--onnx" in sys.argv[2:]:
        seed = os.path.join(DATA, "seed_int8")
        imported = os.path.join(tmp.name, "imported.json")
        subprocess.run([tpu, "import", os.path.join(seed, "model.onnx"), "--output", imported],
                       check=True, stdout=subprocess.DEVNULL)
        shutil.copy(os.path.join(seed, "expected.json"), tmp.name)
        nets.append(imported)
    images = np.load(os.path.join(DATA, "test200_images.npy"))
    labels = np.load(os.path.join(DATA, "test200_labels.npy"))
    x = (images.astype(np.int16) - 128).astype(np.int8)
    failed = False
    first = None  # every network is the same quantized model: the same outputs
    for net_path in nets:
        with open(net_path) as f:
            net = json.load(f)
        base = os.path.dirname(os.path.abspath(net_path))
        with open(os.path.join(base, "expected.json")) as f:
            expected = json.load(f)
        ref = quant.run_reference(reference_layers(net, base), x, net["input"]["zero_point"])
        y = run_golden(tpu, net_path, net, x)
        differ = int((y != ref).sum())
        correct = int((y.argmax(1) == labels).sum())
        print(f"{net_path}: {len(x)} digits: golden vs NumPy reference: "
              f"{differ} of {y.size} elements differ; {correct} classified right "
              f"(expected {expected['int8_correct']})")
        if first is None:
            first = y
        same = y.shape == first.shape and (y == first).all()
        if not same:
            print(f"  differs from {nets[0]}'s output in {int((y != first).sum())} elements")
        if y.shape != ref.shape or differ or correct != expected["int8_correct"] or not same:
            failed = True
    if failed:
        sys.exit("FAIL")
    print("PASS")


if __name__ == "__main__":
    main()
