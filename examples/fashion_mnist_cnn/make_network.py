#!/usr/bin/env python3
"""Writes the Fashion-MNIST CNN of the TensorFlow TPU tutorial, quantized to int8 with seeded
random weights, as OUT_DIR/net.json (docs/networks.md) + .npy files + an input x.npy:

  input (B, 28, 28, 1) -> Conv2D 64 3x3 valid -> MaxPool 2x2 -> ReLU -> Flatten -> Dense 10

  examples/fashion_mnist_cnn/make_network.py build/examples/fashion_mnist_cnn
  build/host_driver/cli/tpu run build/examples/fashion_mnist_cnn/net.json \\
      --input build/examples/fashion_mnist_cnn/x.npy --output y.npy --backend rtl --check
"""
import os
import sys

sys.dont_write_bytecode = True  # keep the source tree clean
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from netgen import NetworkWriter, parse_example_args  # noqa: E402


def main():
    a = parse_example_args(__doc__)
    w = NetworkWriter("fashion_mnist_cnn", a.out_dir, a.seed, (a.batch, 28, 28, 1))
    # The tutorial's order: the ReLU after the pooling (max pooling and ReLU commute).
    w.conv2d("conv", (3, 3), 1, 64, padding="valid", activation="none")
    w.pool("maxpool", (2, 2))
    w.activation("relu", "relu")
    w.flatten("flatten")
    w.dense("dense", 13 * 13 * 64, 10, input_spread=25.0)
    w.write()


if __name__ == "__main__":
    main()
