"""The two MNIST networks in PyTorch, written so that they map layer for layer onto the
project's network format (docs/networks.md): NHWC tensors there, NCHW here, so `Flatten`
permutes to NHWC first and the dense layer after it sees its inputs in the device's order
(row-major H, W, C: Keras' Flatten with channels_last).

  seed: Conv2D 64 3x3 valid -> MaxPool 2x2 -> ReLU -> Flatten -> Dense 10
  deep: Conv2D 64 5x5 same + ReLU -> MaxPool 2x2 -> Conv2D 128 5x5 same + ReLU -> MaxPool 2x2
        -> Conv2D 256 5x5 same + ReLU -> MaxPool 2x2 -> Flatten -> Dense 256 + ReLU -> Dense 10

`layers(model)` lists the model as the steps quantize.py walks: ("conv2d", module, padding,
relu), ("pool", 2), ("relu",), ("flatten",), ("dense", module, relu).
"""
import torch
from torch import nn

NAMES = ("seed", "deep")


class NhwcFlatten(nn.Module):
    def forward(self, x):
        return x.permute(0, 2, 3, 1).flatten(1)


def build(name):
    if name == "seed":
        return nn.Sequential(
            nn.Conv2d(1, 64, 3), nn.MaxPool2d(2), nn.ReLU(), NhwcFlatten(),
            nn.Linear(13 * 13 * 64, 10))
    if name == "deep":
        return nn.Sequential(
            nn.Conv2d(1, 64, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(64, 128, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(128, 256, 5, padding=2), nn.ReLU(), nn.MaxPool2d(2),
            NhwcFlatten(), nn.Linear(3 * 3 * 256, 256), nn.ReLU(), nn.Linear(256, 10))
    raise ValueError(f"unknown model {name!r}: expected one of {', '.join(NAMES)}")


def layers(model):
    """The model as a list of steps; a ReLU right after a conv2d or dense layer is fused."""
    mods = list(model)
    steps = []
    i = 0
    while i < len(mods):
        m = mods[i]
        fused = i + 1 < len(mods) and isinstance(mods[i + 1], nn.ReLU)
        if isinstance(m, nn.Conv2d):
            steps.append(("conv2d", m, "same" if m.padding != (0, 0) else "valid", fused))
            i += 2 if fused else 1
        elif isinstance(m, nn.Linear):
            steps.append(("dense", m, fused))
            i += 2 if fused else 1
        elif isinstance(m, nn.MaxPool2d):
            steps.append(("pool", m.kernel_size))
            i += 1
        elif isinstance(m, nn.ReLU):
            steps.append(("relu",))
            i += 1
        elif isinstance(m, NhwcFlatten):
            steps.append(("flatten",))
            i += 1
        else:
            raise ValueError(f"no mapping for {type(m).__name__}")
    return steps


def to_float_input(images_u8):
    """uint8 NHWC images -> float32 NCHW in [0, 1] (the training input)."""
    return torch.from_numpy(images_u8).permute(0, 3, 1, 2).float().div(255.0)
