"""Helpers for the example generators: .npy files and network descriptions (docs/networks.md)
with seeded random int8 weights, standard library only (no NumPy needed)."""
import argparse
import json
import math
import os
import random
import struct


def parse_example_args(doc):
    """The command line every example generator takes: [--seed S] [--batch B] OUT_DIR."""
    p = argparse.ArgumentParser(description=doc.splitlines()[0])
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--batch", type=int, default=1, help="images in the input")
    p.add_argument("out_dir")
    a = p.parse_args()
    if a.batch < 1:
        p.error("--batch must be at least 1")
    return a


def save_npy(path, dtype, shape, values):
    """Writes values (a flat list) as a C-order NumPy 1.0 array of dtype '|i1' or '<i4'."""
    shape_text = "(%d,)" % shape[0] if len(shape) == 1 else "(%s)" % ", ".join(map(str, shape))
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (dtype, shape_text)
    total = 10 + len(header) + 1  # magic, version, length, header, newline: a multiple of 64
    header += " " * ((64 - total % 64) % 64) + "\n"
    code = {"|i1": "b", "<i4": "i"}[dtype]
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode("latin1"))
        f.write(struct.pack("<%d%s" % (len(values), code), *values))


class NetworkWriter:
    """Collects layers and writes NET.json plus the .npy files into out_dir.

    Weights are uniform random int8, biases small random int32. Each conv2d/dense layer gets a
    per-tensor requantization scale chosen so that its outputs spread over the int8 range
    instead of saturating: the accumulator of K products of uniform int8 values has a standard
    deviation of about sqrt(K) * 74 * s_x, with s_x the input's (about 74 for the random input,
    less after a ReLU), and the scale maps it to about `spread` output steps.
    """

    def __init__(self, name, out_dir, seed, input_shape, input_zero_point=0):
        self.name = name
        self.out_dir = out_dir
        self.rng = random.Random(seed)
        self.input_shape = list(input_shape)
        self.input_zero_point = input_zero_point
        self.layers = []
        self.files = []
        os.makedirs(out_dir, exist_ok=True)

    def int8(self, count):
        return [self.rng.randint(-128, 127) for _ in range(count)]

    def _save(self, file, dtype, shape, values):
        save_npy(os.path.join(self.out_dir, file), dtype, shape, values)
        self.files.append(file)
        return file

    def _requant(self, k, input_spread, spread=40.0):
        return {"scale": float("%.6g" % (spread / (math.sqrt(k) * 74.0 * input_spread)))}

    def conv2d(self, name, kernel, cin, cout, padding="same", strides=(1, 1), activation="relu",
               input_spread=74.0, output_zero_point=0):
        kh, kw = kernel
        layer = {"type": "conv2d", "name": name,
                 "weights": self._save(name + "_w.npy", "|i1", (kh, kw, cin, cout),
                                       self.int8(kh * kw * cin * cout)),
                 "bias": self._save(name + "_b.npy", "<i4", (cout,),
                                    [self.rng.randint(-2000, 2000) for _ in range(cout)]),
                 "strides": list(strides), "padding": padding,
                 "requant": self._requant(kh * kw * cin, input_spread),
                 "output_zero_point": output_zero_point, "activation": activation}
        self.layers.append(layer)

    def dense(self, name, k, n, activation="none", input_spread=74.0, output_zero_point=0):
        layer = {"type": "dense", "name": name,
                 "weights": self._save(name + "_w.npy", "|i1", (k, n), self.int8(k * n)),
                 "bias": self._save(name + "_b.npy", "<i4", (n,),
                                    [self.rng.randint(-2000, 2000) for _ in range(n)]),
                 "requant": self._requant(k, input_spread),
                 "output_zero_point": output_zero_point, "activation": activation}
        self.layers.append(layer)

    def pool(self, name, window=(2, 2), strides=None, mode="max", padding="valid"):
        self.layers.append({"type": "pool", "name": name, "mode": mode, "window": list(window),
                            "strides": list(strides or window), "padding": padding})

    def activation(self, name, function="relu"):
        self.layers.append({"type": "activation", "name": name, "function": function})

    def flatten(self, name="flatten"):
        self.layers.append({"type": "flatten", "name": name})

    def write(self):
        count = 1
        for d in self.input_shape:
            count *= d
        self._save("x.npy", "|i1", tuple(self.input_shape), self.int8(count))
        net = {"name": self.name,
               "input": {"shape": self.input_shape, "zero_point": self.input_zero_point},
               "layers": self.layers}
        path = os.path.join(self.out_dir, "net.json")
        with open(path, "w") as f:
            json.dump(net, f, indent=2)
            f.write("\n")
        print("wrote %s (%d layers) and %d .npy files (x.npy the input) in %s"
              % (path, len(self.layers), len(self.files), self.out_dir))
        return path
