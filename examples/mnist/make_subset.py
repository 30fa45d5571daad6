#!/usr/bin/env python3
"""Refreshes the small fixed subset committed under examples/mnist/data/ (for the tests: no
network access, no training) from a full run of fetch_mnist.py, train.py and quantize.py:

  data/test200_images.npy, data/test200_labels.npy   the first 200 test digits (uint8 NHWC,
                                                     int64 labels) of fetch_mnist.py's split
  data/seed_int8/                                    the seed network as quantize.py wrote it
                                                     (net.json, net_fixed.json and their .npy;
                                                     model.onnx, its int8 ONNX export)
  data/seed_int8/expected.json                       its NumPy int8 reference's correct count
                                                     on those 200 digits, and the float model's

Usage: make_subset.py DIR (e.g. build/examples/mnist)
"""
import json
import os
import shutil
import sys

import numpy as np

sys.dont_write_bytecode = True
here = os.path.dirname(os.path.abspath(__file__))
COUNT = 200


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    src = sys.argv[1]
    data = os.path.join(here, "data")
    net_dir = os.path.join(data, "seed_int8")
    os.makedirs(net_dir, exist_ok=True)
    images = np.load(os.path.join(src, "data", "test_images.npy"))[:COUNT]
    labels = np.load(os.path.join(src, "data", "test_labels.npy"))[:COUNT]
    np.save(os.path.join(data, f"test{COUNT}_images.npy"), images)
    np.save(os.path.join(data, f"test{COUNT}_labels.npy"), labels)
    seed = os.path.join(src, "seed")
    for net in ("net.json", "net_fixed.json"):
        with open(os.path.join(seed, net)) as f:
            text = f.read()
        shutil.copy(os.path.join(seed, net), net_dir)
        for layer in json.loads(text)["layers"]:
            for key in ("weights", "bias"):
                if key in layer:
                    shutil.copy(os.path.join(seed, layer[key]), net_dir)
            for name in layer.get("requant", {}).values():
                shutil.copy(os.path.join(seed, name), net_dir)
    shutil.copy(os.path.join(seed, "model.onnx"), net_dir)
    ref = np.load(os.path.join(seed, "test_ref_int8.npy"))[:COUNT]
    with open(os.path.join(seed, "quantized.json")) as f:
        summary = json.load(f)
    expected = {"images": COUNT, "int8_correct": int((ref.argmax(1) == labels).sum()),
                "float_accuracy_2000": summary["float_accuracy"],
                "int8_accuracy_2000": summary["int8_accuracy"]}
    with open(os.path.join(net_dir, "expected.json"), "w") as f:
        json.dump(expected, f, indent=1)
        f.write("\n")
    print(f"make_subset.py: {data}: {COUNT} digits, seed network, {expected}")


if __name__ == "__main__":
    main()
