#!/usr/bin/env python3
"""Trains the MNIST networks (models.py: `seed`, `deep`) on the 8,000 training digits that
fetch_mnist.py wrote, with Debian's PyTorch on the CPU, seeded and deterministic, and reports
each model's float accuracy on the 2,000 test digits:

  DIR/data/*.npy           from fetch_mnist.py DIR
  DIR/NAME/float.pt        the trained weights (state dict)
  DIR/NAME/float.json      {"model", "epochs", "train_s", "test_accuracy", ...}

Adam (lr 1e-3), batch 64, the training set in a seeded order each epoch; 3 epochs for seed and 2
for deep by default (--epochs overrides both). Threads: --threads (default 2).
"""
import argparse
import json
import os
import sys
import time

import numpy as np
import torch
from torch import nn

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import models  # noqa: E402

DEFAULT_EPOCHS = {"seed": 3, "deep": 2}


def accuracy(model, x, y, batch=500):
    model.eval()
    correct = 0
    with torch.no_grad():
        for i in range(0, len(x), batch):
            correct += int((model(x[i:i + batch]).argmax(1) == y[i:i + batch]).sum())
    return correct / len(x)


def train(name, x, y, epochs, seed):
    torch.manual_seed(seed)
    model = models.build(name)
    opt = torch.optim.Adam(model.parameters(), lr=1e-3)
    loss_fn = nn.CrossEntropyLoss()
    gen = torch.Generator().manual_seed(seed)
    for epoch in range(epochs):
        model.train()
        order = torch.randperm(len(x), generator=gen)
        total = 0.0
        for i in range(0, len(x), 64):
            idx = order[i:i + 64]
            opt.zero_grad()
            loss = loss_fn(model(x[idx]), y[idx])
            loss.backward()
            opt.step()
            total += float(loss) * len(idx)
        print(f"train.py: {name}: epoch {epoch + 1}/{epochs}: loss {total / len(x):.4f}",
              file=sys.stderr)
    return model


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("dir", help="the directory fetch_mnist.py wrote, e.g. build/examples/mnist")
    p.add_argument("--model", choices=models.NAMES + ("all",), default="all")
    p.add_argument("--epochs", type=int, help="epochs for every model (default: seed 3, deep 2)")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=2)
    a = p.parse_args()
    torch.set_num_threads(a.threads)
    torch.use_deterministic_algorithms(True)
    data = os.path.join(a.dir, "data")
    try:
        x_train = models.to_float_input(np.load(os.path.join(data, "train_images.npy")))
        y_train = torch.from_numpy(np.load(os.path.join(data, "train_labels.npy")))
        x_test = models.to_float_input(np.load(os.path.join(data, "test_images.npy")))
        y_test = torch.from_numpy(np.load(os.path.join(data, "test_labels.npy")))
    except FileNotFoundError as e:
        sys.exit(f"train.py: {e.filename}: missing: run examples/mnist/fetch_mnist.py {a.dir} "
                 "first")
    for name in models.NAMES if a.model == "all" else (a.model,):
        epochs = a.epochs or DEFAULT_EPOCHS[name]
        start = time.time()
        model = train(name, x_train, y_train, epochs, a.seed)
        train_s = time.time() - start
        acc = accuracy(model, x_test, y_test)
        out = os.path.join(a.dir, name)
        os.makedirs(out, exist_ok=True)
        torch.save(model.state_dict(), os.path.join(out, "float.pt"))
        with open(os.path.join(out, "float.json"), "w") as f:
            json.dump({"model": name, "epochs": epochs, "seed": a.seed, "threads": a.threads,
                       "train_images": len(x_train), "train_s": round(train_s, 1),
                       "test_images": len(x_test), "test_accuracy": acc}, f, indent=1)
        print(f"train.py: {name}: {epochs} epochs in {train_s:.1f} s, float accuracy "
              f"{100 * acc:.2f}% on {len(x_test)} test digits")


if __name__ == "__main__":
    main()
