#!/usr/bin/env python3
"""Writes the deeper CNN example, quantized to int8 with seeded random weights, as
OUT_DIR/net.json (docs/networks.md) + .npy files + an input x.npy:

  input (B, 28, 28, 1)
  -> Conv2D 64 5x5 same, ReLU  -> MaxPool 2x2 -> (14, 14, 64)
  -> Conv2D 128 5x5 same, ReLU -> MaxPool 2x2 -> (7, 7, 128)
  -> Conv2D 256 5x5 same, ReLU -> MaxPool 2x2 -> (3, 3, 256)
  -> Flatten 2304 -> Dense 256, ReLU -> Dense 10

Sized for the default device (N = 16, 4096 UB rows, 1024 accumulator rows, 4 MiB weight DRAM):
the 28 x 28 input keeps every pooled image within the accumulators (28 x 28 = 784 rows <= 1024)
and the largest weights (conv3, 5 x 5 x 128 x 256 = 800 KiB; dense1, 2304 x 256 = 576 KiB) well
inside the weight DRAM (examples/README.md).
"""
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from netgen import NetworkWriter, parse_example_args  # noqa: E402


def main():
    a = parse_example_args(__doc__)
    w = NetworkWriter("deep_cnn", a.out_dir, a.seed, (a.batch, 28, 28, 1))
    w.conv2d("conv1", (5, 5), 1, 64)
    w.pool("pool1")
    w.conv2d("conv2", (5, 5), 64, 128, input_spread=25.0)
    w.pool("pool2")
    w.conv2d("conv3", (5, 5), 128, 256, input_spread=25.0)
    w.pool("pool3")
    w.flatten("flatten")
    w.dense("dense1", 3 * 3 * 256, 256, activation="relu", input_spread=25.0)
    w.dense("dense2", 256, 10, input_spread=25.0)
    w.write()


if __name__ == "__main__":
    main()
